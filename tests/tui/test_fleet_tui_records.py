"""The fleet console does for every server what the single-server console does for its one: it records
every server's samples into the history store (each under its own server) and its charts start with
what was recorded, it runs every server's `[[alerts]]` rules (badges on the server's row and in the
status line, A lists each alert with its server), and it says the sends with no recorded outcome at
start. Pilot against real simulators on free ports, every clock moved by the test."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fleet_support import SERVERS
from fleet_ui_support import FleetDriver, as_fleet, fleet_app, fleet_totals, server_rows, two
from textual.app import App
from textual.widgets import DataTable
from textual.widgets._toast import Toast
from ui_support import SEED, ParkingClock, ThreadedSimulator, console_clock, quiet_ui, shown, status_of, tree_row

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.alerts import AlertsScreen
from omeconsole.ui.widgets.rate_sparkline import RateSparkline, Spark

__all__ = ["console_clock", "quiet_ui", "two"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
STALL = "ingest-stall=at:12s:for:60s,streams=default/app/news"


def spark_bars(app: App[None]) -> str:
    """The bars of the detail's `in` sparkline, without the blank columns before the first."""
    return shown(app.screen.query_one("#spark-in", RateSparkline).query_one(Spark)).strip("\n").lstrip()


async def test_every_servers_samples_are_recorded_and_after_a_restart_each_chart_starts_with_them(
        two: list[ThreadedSimulator], tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    fleet = as_fleet(two, history=history)
    first = ParkingClock(wall_start=WALL)
    app = fleet_app(fleet, first, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, first, 2, [sim.advance for sim in two])
        await driver.warm_up(3)
        await driver.step(1.0, times=10)
        await pilot.press("q")

    start, end = WALL.timestamp(), WALL.timestamp() + 3600
    with HistoryReader(history.path, history) as reader:
        stored = {server.profile: server.key for server in reader.servers()}
        assert set(stored) == {"origin", "edge-1"}
        assert stored["origin"] != stored["edge-1"]
        recorded = {profile: reader.samples(key, NEWS, start, end, now=start + 60) for profile, key in stored.items()}
    for profile, samples in recorded.items():
        assert len(samples) >= 10, (profile, len(samples))  # every reading the console took of the news
    assert recorded["origin"] != recorded["edge-1"]  # each server's own readings, under its own name

    for sim in two:
        sim.advance(20)  # the console is off for 20 s
    later = ParkingClock(wall_start=WALL + timedelta(seconds=first.monotonic() - 1000.0 + 20))
    app = fleet_app(fleet, later, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        driver = FleetDriver(pilot, later, 2, [sim.advance for sim in two])
        await driver.warm_up(3)
        for profile in ("origin", "edge-1"):
            past = app.fleet.lives[profile].past
            assert past is not None
            await past.loaded(NEWS)
        await driver.step(1.0, times=2)
        for profile in ("origin", "edge-1"):
            assert profile in status_of(app)
            earlier, gap, now = spark_bars(app).partition(" ")
            assert gap == " " and len(earlier) >= 5, (profile, spark_bars(app))  # the first run, then a gap
            assert now.strip() and " " not in now.strip()  # then this run's readings
            await pilot.press("]")  # the next server
            await driver.step()
        assert not any("history" in shown(toast) for toast in app.screen.query(Toast))


async def test_a_stalled_stream_on_one_server_raises_its_alert_there_and_the_other_server_has_none(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(name="news ingest", kind="ingest_stopped", scope="default/app/news", after=3,
                     keep_firing_for=3, severity="critical")
    (origin, origin_token, origin_edition), (edge, edge_token, edge_edition) = SERVERS[:2]
    with ThreadedSimulator(edition=origin_edition, access_token=origin_token, seed=SEED, name=origin) as healthy, \
            ThreadedSimulator(edition=edge_edition, access_token=edge_token, seed=SEED + 1, name=edge,
                              faults=STALL) as stalled:
        app = fleet_app(as_fleet([healthy, stalled], alerts=[rule]), console_clock, tmp_path, select=str(NEWS))
        async with app.run_test(size=(160, 48)) as pilot:
            driver = FleetDriver(pilot, console_clock, 2, [healthy.advance, stalled.advance])
            await driver.warm_up(8)
            assert "⚑" not in server_rows(app)[edge] and "alert" not in status_of(app)

            for _ in range(20):  # the stall starts at 12 s of the edge's world time
                await driver.step()
                if "⚑" in server_rows(app)[edge]:
                    break
            assert "⚑ 1 alert" in server_rows(app)[edge], server_rows(app)[edge]
            assert "⚑" not in server_rows(app)[origin]
            assert "⚑ 1 alert" in fleet_totals(app)
            assert origin in status_of(app) and "⚑ 1 alert" in status_of(app)  # on the origin: the fleet's count
            assert "⚑" not in tree_row(app, NEWS)  # the origin's news is fine

            await pilot.press("A")
            assert isinstance(app.screen, AlertsScreen)
            table = shown(app.screen.query_one(DataTable))
            assert re.search(rf"⚑ firing +critical +news ingest +{edge}:default/app/news", table), table
            assert f"{origin}:" not in table
            await pilot.press("enter")  # the edge's node, while the operator is on the origin
            assert isinstance(app.screen, AlertsScreen) and f"on server {edge}" in status_of(app)
            await pilot.press("escape")

            await pilot.press("]")
            await driver.step()
            assert edge in status_of(app)
            assert "⚑ 1" in tree_row(app, NEWS)  # the edge's tree carries the badge on its stalled stream


def _intent(send_id: str, *, outcome: bool) -> str:
    lines = [json.dumps({"type": "intent", "id": send_id, "time": "2026-01-01T12:00:00.000+00:00",
                         "server": "127.0.0.1:8082", "profile": "edge-1", "vhost": "default", "app": "app",
                         "stream": "news", "action": "cue-out", "path": "/x", "body": {"eventFormat": "cue"}})]
    if outcome:
        lines.append(json.dumps({"type": "outcome", "id": send_id, "time": "2026-01-01T12:00:00.100+00:00",
                                 "outcome": "accepted", "status": 200, "message": "OK", "items": []}))
    return "\n".join(lines) + "\n"


async def test_sends_with_no_recorded_outcome_are_said_at_start_on_a_fleet(
        two: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    audit.write_text(_intent("a1", outcome=True) + _intent("a2", outcome=False))
    audit.chmod(0o600)
    app = fleet_app(as_fleet(two), console_clock, tmp_path)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        driver = FleetDriver(pilot, console_clock, 2, [sim.advance for sim in two])
        await driver.warm_up(2)
        for _ in range(10):  # the audit log is read in a thread
            said = [shown(toast) for toast in app.screen.query(Toast)]
            if said:
                break
            await driver.step()
        unknown = [text for text in said if "no recorded outcome" in text]
        assert len(unknown) == 1, said
        assert "1 send(s)" in unknown[0] and "cue-out" in unknown[0] and "default/app/news" in unknown[0]

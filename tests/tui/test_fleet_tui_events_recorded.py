"""A fleet console records every server's alerts into the one history store, and `--replay --fleet` lists them.

The real fleet app through Pilot against two real simulators (origin, edge-1), an `[[alerts]]` rule that fires on
each of them (news is watched: more than 0 viewers); then the store holds one span per server, and the fleet
replay, with no server, lists the firing under the stream's chart of each server as the live console did.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fleet_ui_support import FleetDriver, as_fleet, fleet_app, two
from textual.app import App
from textual.widgets import Static
from ui_support import ParkingClock, ThreadedSimulator, quiet_ui, shown

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.history.observations import server_key
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.replay.fleet import fleet_replay_app, open_fleet_replay
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["quiet_ui", "two"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
RULE = AlertRule(name="news is watched", kind="viewers_above", scope="default/app/news", viewers=0,
                 severity="info")


def events_lines(app: App[None]) -> list[str]:
    listed = app.screen.query_one("#detail-events", Static)
    return [line.strip() for line in shown(listed).strip().splitlines()] if listed.display else []


async def test_a_fleet_records_each_servers_alert_and_its_replay_lists_them(
        two: list[ThreadedSimulator], tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    fleet = as_fleet(two, history=history, alerts=[RULE])
    live_clock = ParkingClock(wall_start=WALL)
    live: dict[str, list[str]] = {}
    app = fleet_app(fleet, live_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, live_clock, 2, [sim.advance for sim in two])
        await driver.warm_up(3)
        await driver.step(1.0, times=6)
        live["origin"] = events_lines(app)
        await pilot.press("]")
        await driver.settle()
        live["edge-1"] = events_lines(app)
        await pilot.press("q")
    for lines in live.values():
        assert len(lines) == 1 and lines[0].startswith("⚑ alert news is watched firing 12:00:"), live

    began: dict[str, float] = {}
    with HistoryReader(history.path) as reader:
        for profile, server in zip(("origin", "edge-1"), fleet.servers, strict=True):
            (span,) = reader.spans(server_key(server.api_url), WALL.timestamp(), WALL.timestamp() + 60, NEWS)
            assert (span.kind, span.path, span.label, span.severity) == ("alert", NEWS, RULE.name, "info")
            assert span.ended is None, "still firing when the console quit"
            began[profile] = span.began

    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=30))
    replay = open_fleet_replay(fleet, replay_clock, since=3600)
    app = fleet_replay_app(replay, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                           theme_dirs=[BUILTIN_THEME_DIR])
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            driver = FleetDriver(pilot, replay_clock, 2, [])
            await driver.settle()
            for _ in range(2):
                await pilot.press("right")
                await driver.settle()
            at = replay.cursor.position
            for profile in ("origin", "edge-1"):
                (line,) = events_lines(app)
                started = live[profile][0].split(" firing ")[1][:8]
                assert line == f"⚑ alert news is watched firing {started}\N{EN DASH} " \
                               f"({round(at - began[profile])} s so far)", (profile, line)
                await pilot.press("]")
                await driver.settle()
    finally:
        replay.reader.close()

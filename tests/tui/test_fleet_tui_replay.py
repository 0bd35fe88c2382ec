"""`omeconsole --replay --fleet NAME`: the fleet console on what it recorded of every server, showing what the
live fleet view showed, asking no server. The real app through Pilot, recording from real simulators first."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fleet_ui_support import FleetDriver, as_fleet, fleet_app, server_cells, server_rows, two
from textual.app import App
from ui_support import ParkingClock, ThreadedSimulator, quiet_ui, status_of, tree_row

from omeconsole.core.fleet.fleet import Fleet
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.core.history.observations import ServerId
from omeconsole.core.history.recorder import Recorder
from omeconsole.core.history.replay import READ_ONLY_REASON, ReplaySource
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.model.paths import NodePath
from omeconsole.ui.replay.app import ReplayRefused, open_replay
from omeconsole.ui.replay.fleet import fleet_replay_app, open_fleet_replay
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["quiet_ui", "two"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PROFILES = ("origin", "edge-1")


def totals_of(app: App[None]) -> dict[str, tuple[str, ...]]:
    """Each server row's own totals as drawn: viewers and out."""
    found = {profile: (cells["viewers"], cells["out"]) for profile in PROFILES
             if (cells := server_cells(app, profile))}
    assert set(found) == set(PROFILES), server_rows(app)
    return found


async def test_a_fleet_replay_shows_every_servers_recorded_numbers_and_sends_nothing(
        two: list[ThreadedSimulator], tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    fleet = as_fleet(two, history=history)
    live_clock = ParkingClock(wall_start=WALL)
    seen: dict[float, dict[str, tuple[str, ...]]] = {}
    app = fleet_app(fleet, live_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, live_clock, 2, [sim.advance for sim in two])
        await driver.warm_up(3)
        for _ in range(20):
            await driver.step(1.0)
            seen[live_clock.wall().timestamp()] = totals_of(app)
        await pilot.press("q")

    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=30))
    replay = open_fleet_replay(fleet, replay_clock, since=3600)
    assert replay.fleet.profiles == PROFILES and replay.missing == ()
    app = fleet_replay_app(replay, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                           theme_dirs=[BUILTIN_THEME_DIR])
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, replay_clock, 2, [])
        await driver.settle()
        assert "REPLAY" in status_of(app) and "29 min 58 s ago" in status_of(app)  # opened where every node has a rate
        await pilot.press("right")  # 10 s after the first moment recorded
        await driver.settle()
        moment = replay.cursor.position
        assert moment in seen and totals_of(app) == seen[moment]
        await pilot.press("right")
        await driver.settle()
        assert totals_of(app) == seen[moment + 10]  # every server moved with the one cursor
        await pilot.press("]")  # the other server: the same moment, its own tree
        await driver.settle()
        assert "edge-1" in status_of(app) and totals_of(app) == seen[moment + 10]
        await pilot.press("o")
        await driver.settle()
        assert READ_ONLY_REASON in status_of(app)
    replay.reader.close()


def test_a_fleet_with_nothing_recorded_is_refused_in_words(two: list[ThreadedSimulator], tmp_path: Path) -> None:
    fleet = as_fleet(two, history=HistorySettings(path=tmp_path / "nothing.sqlite3"))
    with pytest.raises(ReplayRefused):
        open_fleet_replay(fleet, ParkingClock(wall_start=WALL))


async def record_fleet(sims: list[ThreadedSimulator], fleet: FleetSettings, clock: ParkingClock, db: Path,
                       seconds: int) -> dict[str, list[NodePath]]:
    """What `omeconsole record --fleet` does (every server's engine under one budget, a Recorder each, one
    store), for `seconds` of both clocks; returns each server's nodes as its recorder listed them."""
    writer = HistoryWriter.start(db, HistorySettings(), now=lambda: clock.wall().timestamp())
    connected = Fleet.connect(fleet, clock, rng=random.Random(3))
    recorders = [Recorder(member.engine, clock, ServerId.from_url(member.session.client.api_url,
                                                                   member.session.settings.profile), writer)
                 for member in connected]
    detach = [recorder.attach() for recorder in recorders]
    try:
        for _ in range(seconds):
            await connected.poll_cycle()
            for sim in sims:
                sim.advance(1.0)
            clock.advance(1.0)
        return {member.profile: [path for vhost, apps in member.engine.listing().items()
                                 for path in (NodePath(vhost), *(p for app, streams in apps.items() for p in (
                                     NodePath(vhost, app), *(NodePath(vhost, app, s) for s in streams.live))))]
                for member in connected}
    finally:
        for undo in detach:
            undo()
        await connected.aclose()
        writer.close()


async def test_a_recorded_fleet_replays_every_host_application_and_stream_with_rates_from_its_first_moment(
        two: list[ThreadedSimulator], tmp_path: Path) -> None:
    """The issue's case: `record --fleet` for 30 s, then `--replay --fleet`: the replay opens on every node the
    recorder listed, each with its rates, not on a first instant when only the virtual hosts were read."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    fleet = as_fleet(two, history=history)
    listed = await record_fleet(two, fleet, ParkingClock(wall_start=WALL), history.database_path(), 30)
    assert all(any(p.level == "stream" for p in nodes) for nodes in listed.values()), listed

    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=30))
    replay = open_fleet_replay(fleet, replay_clock, since=3600)
    assert replay.cursor.position - replay.cursor.start < 10  # the first seconds of the replay
    app = fleet_replay_app(replay, replay_clock, audit_path=tmp_path / "audit.jsonl", theme_dirs=[BUILTIN_THEME_DIR])
    async with app.run_test(size=(200, 80)) as pilot:
        driver = FleetDriver(pilot, replay_clock, 2, [])
        await driver.settle()
        for index, profile in enumerate(PROFILES):
            if index:
                await pilot.press("]")
                await driver.settle()
            assert profile in status_of(app)
            for path in listed[profile]:
                row = tree_row(app, path)
                assert "n/a" not in row and re.search(r"in [\d.]+ [kMG]?b/s", row), (profile, path, row)
    replay.reader.close()

    single = open_replay(fleet.servers[0], replay_clock, since=3600, named=True)
    sources = ReplaySource(single.reader, single.server.key, single.cursor, now=replay_clock.wall().timestamp())
    shown_listing = sources.listing()
    assert {NodePath(v, a, s) for v, apps in shown_listing.items() for a, streams in apps.items()
            for s in streams.live} == {p for p in listed["origin"] if p.level == "stream"}
    for path in listed["origin"]:
        assert sources.node(path).latest is not None and sources.node(path).latest.rate_in_bps is not None, path
    single.reader.close()

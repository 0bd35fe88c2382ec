"""`omeconsole --replay --fleet NAME`: the fleet console on what it recorded of every server, showing what the
live fleet view showed, asking no server. The real app through Pilot, recording from real simulators first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fleet_ui_support import FleetDriver, as_fleet, fleet_app, server_cells, server_rows, two
from textual.app import App
from ui_support import ParkingClock, ThreadedSimulator, quiet_ui, status_of

from omeconsole.core.history.replay import READ_ONLY_REASON
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.replay.app import ReplayRefused
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
        assert "REPLAY" in status_of(app) and "30 min" in status_of(app)
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

"""SVG snapshots at 80x24, 120x40, 160x48 and 200x60 in the dark and light themes of the replay's screens
(issue 27): `--replay`'s dashboard and stream view, and `--replay --fleet`'s fleet screen.

The store is written by hand (`recorded_history`: fixed numbers at fixed wall times, no simulator), and the
replay is opened on a console clock that never moves (ten minutes after the recording), then moved by keys
alone: what the pictures show depends on the console, not on a recording's timing or the machine's load.
Regenerate with `pytest tests/tui/test_snapshots_replay.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from fleet_ui_support import FleetDriver, fleet_of
from layout_support import screen_text
from recorded_history import NEWS, RECORDED_FROM, write_recording
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from textual.app import App
from textual.pilot import Pilot
from ui_support import SHOWN_URL, Driver, ParkingClock, make_settings, quiet_ui
from wait_support import resized

from omeconsole.core.config import Settings
from omeconsole.core.history.observations import ServerId
from omeconsole.core.history.settings import HistorySettings
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.replay.fleet import fleet_replay_app, open_fleet_replay
from omeconsole.ui.screens.replay import ReplayDashboard, ReplayFleetScreen, ReplayNodeScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["quiet_ui"]

SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
THEMES = ["ome-dark", "ome-light"]
OPENED_AT = RECORDED_FROM + timedelta(minutes=10)
FLEET = {"origin": ("http://127.0.0.1:8081", 1.0), "edge-1": ("http://127.0.0.1:8082", 0.5)}


@pytest.fixture
def svg(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGImageSnapshotExtension)


async def at_every_size(app: App[None], pilot: Pilot[None], settle: Driver | FleetDriver) -> dict[str, str]:
    """The screen in front, one picture per size (the clock does not move between them)."""
    taken: dict[str, str] = {}
    for width, height in SIZES:
        await resized(pilot, width, height)
        await settle.settle()
        await pilot.wait_for_scheduled_animations()
        taken[f"{width}x{height}"] = app.export_screenshot()
    return taken


def mismatched(svg: SnapshotAssertion, taken: dict[str, str]) -> list[str]:
    """The sizes whose picture differs from its stored SVG (each is compared; `--snapshot-update` updates)."""
    return [size for size, picture in taken.items() if not bool(svg(name=size) == picture)]


@asynccontextmanager
async def replay_moved_in(settings: Settings, tmp_path: Path) -> AsyncIterator[tuple[App[None], Pilot[None], Driver]]:
    """`--replay` of the store in `settings`, ten minutes after the recording, moved 1 min 10 s into it (past
    `promo`'s end) by keys, paused; the store's reader closed after."""
    clock = ParkingClock(wall_start=OPENED_AT)
    replay = open_replay(settings, clock, since=3600)
    try:
        app = replay_app(replay, settings, clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                         theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, None)
            await driver.settle()
            await pilot.press("shift+right", "right")
            await driver.settle()
            yield app, pilot, driver
    finally:
        replay.reader.close()


async def test_a_replay_reads_no_playlist(quiet_ui: None, tmp_path: Path) -> None:
    """The playlists are the server's present: a replay that read them drew today's breaks (or `ad?` and
    "playlist cannot be read", depending on when a read to a gone server failed) over the past."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    write_recording(history.path, {ServerId.from_url(SHOWN_URL): 1.0})
    with socket.socket() as publisher:
        publisher.bind(("127.0.0.1", 0))
        publisher.listen(16)
        publisher.setblocking(False)
        settings = make_settings("http://127.0.0.1:9/never", history=history,
                                 publisher_url=f"http://127.0.0.1:{publisher.getsockname()[1]}")
        async with replay_moved_in(settings, tmp_path) as (app, _, _):
            assert "sports" in screen_text(app)
            assert "ad?" not in screen_text(app) and "playlist" not in screen_text(app), screen_text(app)
        with pytest.raises(BlockingIOError):
            publisher.accept()  # nobody knocked


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("screen", ["dashboard", "stream"])
async def test_the_replay_screens(svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path, theme: str,
                                  screen: str) -> None:
    """`--replay` ten minutes after the recording, moved 1 min 10 s into it (past `promo`'s end), paused."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    write_recording(history.path, {ServerId.from_url(SHOWN_URL): 1.0})
    settings = make_settings("http://127.0.0.1:9/never", history=history, theme=theme)
    async with replay_moved_in(settings, tmp_path) as (app, pilot, driver):
        if screen == "stream":
            await pilot.press("enter")
            await driver.until(lambda: isinstance(app.screen, ReplayNodeScreen))
            await driver.settle()
        assert isinstance(app.screen, ReplayNodeScreen if screen == "stream" else ReplayDashboard)
        assert "REPLAY" in screen_text(app) and "12:01:" in screen_text(app), screen_text(app)
        taken = await at_every_size(app, pilot, driver)
    assert mismatched(svg, taken) == []


@pytest.mark.parametrize("theme", THEMES)
async def test_the_fleet_replay_screen(svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path, theme: str) -> None:
    """`--replay --fleet lab` of two servers recorded side by side, moved 1 min 10 s in, paused."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    write_recording(history.path, {ServerId.from_url(url, profile): scale for profile, (url, scale) in FLEET.items()})
    fleet = fleet_of([(profile, url, "http://127.0.0.1:9", "token") for profile, (url, _) in FLEET.items()],
                     history=history, theme=theme)
    clock = ParkingClock(wall_start=OPENED_AT)
    replay = open_fleet_replay(fleet, clock, since=3600)
    try:
        app = fleet_replay_app(replay, clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                               theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(120, 40)) as pilot:
            driver = FleetDriver(pilot, clock, len(FLEET), [])
            await driver.settle()
            await pilot.press("shift+right", "right")
            await driver.settle()
            assert isinstance(app.screen, ReplayFleetScreen), app.screen
            assert "REPLAY" in screen_text(app) and "12:01:" in screen_text(app), screen_text(app)
            taken = await at_every_size(app, pilot, driver)
    finally:
        replay.reader.close()
    assert mismatched(svg, taken) == []

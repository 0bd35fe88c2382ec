"""`omeconsole --replay`: the console on what it recorded, showing what the live view showed, asking no server.
The real app through Pilot, recording from the real simulator first; both clocks moved by the test."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import Label
from ui_support import (
    SEED,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    make_app,
    make_settings,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
    tree_row,
)

from omeconsole.core.history.replay import READ_ONLY_REASON
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.replay import ReplayNodeScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.rate_sparkline import RateSparkline
from omeconsole.ui.widgets.thumbnail_view import ThumbnailView

__all__ = ["quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def shows(app: ConsoleApp) -> tuple[str, str, str]:
    """What the dashboard shows of the news stream: its row (viewers), its in and out rates with their
    lowest and highest over the chart's window."""
    rates = [shown(app.screen.query_one(f"#spark-{which}", RateSparkline).query_one(".numbers", Label))
             for which in ("in", "out")]
    return (tree_row(app, NEWS).rstrip(), *(" ".join(rate.split()) for rate in rates))


@contextmanager
def listening_on(port: int) -> Iterator[socket.socket]:
    """A socket listening where the recorded server was: any connection attempt waits in its backlog."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        listener.setblocking(False)
        yield listener


def tried(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


async def test_replay_shows_what_the_live_view_showed_and_asks_no_server(
        quiet_ui: None, tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    simulator = ThreadedSimulator(seed=SEED)
    live_clock = ParkingClock(wall_start=WALL)
    rows: dict[float, str] = {}
    app = make_app(simulator.api_url, live_clock, tmp_path, select=str(NEWS), history=history)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, live_clock, simulator)
        await driver.warm_up(3)
        for _ in range(20):
            await driver.step(1.0)
            rows[live_clock.wall().timestamp()] = shows(app)
        await pilot.press("q")
    port = int(simulator.api_url.rsplit(":", 1)[1].split("/")[0])
    simulator.stop()

    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=30))
    settings = make_settings("http://127.0.0.1:9/never", history=history)
    with listening_on(port) as recorded_server:
        replay = open_replay(settings, replay_clock, since=3600)
        app = replay_app(replay, settings, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                         theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            status = status_of(app)
            assert "REPLAY" in status and "min 59 s ago" in status  # the replayed moment, honestly dated
            await pilot.press("right")  # 10 s after the first moment recorded
            await driver.settle()
            moment = replay.cursor.position
            assert moment in rows and shows(app) == rows[moment]
            await pilot.press("right")
            await driver.settle()
            assert shows(app) == rows[moment + 10]
            before = replay.cursor.position
            await pilot.press("2")  # play at 10x: one second of console time is ten of the replay
            await driver.step(1.0)
            assert replay.cursor.position == before + 10
            await pilot.press("o")
            await driver.settle()
            assert READ_ONLY_REASON in status_of(app)
            await pilot.press("enter")  # the node view a replay's app opens: replayed too, read-only, no live picture
            await driver.until(lambda: isinstance(app.screen, ReplayNodeScreen))
            await driver.settle()
            assert not app.screen.query(ThumbnailView)
            assert "REPLAY" in status_of(app)
            await pilot.press("o")
            await driver.settle()
            assert READ_ONLY_REASON in status_of(app)
        replay.reader.close()
        assert not tried(recorded_server)

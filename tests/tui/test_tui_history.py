"""The console records what it polls, and after a restart its charts start with what it recorded: the real app
through Pilot against the real simulator, both clocks moved by the test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from history_support import Reading, write
from textual.widgets._toast import Toast
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    make_app,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
    tree_row,
)

from omeconsole.core.history.observations import ServerId
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.ended import EndedScreen
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.rate_sparkline import RateSparkline, Spark

__all__ = ["quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def spark_bars(app: ConsoleApp, which: str) -> str:
    """The bars of the dashboard's `in` or `out` sparkline, without the blank columns before the first."""
    return shown(app.screen.query_one(f"#spark-{which}", RateSparkline).query_one(Spark)).strip("\n").lstrip()


def toasts(app: ConsoleApp) -> list[str]:
    return [shown(toast) for toast in app.screen.query(Toast)]


async def test_after_a_restart_the_charts_start_with_what_the_console_recorded_before(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    first_clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, first_clock, tmp_path, select=str(NEWS), history=history)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        driver = Driver(pilot, first_clock, threaded_sim)
        await driver.warm_up(3)
        await driver.step(1.0, times=10)
        before = spark_bars(app, "in")
        await pilot.press("q")
    assert " " not in before and len(before) >= 5  # one unbroken run of readings (13 s of a 1-minute window)

    threaded_sim.advance(20)  # the console is off for 20 s
    later = ParkingClock(wall_start=WALL + timedelta(seconds=first_clock.monotonic() - 1000.0 + 20))
    app = make_app(threaded_sim.api_url, later, tmp_path, select=str(NEWS), history=history)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        driver = Driver(pilot, later, threaded_sim)
        await driver.warm_up(3)
        past = app.live.past
        assert past is not None
        await past.loaded(NEWS)
        await driver.step(1.0, times=2)
        after = spark_bars(app, "in")
        earlier, gap, now = after.partition(" ")
        assert gap == " " and len(earlier) >= len(before) - 1  # the first run's readings (time-aligned), a gap
        assert now.strip() and " " not in now.strip()  # then this run's
        assert not any("history" in text for text in toasts(app))


async def test_a_store_that_cannot_be_opened_is_said_once_and_the_console_runs_on_without_history(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    broken = tmp_path / "history.sqlite3"
    broken.write_bytes(b"this is not a database, it only has the name of one" * 100)
    broken.chmod(0o600)
    clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(NEWS),
                   history=HistorySettings(path=broken))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        await driver.step(1.0, times=3)
        said = [text for text in toasts(app) if "history is not recorded" in text]
        assert len(said) == 1
        assert "●" in shown(app.screen.query_one("#tree"))  # the console runs on: readings on screen


async def test_ended_streams_stay_browsable_from_the_store_with_their_life_in_one_line(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    store = tmp_path / "history.sqlite3"
    keynote, talk = NodePath("default", "app", "keynote"), NodePath("default", "live", "talk")
    server = ServerId.from_url(threaded_sim.api_url)
    start = WALL.timestamp() - 4 * 3600
    life = [Reading(start + minute * 60, minute * 10**9, minute * 130 * 10**9 // 60, viewers=700 + minute,
                    created=start) for minute in range(113)]  # 1 h 52 min live, 812 viewers at the end
    write(store, life, node=keynote, server=server, ended_at=start + 112 * 60 + 30, now=WALL.timestamp())
    write(store, life[:10], node=talk, server=server, ended_at=start + 600, now=WALL.timestamp())
    clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(NEWS), history=HistorySettings(path=store))
    async with app.run_test(size=(140, 40)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("H")
        ended = app.screen
        assert isinstance(ended, EndedScreen)
        await ended.loaded.wait()
        await pilot.pause()
        listed = shown(app.screen.query_one("#ended-list"))
        assert "2 ended streams" in shown(app.screen.query_one("#ended-title"))
        line = next(row for row in listed.splitlines() if "keynote" in row)
        assert "ended 2 h 07 min ago — peak 812 viewers" in line and "1 h 52 min live" in line
        assert listed.index("keynote") < listed.index("talk")  # the last to end first
        status = status_of(app)  # the console's status line, as on every screen
        assert "● connected" in status and threaded_sim.api_url.removeprefix("http://") in status, status
        await pilot.press("slash", *"talk")
        await pilot.pause()
        listed = shown(app.screen.query_one("#ended-list"))
        assert "talk" in listed and "keynote" not in listed
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query("#tree")  # back on the dashboard


async def test_recorded_ended_streams_sit_in_their_applications_ended_group_in_the_tree(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    """After a restart the engine knows nothing of a stream that ended hours ago; the store does, and the tree
    lists it under its application's "ended" group (closed until opened), its life in its row, found by the
    filter; selected, the detail says its recorded life."""
    store = tmp_path / "history.sqlite3"
    keynote = NodePath("default", "app", "keynote")
    server = ServerId.from_url(threaded_sim.api_url)
    start = WALL.timestamp() - 4 * 3600
    life = [Reading(start + minute * 60, minute * 10**9, minute * 130 * 10**9 // 60, viewers=700 + minute,
                    created=start) for minute in range(113)]
    write(store, life, node=keynote, server=server, ended_at=start + 112 * 60 + 30, now=WALL.timestamp())
    clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(NEWS), history=HistorySettings(path=store))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(2)
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen) and dashboard.recorded is not None
        await dashboard.recorded.loaded.wait()  # the store read in its worker thread
        await driver.step()
        tree = app.screen.query_one(NodeTree)
        rows = [row.strip() for row in shown(tree).splitlines()]
        assert "│ └─▶ ended  1 stream" in rows, "\n".join(rows)  # after the app's live streams, closed
        assert keynote not in tree.paths()

        await pilot.press("slash", *"keynote", "enter")
        await driver.settle()
        rows = [row.strip() for row in shown(tree).splitlines() if row.strip()]
        assert len(rows) == 3 and rows[2].endswith("ended  1 stream"), rows  # default, app, its ended group
        await pilot.press("end", "right", "down")
        await driver.settle()
        assert tree.cursor_path == keynote
        row = tree_row(app, keynote)
        assert "○ ended 2 h 07 min ago — peak 812 viewers" in row, row  # cut (visibly) where the tree ends
        header = shown(app.screen.query_one("#detail-header"))
        assert "recorded: ended 2 h 07 min ago — peak 812 viewers" in header and "1 h 52 min" in header, header
        await pilot.press("left", "left")  # to its group, which closes
        await driver.settle()
        assert keynote not in tree.paths() and tree.cursor_path is None
        assert "1 ended stream of default/app" in shown(app.screen.query_one("#detail-header"))


async def test_with_history_disabled_in_the_config_nothing_is_written(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    store = tmp_path / "history.sqlite3"
    clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(NEWS),
                   history=HistorySettings(enabled=False, path=store))
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        assert "●" in shown(app.screen.query_one("#tree"))
        await pilot.press("q")
    assert not store.exists()

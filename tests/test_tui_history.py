"""The console records what it polls, and after a restart its charts start with what it recorded: the real app
through Pilot against the real simulator, both clocks moved by the test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets._toast import Toast
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui, shown, threaded_sim

from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
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
    assert " " not in before and len(before) >= 10  # one unbroken run of readings

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
        assert gap == " " and len(earlier) >= len(before)  # the first run's readings, then a gap
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

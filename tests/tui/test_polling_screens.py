"""Every screen declares what it shows, and only that is polled: the real app through Pilot against the
real simulator, both clocks frozen and moved by the test."""

from __future__ import annotations

import time
from pathlib import Path

from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, threaded_sim

from omeconsole.live.pace import OTHERS_HOLD, REDRAW_GAP
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.node_screen import NodeScreen

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
PARENTS = [NodePath("default", "app"), NodePath("default")]
OTHERS = [NodePath("default", "app", "sports"), NodePath("default", "live", "concert"), NodePath("default", "live")]


async def test_the_detail_view_polls_its_node_and_its_parents_and_the_dashboard_its_rows_again(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        now = console_clock.monotonic
        engine = app.session.engine
        assert all(engine.node(path).age(now()) == 0.0 for path in [NEWS, *PARENTS, *OTHERS])  # rows on screen
        await pilot.press("enter")
        await driver.settle()
        assert isinstance(app.screen, NodeScreen) and app.screen.path == NEWS
        await driver.step(1.0, times=5)
        for path in [NEWS, *PARENTS]:
            assert engine.node(path).age(now()) == 0.0 and engine.node(path).state is NodeState.LIVE
        for path in OTHERS:  # on the dashboard behind, not on screen: not polled
            age = engine.node(path).age(now())
            assert age is not None and age >= 5.0
        await pilot.press("escape")
        await driver.settle()
        assert isinstance(app.screen, DashboardScreen)
        await driver.step(1.0, times=2)
        assert all(engine.node(path).age(now()) == 0.0 for path in OTHERS)  # its rows again


async def test_a_redraw_the_dashboard_held_back_when_the_detail_view_opened_does_not_bring_its_rows_back(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """The real terminal's pace: a round's other rows wait (on a real-time timer) for the dashboard's next
    redraw. Enter right after such a round hides the dashboard with that redraw still to come; once it was
    due, the detail view still polls its node and its parents only."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS), redraw_gap=REDRAW_GAP)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        await driver.step(1.0)  # the stream's reading drawn at once, its neighbours' held for the next redraw
        await pilot.press("enter")
        assert isinstance(app.screen, NodeScreen)
        held_until = time.monotonic() + OTHERS_HOLD * REDRAW_GAP + 0.2
        while time.monotonic() < held_until:  # the held redraw's real-time timer has had its time to fire
            await pilot.pause(0.05)
        await driver.step(1.0, times=5)
        engine, now = app.session.engine, console_clock.monotonic
        assert all(engine.node(path).age(now()) == 0.0 for path in [NEWS, *PARENTS])
        for path in OTHERS:
            age = engine.node(path).age(now())
            assert age is not None and age >= 5.0, (path, age)

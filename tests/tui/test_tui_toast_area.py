"""Toasts have an area of their own (issue 27): while one shows, the status line and every frame of the screen
(each cell drawn with a box-drawing character: panel borders, rules, chart axes, tree guides) read exactly
as without it, on the dashboard, a stream's screen, the alerts screen and the fleet screen at 80x24,
120x40, 160x48 and 200x60; and the toast itself is on screen, its title and its first line.

Against real seeded simulators with both clocks frozen between steps: the two pictures compared are taken
without a step between them, so they can only differ by what the toast drew.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_ui_support import FleetDriver, ThreadedFleet, fleet_app, shown_fleet
from layout_support import covered, frame_cells, screen_text
from textual.pilot import Pilot
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui, threaded_sim

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.ui.screens.alerts import AlertsScreen
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.fleet_screen import FleetScreen
from omeconsole.ui.screens.node_screen import NodeScreen

__all__ = ["quiet_ui", "threaded_sim"]

SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
IDS = [f"{w}x{h}" for w, h in SIZES]
RULES = [AlertRule(name="news is watched", kind="viewers_above", scope="default/app/news", viewers=0,
                   severity="info")]
TITLE = "cue-out · default/app/news"
MESSAGE = ("accepted: the server answered 200 OK; the playlist is read until the marker shows "
           "(a second sentence, so that the toast is wider than the narrowest screen)")


async def toast_covers_nothing(pilot: Pilot[Any], settle: Any) -> None:
    """A toast shown and taken away: the frames and the status line as before it, and as before after it."""
    app = pilot.app
    await pilot.wait_for_scheduled_animations()
    fresh = screen_text(app)
    assert frame_cells(fresh), "the screen has frames to cover"
    app.notify(MESSAGE, title=TITLE, markup=False)
    await settle()
    await pilot.wait_for_scheduled_animations()
    with_toast = screen_text(app)
    assert TITLE in with_toast and MESSAGE[:30] in with_toast, with_toast
    assert covered(fresh, with_toast) == [], with_toast
    app.clear_notifications()
    await settle()
    await pilot.wait_for_scheduled_animations()
    assert screen_text(app) == fresh, "the screen after the toast went"


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_toast_covers_no_frame_and_not_the_status_line_of_the_console_screens(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select="default/app/news", fixed_address=True,
                   alerts=RULES)
    async with app.run_test(size=size, notifications=True) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        for keys, screen in (((), DashboardScreen), (("enter",), NodeScreen), (("escape", "A"), AlertsScreen)):
            await pilot.press(*keys)
            await driver.settle()
            assert type(app.screen) is screen, app.screen
            await toast_covers_nothing(pilot, driver.settle)


@pytest.fixture
def lab() -> Iterator[ThreadedFleet]:
    fleet = ThreadedFleet()
    yield fleet
    fleet.stop()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_toast_covers_no_frame_and_not_the_status_line_of_the_fleet_screen(
        quiet_ui: None, lab: ThreadedFleet, tmp_path: Path, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    settings, real = shown_fleet(lab.servers, follow_playlists=False)
    app = fleet_app(settings, clock, tmp_path, select="default/app/stream", names=real)
    async with app.run_test(size=size, notifications=True) as pilot:
        driver = FleetDriver(pilot, clock, len(lab.servers), [lab.advance])
        await driver.warm_up(3)
        assert isinstance(app.screen, FleetScreen), app.screen
        await toast_covers_nothing(pilot, driver.settle)

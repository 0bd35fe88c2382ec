"""`:` on a fleet: the prompt completes the other servers' streams too, Enter on a stream only another server
has moves the console to that server with the stream selected, Esc changes nothing; real simulators, Pilot."""

from __future__ import annotations

from pathlib import Path

from fleet_ui_support import FleetDriver, as_fleet, fleet_app, two
from textual.widgets import Input, Static
from ui_support import ParkingClock, ThreadedSimulator, console_clock, quiet_ui, shown, status_of

from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.fleet_screen import FleetScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.widgets.node_tree import NodeTree
from simulator.world.scenario import StreamSpec

__all__ = ["console_clock", "quiet_ui", "two"]

BAZAAR = NodePath("default", "live", "bazaar")


async def test_colon_completes_another_servers_stream_and_enter_goes_to_that_server(
        quiet_ui: None, two: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    edge = two[1]
    world = edge.running.world
    edge.call(lambda: world.start_stream("default", "live", StreamSpec(name="bazaar")))  # on edge-1 only
    app = fleet_app(as_fleet(two), console_clock, tmp_path, select="default/app")
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, console_clock, 2, [sim.advance for sim in two])
        await driver.warm_up(3)
        tree = app.screen.query_one(NodeTree)
        assert app.fleet.current == "origin" and BAZAAR not in tree.paths()

        await pilot.press("colon", "escape")  # Esc: nothing moves
        assert isinstance(app.screen, FleetScreen) and app.fleet.current == "origin"
        assert tree.cursor_path == NodePath("default", "app")

        await pilot.press("colon", *"edge-1:default/live/baz", "right")  # → takes the other server's path
        assert isinstance(app.screen, JumpPrompt)
        assert app.screen.query_one("#jump", Input).value == "edge-1:default/live/bazaar"
        await pilot.press("escape")

        await pilot.press("colon", *"bazaa", "right")  # a name only edge-1 has completes by itself
        assert app.screen.query_one("#jump", Input).value == "bazaar"
        await pilot.press("enter")
        await driver.settle()
        assert isinstance(app.screen, FleetScreen) and app.fleet.current == "edge-1"
        assert app.screen.query_one(NodeTree).cursor_path == BAZAAR
        assert "profile edge-1" in status_of(app)
        await driver.step()
        assert app.live.engine.selected == BAZAAR

        await pilot.press("colon", *"bazar", "enter")  # a typo: the nearest name, nothing opened
        assert isinstance(app.screen, JumpPrompt)
        problem = shown(app.screen.query_one("#jump-problem", Static))
        assert "bazar: no node of that name is listed on any server" in problem and "bazaar" in problem
        await pilot.press("escape")
        assert app.fleet.current == "edge-1" and app.screen.query_one(NodeTree).cursor_path == BAZAAR

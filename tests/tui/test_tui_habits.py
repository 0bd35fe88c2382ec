"""The keys k9s and lazygit users type without thinking, against the real simulator through Pilot:
ctrl+c quits (asking first only while a send is in flight), j/k/g/G in every list."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, OptionList, Static
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
)

from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.quit_prompt import QuitWhileSending
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
APP = NodePath("default", "app")


async def test_ctrl_c_quits_at_once_when_nothing_is_being_sent(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).warm_up(2)
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0, "ctrl+c left the console"


async def test_ctrl_c_while_a_send_is_in_flight_asks_first_names_the_send_and_n_stays(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).warm_up(2)
        assert app.session.adops.stream(NEWS).ad_break.try_begin("cue-out") is None  # left, not answered yet
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, QuitWhileSending)
        assert "cue-out to default/app/news" in shown(app.screen.query_one("#quit-sending", Static))
        await pilot.press("n")
        assert isinstance(app.screen, DashboardScreen) and app.return_code is None
        await pilot.press("ctrl+c")
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen) and app.return_code is None
        await pilot.press("ctrl+c", "y")
        await pilot.pause()
        assert app.return_code == 0, "y quit with the send unanswered"


async def test_j_k_g_G_move_through_a_nodes_children(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(APP))
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("enter")
        await driver.settle()
        assert isinstance(app.screen, NodeScreen)
        children = app.screen.query_one("#children", OptionList)
        children.focus()
        count = children.option_count
        assert count >= 3
        await pilot.press("g")
        assert children.highlighted == 0
        await pilot.press("j", "j")
        assert children.highlighted == 2
        await pilot.press("k")
        assert children.highlighted == 1
        await pilot.press("G")
        assert children.highlighted == count - 1
        await pilot.press("pageup")
        assert children.highlighted == 0


async def test_s_sorts_by_name_viewers_input_rate_and_output_rate_each_named_on_the_status_line(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        tree = app.screen.query_one(NodeTree)
        engine = app.session.engine

        def streams_by(rate: str) -> list[float]:
            paths = [p for p in tree.paths() if p.level == "stream" and p.app == "app"]
            samples = [engine.node(p).latest for p in paths]
            return [getattr(s, rate) or 0.0 for s in samples if s is not None]

        for order, rate in (("viewers", "viewers"), ("input rate", "rate_in_bps"), ("output rate", "rate_out_bps")):
            await pilot.press("s")
            await driver.step()
            assert f"sort: {order}" in status_of(app)
            values = streams_by(rate)
            assert len(values) >= 3 and values == sorted(values, reverse=True), (order, values)
        await pilot.press("s")
        await driver.step()
        names = [p.name for p in tree.paths() if p.level == "stream" and p.app == "app"]
        assert names == sorted(names, key=str.casefold) and "sort: output rate" not in status_of(app)


async def test_select_of_a_path_that_does_not_exist_says_so_with_the_nearest_names_and_opens_nothing(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/newz")
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await Driver(pilot, console_clock, threaded_sim).warm_up(3)
        said = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert any("default/app/newz is not on the server" in text and "nearest: default/app/news" in text
                   for text in said), said
        assert app.session.engine.selected is None, "no other node was opened in its place"


async def test_colon_jumps_to_a_stream_by_name_with_completion_and_says_when_nothing_matches(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default")
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        tree = app.screen.query_one(NodeTree)
        assert tree.cursor_path == NodePath("default")
        await pilot.press("colon")
        assert isinstance(app.screen, JumpPrompt)
        await pilot.press(*"default/app/ne", "right")  # → takes the completion
        assert app.screen.query_one("#jump", Input).value == "default/app/news"
        await pilot.press("enter")
        assert isinstance(app.screen, DashboardScreen) and tree.cursor_path == NEWS
        await driver.step()
        assert app.session.engine.selected == NEWS

        await pilot.press("colon", *"newz", "enter")  # a typo: answered in the prompt, nothing opened
        assert isinstance(app.screen, JumpPrompt)
        problem = shown(app.screen.query_one("#jump-problem", Static))
        assert "newz: no node of that name is listed" in problem and "news" in problem
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen) and tree.cursor_path == NEWS

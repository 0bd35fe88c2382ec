"""Keys an operator can find: `?` grouped and generated from the bindings, a footer that follows the selection,
a palette that lists the actions in force by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.geometry import Region
from textual.widgets import Static
from textual_plotext import PlotextPlot
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, threaded_sim
from wait_support import palette_searched

from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import ACTIONS, HELP_SECTIONS
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.keymap import binding_ids
from omeconsole.ui.screens.ad_break import AdBreakScreen as StreamAdBreakScreen
from omeconsole.ui.screens.ad_events import AdEventDetail, AdEventsScreen
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.help import HelpScreen
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ConnectPrompt, ExportDone, TokenPrompt
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")


def footer_keys(app: App[Any]) -> set[str]:
    """What the footer shows: the active bindings meant to be shown that their owner lets run (Footer draws
    exactly these)."""
    shown = set()
    for key, active in app.screen.active_bindings.items():
        if active.binding.show and active.enabled:
            shown.add(f"{key} {active.binding.description}")
    return shown


async def test_the_footer_shows_stream_actions_only_on_a_stream(quiet_ui: None, threaded_sim: ThreadedSimulator,
                                                                console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        assert app.screen.query_one(NodeTree).cursor_path == NodePath("default")
        keys = footer_keys(app)
        assert "e Export" in keys and not any(k.startswith(("o ", "i ", "m ", "a ")) for k in keys)
        await pilot.press("o")  # on a host: nothing opens, nothing is sent
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("j", "j", "j")  # default/app/news (backup comes first)
        await pilot.pause()
        assert app.screen.query_one(NodeTree).cursor_path == NEWS
        assert {"o Cue-out", "i Cue-in", "m ID3", "a Ad break"} <= footer_keys(app)
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog), "o on a stream opens the cue-out dialog"
        await pilot.press("escape")
        await pilot.press("k", "k", "k")
        await pilot.pause()
        assert not any(k.startswith("o ") for k in footer_keys(app))


async def test_help_is_grouped_lists_enter_and_leaves_widget_internals_out(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, keymap={"cursor_down": "n"})
    async with app.run_test(size=(110, 60)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).warm_up(1)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        plain = _plain(app)
        headings = [line for line in plain.splitlines() if line in ("navigate", "view", "ad ops", "app", "other")]
        assert headings == ["navigate", "view", "ad ops", "app"]
        assert plain.index("navigate") < plain.index("Down") < plain.index("view") < plain.index("Filter")
        assert plain.index("ad ops") < plain.index("Cue-out") < plain.index("Start an ad break")
        assert "⏎" in plain and "Open" in plain, "Enter is listed"
        down = next(line for line in plain.splitlines() if line.endswith("cursor_down"))
        assert down.split()[:2] == ["n", "Down"], "the keymap's key is shown, not the default"
        assert "Cue-out" in plain, "listed even though a host is selected"
        for internal in ("Scroll Up", "Cursor to next ancestor", "Focus Next", "Copy selected text"):
            assert internal not in plain
        assert "Command palette" in plain


def _plain(app: App[Any]) -> str:
    static = app.screen.query_one("#help-table", Static)
    return "\n".join(strip.text.strip() for strip in static.render_lines(static.region.reset_offset))


def test_every_console_binding_is_registered_and_in_a_help_section() -> None:
    owners = [ConsoleApp, LiveScreen, DashboardScreen, NodeScreen, NodeTree, HelpScreen, TokenPrompt, ConnectPrompt,
              ExportDone, StreamAdBreakScreen, CueOutDialog, Id3Dialog, ConfirmSend, AdEventsScreen, AdEventDetail]
    assert binding_ids(owners) - set(HELP_SECTIONS) == set()
    assert all(action.description for action in ACTIONS.values()), "every action says what it does"


async def test_the_palette_runs_the_actions_in_force_by_name(quiet_ui: None, threaded_sim: ThreadedSimulator,
                                                             console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).warm_up(2)
        await palette_searched(pilot, *"pause (pause)")
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.engine.paused, "the palette ran the screen's pause action"


async def test_w_and_shift_w_choose_the_charts_window(quiet_ui: None, threaded_sim: ThreadedSimulator,
                                                      console_clock: ParkingClock, tmp_path: Path) -> None:
    """The operator widens the charts to 5 min and 15 min with w, and narrows them back with W."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news")
    async with app.run_test(size=(160, 50)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("w")
        await driver.settle()
        assert "last 5 min" in _chart_text(app) and "-5m" in _chart_text(app)
        await pilot.press("w", "W", "W")
        await driver.settle()
        assert "last 1 min" in _chart_text(app) and "-60s" in _chart_text(app)


def _chart_text(app: App[Any]) -> str:
    return "\n".join(strip.text for plot in app.screen.query(PlotextPlot).results(PlotextPlot)
                     for strip in plot.render_lines(Region(0, 0, plot.size.width, plot.size.height)))

"""Keys an operator can find: `?` grouped and generated from the bindings, a footer that follows the selection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual_plotext import PlotextPlot
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, threaded_sim

from omeconsole.model.nodes import AppStreams, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.break_screen import AdBreakScreen
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.adops.events_screen import AdEventDetail, AdEventsScreen
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.keymap import HELP_SECTIONS, SelectionActions, binding_ids
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.help import HelpScreen, help_entries
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ConnectPrompt, ExportDone, TokenPrompt
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

LISTING = {"default": {"app": AppStreams(("news", "sports"))}}


def unknown(path: NodePath) -> NodeView:
    return NodeView(path=path, state=NodeState.UNKNOWN)


class TreeScreen(Screen[None]):
    BINDINGS = [Binding("slash", "filter", "Filter", id="filter", tooltip="Show only matching nodes")]

    def compose(self) -> ComposeResult:
        yield NodeTree(id="tree")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(NodeTree).show(LISTING, unknown, 0.0)
        self.query_one(NodeTree).focus()

    def action_filter(self) -> None:
        pass


class KeysHost(SelectionActions, App[None]):
    """The console's shape in small: app-level actions on the selected stream, a tree screen."""

    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("o", "cue_out", "Cue-out", id="cue_out", tooltip="Start an ad break on the selected stream"),
        Binding("e", "export", "Export", id="export"),
    ]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.cue_outs: list[NodePath | None] = []
        self.keymap = keymap or {}

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        self.push_screen(TreeScreen())

    def selected_node(self) -> NodePath | None:
        return self.screen.query_one(NodeTree).cursor_path if isinstance(self.screen, TreeScreen) else None

    @on(NodeTree.Highlighted)
    def _moved(self) -> None:
        self.selection_changed()

    def action_cue_out(self) -> None:
        self.cue_outs.append(self.selected_node())

    def action_help(self) -> None:
        self.push_screen(HelpScreen(help_entries(self.screen, self.keymap)))


def footer_keys(app: App[Any]) -> set[str]:
    """What the footer shows: the active bindings meant to be shown (Footer draws exactly these)."""
    return {active.binding.description for active in app.screen.active_bindings.values() if active.binding.show}


async def test_the_footer_shows_stream_actions_only_on_a_stream() -> None:
    app = KeysHost()
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        assert "Cue-out" not in footer_keys(app) and "Export" in footer_keys(app)
        await pilot.press("o")  # on a host: nothing is sent
        assert app.cue_outs == []
        await pilot.press("j", "j")  # default/app/news
        await pilot.pause()
        assert "Cue-out" in footer_keys(app)
        await pilot.press("o")
        assert app.cue_outs == [NodePath("default", "app", "news")]
        await pilot.press("k")
        await pilot.pause()
        assert "Cue-out" not in footer_keys(app)


async def test_help_is_grouped_lists_enter_and_leaves_widget_internals_out() -> None:
    app = KeysHost(keymap={"cursor_down": "n"})
    async with app.run_test(size=(110, 50)) as pilot:
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


def test_every_console_binding_is_in_a_help_section() -> None:
    owners = [ConsoleApp, DashboardScreen, NodeScreen, NodeTree, HelpScreen, TokenPrompt, ConnectPrompt, ExportDone,
              AdBreakScreen, CueOutDialog, Id3Dialog, ConfirmSend, AdEventsScreen, AdEventDetail]
    assert binding_ids(owners) - set(HELP_SECTIONS) == set()


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

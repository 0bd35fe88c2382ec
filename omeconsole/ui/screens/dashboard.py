"""The main screen: the node tree beside the selected node's detail, a banner and a status line.

Below 80x24 the detail panel is hidden by the stylesheet and the tree alone remains (Enter still
opens a node's full view); a hidden detail is not redrawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input

from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import Banner, StatusBar

if TYPE_CHECKING:
    from omeconsole.ui.app import ConsoleApp


class DashboardScreen(Screen[None]):
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="filter", tooltip="Show only nodes whose name contains the text"),
        Binding("escape", "clear_filter", "Clear filter", id="clear_filter", show=False),
        Binding("s", "cycle_sort", "Sort", id="sort", tooltip="Sort by name, viewers or bit rate in turn"),
        Binding("e", "export", "Export", id="export", tooltip="Write the node's history as CSV and JSON"),
    ]

    @property
    def console(self) -> ConsoleApp:
        return cast("ConsoleApp", self.app)

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        with Horizontal(id="body"):
            yield NodeTree(id="tree")
            yield NodeDetail(id="detail")
        yield Input(placeholder="filter: part of a name (Esc clears)", id="filter")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#filter", Input).display = False
        self.query_one(NodeTree).focus()
        self.redraw(tree_changed=True, changed=None)

    def on_screen_resume(self) -> None:
        self.redraw(tree_changed=True, changed=None)

    @property
    def selected(self) -> NodePath | None:
        return self.query_one(NodeTree).cursor_path

    # Data ---------------------------------------------------------------------------------------

    def redraw(self, *, tree_changed: bool, changed: frozenset[NodePath] | None) -> None:
        """Bring the screen up to date; `changed=None` means everything."""
        console = self.console
        tree = self.query_one(NodeTree)
        tree.compact = console.compact_labels
        tree.filter_text = console.filter_text
        tree.node_order = console.sort_order
        tree.show(console.listing(), console.view, console.clock.monotonic(), changed)
        console.try_pending_selection(tree)
        self._declare_visible()
        self.refresh_detail()
        self.refresh_status()

    def refresh_detail(self) -> None:
        detail = self.query_one(NodeDetail)
        if not detail.display:
            return
        path = self.selected
        if path is None:
            detail.clear(self.console.empty_message())
            return
        detail.show(self.console.view(path), self.console.clock.monotonic(), self.console.chart_window)

    def refresh_status(self) -> None:
        console = self.console
        self.query_one(Banner).show(console.connection, console.clock.monotonic())
        self.query_one(StatusBar).show(console.status_line(self.selected))

    # Tree events --------------------------------------------------------------------------------

    @on(NodeTree.Highlighted, "#tree")
    def _highlighted(self, event: NodeTree.Highlighted) -> None:
        path = event.path
        if path is None or path != event.tree.cursor_path:
            return  # an empty tree, or a highlight the cursor has already left
        pending = self.console.pending_selection
        if pending is not None and path != pending:
            return  # the cursor only rests here until the --select node is listed
        self.console.choose(path)
        self.refresh_detail()
        self.refresh_status()

    def on_key(self) -> None:
        self.console.drop_pending_selection()

    @on(NodeTree.Opened, "#tree")
    def _opened(self, event: NodeTree.Opened) -> None:
        self.console.open_node(event.path)

    @on(NodeTree.VisibleRowsChanged, "#tree")
    def _scrolled(self) -> None:
        self._declare_visible()

    def _declare_visible(self) -> None:
        """The rows on screen, and the applications whose stream rows are among them (listed every 10 s)."""
        visible = self.query_one(NodeTree).visible_paths()
        self.console.engine_visible(visible, {p.parent for p in visible if p.parent is not None and p.stream})

    # Filter -------------------------------------------------------------------------------------

    @on(Input.Changed, "#filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.console.filter_text = event.value.strip()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(NodeTree).focus()

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if not box.display and not self.console.filter_text:
            return
        box.value = ""
        box.display = False
        self.console.filter_text = ""
        self.query_one(NodeTree).focus()

    def action_cycle_sort(self) -> None:
        self.console.cycle_sort()

    def action_export(self) -> None:
        self.console.export_node(self.selected)

"""The full view of one node (Enter on the tree): its detail and, for a host or application, its children.

Enter on a child drills further in; Esc goes back one level. The children list is refreshed in place
(labels replaced) and rebuilt only when the set of children changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.status_bar import Banner, StatusBar

if TYPE_CHECKING:
    from omeconsole.ui.app import ConsoleApp


def breadcrumb(path: NodePath) -> Text:
    parts = [p for p in (path.vhost, path.app, path.stream) if p is not None]
    text = Text("servers", style="dim")
    for i, part in enumerate(parts):
        text.append(" / ", style="dim")
        text.append(part, style="bold" if i == len(parts) - 1 else "")
    return text


class NodeScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", id="back", tooltip="Return to the previous level"),
        Binding("e", "export", "Export", id="export", tooltip="Write the node's history as CSV and JSON"),
    ]

    def __init__(self, path: NodePath) -> None:
        super().__init__()
        self.path = path
        self._children: tuple[NodePath, ...] | None = None

    @property
    def console(self) -> ConsoleApp:
        return cast("ConsoleApp", self.app)

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        yield Static(breadcrumb(self.path), id="breadcrumb")
        yield NodeDetail(id="detail")
        children = OptionList(id="children")
        children.border_title = "applications" if self.path.level == "vhost" else "streams"
        children.display = self.path.level != "stream"
        yield children
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.console.choose(self.path)
        if self.path.level != "stream":
            self.query_one("#children", OptionList).focus()
        self.redraw(tree_changed=True, changed=None)

    def on_screen_resume(self) -> None:
        self.console.choose(self.path)
        self._declare_visible(self._children or ())
        self.redraw(tree_changed=True, changed=None)

    def _declare_visible(self, children: tuple[NodePath, ...]) -> None:
        """This view shows its node, its parents (the breadcrumb) and its children: only those are polled."""
        parents = []
        parent = self.path.parent
        while parent is not None:
            parents.append(parent)
            parent = parent.parent
        self.console.engine_visible((self.path, *parents, *children),
                                    [self.path] if self.path.level == "app" else [])

    @property
    def selected(self) -> NodePath:
        return self.path

    def redraw(self, *, tree_changed: bool, changed: frozenset[NodePath] | None) -> None:
        console = self.console
        now = console.clock.monotonic()
        detail = self.query_one(NodeDetail)
        detail.show(console.view(self.path), now, console.chart_window)
        self._refresh_children(changed)
        self.query_one(Banner).show(console.connection, now)
        self.query_one(StatusBar).show(console.status_line(self.path))

    def _refresh_children(self, changed: frozenset[NodePath] | None) -> None:
        listing = self.query_one("#children", OptionList)
        if not listing.display:
            return
        children = tuple(self.console.children_of(self.path))
        if children != self._children:
            highlighted = listing.highlighted
            listing.clear_options()
            listing.add_options(Option(self.console.node_label(c), id=str(c)) for c in children)
            if children:
                listing.highlighted = min(highlighted or 0, len(children) - 1)
            self._children = children
            self._declare_visible(children)
            return
        for child in children if changed is None else (c for c in children if c in changed):
            listing.replace_option_prompt(str(child), self.console.node_label(child))

    @on(OptionList.OptionSelected, "#children")
    def _child_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.console.open_node(NodePath.parse(event.option.id))

    def action_back(self) -> None:
        self.dismiss()

    def action_export(self) -> None:
        self.console.export_node(self.path)

"""The full view of one node (Enter on the tree): its detail and, for a host or application, its children.

Enter on a child drills further in; Esc goes back one level. The children are arranged like the
tree's (the session's sort order) and their labels carry the same marks; the list is refreshed in
place and rebuilt only when the set of children changes. The breadcrumb starts at the server.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from omeconsole.core.tree_model import TreeArranger
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import bindings
from omeconsole.ui.badges import name_text, node_label
from omeconsole.ui.engine_feed import Changes
from omeconsole.ui.node_notes import node_marks, node_notes
from omeconsole.ui.open_requests import OpenNode
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.widgets.keyed_lists import KeyedOptionList
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.status_bar import Banner, StatusBar

RESORT_SECONDS = 5.0
"""Sorting by live values reorders the children at most this often, so rows do not jump every second."""


def breadcrumb(server: str, path: NodePath, colours: Mapping[str, str]) -> Text:
    parts = [p for p in (path.vhost, path.app, path.stream) if p is not None]
    muted = colours.get("muted", "")
    text = name_text(server, colours, style=muted)
    for i, part in enumerate(parts):
        text.append(" / ", style=muted)
        text.append_text(name_text(part, colours, style="bold" if i == len(parts) - 1 else ""))
    return text


class NodeScreen(LiveScreen):
    BINDINGS = bindings("back")

    def __init__(self, live: LiveSession, path: NodePath) -> None:
        super().__init__(live)
        self.path = path
        self._children: tuple[NodePath, ...] | None = None
        self._labels: dict[NodePath, Text] = {}
        self._arranger = TreeArranger(lambda p: live.engine.node(p).latest, resort_every=RESORT_SECONDS)

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        yield Static(id="breadcrumb")
        yield NodeDetail(id="detail", chart_gap=self.live.pace.chart_gap)
        children = KeyedOptionList(id="children")
        children.border_title = "applications" if self.path.level == "vhost" else "streams"
        children.display = self.path.level != "stream"
        yield children
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._draw_breadcrumb()
        if self.path.level != "stream":
            self.query_one("#children", OptionList).focus()

    def _draw_breadcrumb(self) -> None:
        self.query_one("#breadcrumb", Static).update(
            breadcrumb(self.live.context.host, self.path, self.app.theme_variables))

    def recolour(self) -> None:
        self._draw_breadcrumb()
        super().recolour()

    def selected_path(self) -> NodePath:
        return self.path

    def declare_on_screen(self) -> None:
        """This view shows its node, its parents (the breadcrumb) and its children: only those are polled."""
        parents = []
        parent = self.path.parent
        while parent is not None:
            parents.append(parent)
            parent = parent.parent
        engine = self.live.engine
        engine.select(self.path)
        engine.set_on_screen((self.path, *parents, *(self._children or ())),
                             [self.path] if self.path.level == "app" else [])

    def redraw(self, changes: Changes) -> None:
        live = self.live
        now = live.clock.monotonic()
        self.query_one(NodeDetail).show(live.chart_view(self.path), now, live.options.chart_window,
                                        node_notes(live, self.path, self.app.theme_variables))
        self._refresh_children(changes.nodes)

    def _refresh_children(self, changed: frozenset[NodePath] | None) -> None:
        listing = self.query_one("#children", OptionList)
        if not listing.display:
            return
        self._arranger.arrange_by("", self.live.options.sort_order)
        if changed:
            self._arranger.readings_changed(changed)
        arrangement = self._arranger.arrange(self.live.engine.listing(), self.live.clock.monotonic())
        children = tuple(arrangement.children(self.path))
        if children != self._children:
            highlighted = listing.highlighted
            listing.clear_options()
            self._labels = {child: self._label(child) for child in children}
            listing.add_options(Option(self._labels[child]) for child in children)
            if children:
                listing.highlighted = min(highlighted or 0, len(children) - 1)
            self._children = children
            self.declare_on_screen()
            return
        for index, child in enumerate(children):
            label = self._label(child)
            if label != self._labels.get(child):
                self._labels[child] = label
                listing.replace_option_prompt_at_index(index, label)

    def _label(self, child: NodePath) -> Text:
        return node_label(self.live.engine.node(child), self.app.theme_variables,
                          compact=self.app.size.width < 100, marks=node_marks(self.live, child))

    @on(OptionList.OptionSelected, "#children")
    def _child_chosen(self, event: OptionList.OptionSelected) -> None:
        children = self._children or ()
        index = event.option_index
        if 0 <= index < len(children):
            self.post_message(OpenNode(self.live, children[index]))

    def action_back(self) -> None:
        self.dismiss()

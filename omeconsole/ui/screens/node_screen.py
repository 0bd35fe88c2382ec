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
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from omeconsole.api.publisher import PublisherReader
from omeconsole.core.polling.engine import EngineUpdate
from omeconsole.core.thumbnails.follow import ThumbnailFollower
from omeconsole.core.tree_model import TreeArranger
from omeconsole.live.playback import playback_of
from omeconsole.live.row_marks import node_marks
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import bindings
from omeconsole.ui.badges import name_text, node_label
from omeconsole.ui.event_source import shown_events
from omeconsole.ui.messages import ClockTick
from omeconsole.ui.node_notes import node_notes
from omeconsole.ui.open_requests import OpenNode
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.keyed_lists import KeyedOptionList
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.status_bar import Banner, StatusBar
from omeconsole.ui.widgets.thumbnail_view import ThumbnailView

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
    LIVE_PICTURE = True
    """A stream's view shows its thumbnail as the server publishes it now (`thumbnails` in the settings)."""

    def __init__(self, live: LiveSession, path: NodePath) -> None:
        super().__init__(live)
        self.path = path
        self._children: tuple[NodePath, ...] | None = None
        self._labels: dict[NodePath, Text] = {}
        self._arranger = TreeArranger(lambda p: live.engine.node(p).latest, resort_every=RESORT_SECONDS)
        self._thumbnail = self._thumbnail_follower()
        self._thumbnail_read: Worker[None] | None = None

    def _thumbnail_follower(self) -> ThumbnailFollower | None:
        """A stream's picture, read through its publisher reader with the session's ledger of own reads (the
        reads are not counted as connections there: see `PublisherReader.thumbnail`). `thumbnails = false`: none."""
        session, path = self.live.session, self.path
        if (not self.LIVE_PICTURE or path.level != "stream" or not session.settings.thumbnails or path.app is None
                or path.stream is None):
            return None
        reader = PublisherReader(session.settings.publisher_base(), path.app, path.stream,
                                 verify=not session.settings.insecure, own=session.client.own_reads)
        return ThumbnailFollower(reader, self.live.clock, frozen_after_s=session.settings.thumbnail_frozen_after)

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        yield Static(id="breadcrumb")
        yield NodeDetail(id="detail", chart_gap=self.live.pace.chart_gap)
        if self._thumbnail is not None:
            yield ThumbnailView(id="thumbnail")
        children = KeyedOptionList(id="children")
        children.border_title = "applications" if self.path.level == "vhost" else "streams"
        children.display = self.path.level != "stream"
        yield children
        yield StatusBar(id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        if self.path.level != "stream":
            self.query_one("#children", OptionList).focus()
        self._thumbnail_due()

    @on(ClockTick)
    def _thumbnail_due(self) -> None:
        """Read the picture again when it is due (at most once a second of the console's clock)."""
        follower = self._thumbnail
        if follower is not None and follower.due() and not self.reading_thumbnail:
            self._thumbnail_read = self.run_worker(self._show_thumbnail(follower), group="thumbnail",
                                                   exit_on_error=False)

    @property
    def reading_thumbnail(self) -> bool:
        return self._thumbnail_read is not None and not self._thumbnail_read.is_finished

    async def _show_thumbnail(self, follower: ThumbnailFollower) -> None:
        state = await follower.refresh()
        if self.is_mounted:
            self.query_one(ThumbnailView).show(state.picture, state.verdict, state.note)

    def on_unmount(self) -> None:
        super().on_unmount()
        if self._thumbnail is not None:  # the reader's connection and the decoding thread, closed by the app
            self.app.run_worker(self._thumbnail.aclose(), exit_on_error=False)

    def _draw_breadcrumb(self) -> None:
        self.query_one("#breadcrumb", Static).update(
            breadcrumb(self.live.context.host, self.path, self.palette.built_with()))

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

    def redraw(self, changes: EngineUpdate) -> None:
        if changes.everything:  # shown, or in another theme's colours
            self._draw_breadcrumb()
        live = self.live
        now = live.clock.monotonic()
        self.query_one(NodeDetail).show(live.chart_view(self.path), now, live.options.chart_window,
                                        node_notes(live, self.path, self.palette.built_with()),
                                        shown_events(live, self.path, now), playback_of(live, self.path))
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
        return node_label(self.live.engine.node(child), self.palette.built_with(),
                          compact=self.app.size.width < 100, marks=node_marks(self.live, child))

    @on(OptionList.OptionSelected, "#children")
    def _child_chosen(self, event: OptionList.OptionSelected) -> None:
        children = self._children or ()
        index = event.option_index
        if 0 <= index < len(children):
            self.post_message(OpenNode(self.live, children[index]))

    def action_back(self) -> None:
        self.dismiss()

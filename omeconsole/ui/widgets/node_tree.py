"""The tree of virtual hosts → applications → streams: a virtual list that costs what is on screen.

A fleet's tree has a level on top: a row per server with its health (`show_servers`), the current
server's nodes open under its row (see `core/tree_servers`). An application's ended streams sit under
its "ended" group row, closed unless opened (see `core/tree_rows`).

The widget draws rows through Textual's Line API from a `TreeRows` layout, so a server with 10,000
streams costs the 40 rows in view: labels are built only for rows drawn, and cached by what they show
(state, reading, width class, theme). Data comes in through `show(listing, view_of, now, changed)`; the
arrangement (filter, sort) is kept incrementally by a `TreeArranger`. What the user does goes out as
small messages (`Highlighted`, `Opened`, `Toggled`, `ServerOpened`, `VisibleRowsChanged`) for the screen.

Keys: up/down or k/j move, left/h collapses or goes to the parent, right/l expands or goes to the first
child, space toggles, home/end (g/G) and page up/down jump, Enter opens. A click moves the cursor; a
click on the cursor's row (or a double click) opens; a click on ▶/▼ toggles.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from omeconsole.core.text import visible
from omeconsole.core.tree_model import AppBranch, Arrangement, SortOrder, TreeArranger
from omeconsole.core.tree_rows import Row, TreeRows
from omeconsole.core.tree_servers import At, Line, ServerRow, ShownRows
from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.ui.actions import bindings
from omeconsole.ui.widgets.tree_drawing import (
    EXPANDED,
    GUIDE_WIDTH,
    RowStyles,
    draw_row,
    unknown_badge_width,
    widest_name,
)
from omeconsole.ui.widgets.tree_labels import EndedNote, MarksOf, TreeLabels, ViewOf
from omeconsole.ui.widgets.tree_messages import (
    TreeHighlighted,
    TreeOpened,
    TreeServerOpened,
    TreeToggled,
    VisibleRowsChanged,
)


@dataclass(frozen=True)
class ServerLine:
    """A server's row as the screen wants it drawn: its profile and its label (health and totals)."""

    profile: str
    label: Text
    needed: int
    """The columns of the label the tree makes room for (the rest may be cut)."""


class NodeTree(ScrollView, can_focus=True, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = bindings(
        "cursor_down", "cursor_up", "collapse", "expand", "toggle_branch", "page_down", "page_up", "cursor_first",
        "cursor_last", "open")

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "node-tree--guides", "node-tree--cursor", "node-tree--cursor-blurred", "node-tree--hover",
    }

    DEFAULT_CSS = """
    NodeTree {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        & > .node-tree--guides { color: $foreground 45%; }
        & > .node-tree--cursor { color: $block-cursor-foreground; background: $block-cursor-background; }
        & > .node-tree--cursor-blurred { color: $foreground; background: $block-cursor-blurred-background; }
        & > .node-tree--hover { background: $block-hover-background; }
    }
    """

    # The messages live in tree_messages.py; screens name them here (`@on(NodeTree.Opened, "#tree")`).
    Highlighted: TypeAlias = TreeHighlighted
    Opened: TypeAlias = TreeOpened
    Toggled: TypeAlias = TreeToggled
    ServerOpened: TypeAlias = TreeServerOpened
    VisibleRowsChanged: TypeAlias = VisibleRowsChanged

    compact: reactive[bool] = reactive(False)
    """Labels carry only the name, state and viewers (narrow terminals)."""
    filter_text: reactive[str] = reactive("")
    node_order: reactive[SortOrder] = reactive(SortOrder.NAME)
    cursor: var[int] = var(0, init=False)
    hover_row: var[int] = var(-1, init=False)

    def __init__(self, *, resort_every: float = 5.0, **options: Any) -> None:
        super().__init__(**options)
        self._labels = TreeLabels()
        self._arranger = TreeArranger(self._latest, resort_every=resort_every)
        self._listing: Listing = {}
        self._arrangement = Arrangement()
        self._rows = ShownRows(TreeRows(self._arrangement))
        self._collapsed: set[NodePath] = set()
        self._ended_open: set[NodePath] = set()
        self._servers: tuple[ServerLine, ...] = ()
        self._current_server: str | None = None
        self._server_open = True
        self._cursor_at: At | None = None
        self._now = 0.0
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self._name_widths: dict[AppBranch, int] = {}
        self._told_visible: tuple[NodePath, ...] | None = None
        self._styles = RowStyles(Style(), Style(), Style(), Style(), Style())

    # Data in ---------------------------------------------------------------------------------------

    def show(self, listing: Listing, view_of: ViewOf, now: float,
             changed: Collection[NodePath] | None = None, *, marks_of: MarksOf | None = None,
             ended_note: EndedNote | None = None) -> None:
        """New data. `changed` names the nodes with new readings; None means any of them may have; an
        empty set repaints only the rows whose label would now read differently (a node turned stale, a
        countdown moved). `ended_note`: what an ended stream's row says after its name (its recorded life)."""
        self._labels.feed(view_of, marks_of, ended_note)
        self._listing = listing
        self._now = now
        if changed is not None:
            self._arranger.readings_changed(changed)
        if not self._rearrange():
            self._redraw_rows(changed)

    def show_servers(self, servers: Sequence[ServerLine], current: str) -> None:
        """A fleet's server level: a row per server (in this order), `current`'s nodes open under its row."""
        servers = tuple(servers)
        shape = tuple(server.profile for server in servers)
        if shape != tuple(server.profile for server in self._servers) or current != self._current_server:
            self._servers, self._current_server = servers, current
            self._labels.servers = {server.profile: server.label for server in servers}
            self._server_open = True
            self._relayout()
            return
        for old, new in zip(self._servers, servers, strict=True):
            index = self._rows.server_index(new.profile)
            if old.label != new.label and index is not None:
                self.refresh_line(index)
        self._servers = servers
        self._labels.servers = {server.profile: server.label for server in servers}

    def _latest(self, path: NodePath) -> Sample | None:
        return self._labels.view_of(path).latest

    def _redraw_rows(self, changed: Collection[NodePath] | None) -> None:
        """Repaint the rows on screen whose node changed (None: all of them). An empty set is a clock
        tick: no reading is new, but a node may have turned stale, so the rows whose label would now
        show something else are repainted, and only those."""
        if changed is None:
            self.refresh()
            return
        top = int(self.scroll_y)
        for index in range(top, min(len(self._rows), top + max(1, self.size.height))):
            line = self._rows.line(index)
            if isinstance(line, ServerRow) or line.group:
                continue
            if line.path in changed if changed else self._labels.is_old(line, self.compact, self.app.theme):
                self.refresh_line(index)

    def _rearrange(self) -> bool:
        """Lay the rows out again if the arrangement changed; True when it did (and all was redrawn)."""
        self._arranger.arrange_by(self.filter_text, self.node_order)
        arrangement = self._arranger.arrange(self._listing, self._now)
        if arrangement is self._arrangement:
            return False
        self._arrangement = arrangement
        self._relayout()
        return True

    def _layout(self) -> ShownRows:
        rows = TreeRows(self._arrangement, self._collapsed, self._ended_open)
        return ShownRows(rows, [server.profile for server in self._servers], self._current_server,
                         open_=self._server_open)

    def _relayout(self) -> None:
        """New rows: the cursor stays on its node (or its nearest shown ancestor) at the same height on
        screen, so rows inserted above it do not push it away; a stream that ended under the cursor is
        followed into its application's "ended" group."""
        on_screen = self.cursor - int(self.scroll_y)
        self._rows = self._layout()
        at = self._cursor_at
        if at is not None and at.node is not None and self._rows.index_of(at.node) is None:
            self._open_ended_group_of(at.node)
        self._name_widths = {app: self._name_widths.get(app) or widest_name(app)
                             for vhost in self._arrangement.vhosts for app in vhost.apps}
        self.virtual_size = Size(self._needed_width(), len(self._rows))
        index = self._rows.index_near(at) if at is not None else 0
        self.set_reactive(NodeTree.cursor, index)
        if at is not None:
            self.scroll_to(y=max(0, index - on_screen), animate=False, immediate=True)
        self._cursor_moved()
        self.refresh()
        self._visible_rows_changed()

    def _open_ended_group_of(self, path: NodePath) -> bool:
        """Opens the closed "ended" group holding stream `path`; True when it did."""
        app = self._arrangement.ended_app(path)
        if app is None or app in self._ended_open:
            return False
        self._ended_open.add(app)
        self._rows = self._layout()
        return True

    # Width: the tree takes the width it needs ------------------------------------------------------

    def _needed_width(self) -> int:
        """The widest name (measured once per application branch) plus the widest badges drawn so far; a
        server's row shows at least its name (the rest of its label is cut to the width)."""
        depth = GUIDE_WIDTH if self._servers else 0
        names = max(self._name_widths.values(), default=0) + depth
        names = max([names, *(depth + len(EXPANDED) + cell_len(visible(v.path.name)) for v in self._arrangement.vhosts),
                     *(len(EXPANDED) + server.needed - 2 - self._labels.badge_width for server in self._servers)])
        least = unknown_badge_width(self.app.theme_variables if self.is_attached else {}, compact=self.compact)
        return names + 2 + max(self._labels.badge_width, least) + 1

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.virtual_size.width + self.styles.scrollbar_size_vertical

    # View options ----------------------------------------------------------------------------------

    def watch_filter_text(self) -> None:
        self._rearrange()

    def watch_node_order(self) -> None:
        self._rearrange()

    def watch_compact(self) -> None:
        self._labels.clear(widths=True)
        self._strips.clear()
        self.virtual_size = Size(self._needed_width(), len(self._rows))
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._labels.clear()
        self._strips.clear()

    # What screens read -----------------------------------------------------------------------------

    @property
    def cursor_path(self) -> NodePath | None:
        """The node under the cursor (None on a server's row or an "ended" group)."""
        return self._cursor_at.node if self._cursor_at is not None else None

    @property
    def cursor_line(self) -> Line | None:
        """The row under the cursor: a node's, an "ended" group's or a server's."""
        return self._rows.line(self.cursor) if len(self._rows) else None

    @property
    def arrangement(self) -> Arrangement:
        return self._arrangement

    def paths(self) -> list[NodePath]:
        """Every node shown, in display order (walks every row: for tests and small trees)."""
        lines = (self._rows.line(i) for i in range(len(self._rows)))
        return [line.path for line in lines if isinstance(line, Row) and not line.group]

    def index_of(self, path: NodePath) -> int | None:
        """The row showing node `path` (None when it is not shown)."""
        return self._rows.index_of(path)

    def visible_paths(self) -> list[NodePath]:
        """The live nodes on screen now (the engine polls those before the rest; ended streams are not polled)."""
        top = int(self.scroll_y)
        lines = (self._rows.line(i) for i in range(top, min(len(self._rows), top + max(1, self.size.height))))
        return [line.path for line in lines if isinstance(line, Row) and not line.group and not line.ended]

    def is_expanded(self, path: NodePath) -> bool:
        return path.level != "stream" and path not in self._collapsed

    # What screens do -------------------------------------------------------------------------------

    def select_path(self, path: NodePath, *, nearest: bool = False) -> bool:
        """Move the cursor to `path`, opening its parents (and its "ended" group); with `nearest`, fall back
        to its closest ancestor."""
        opened = [p for p in (path.parent, path.parent.parent if path.parent else None) if p in self._collapsed]
        self._collapsed.difference_update(opened)
        reopened = bool(opened) or not self._server_open
        self._server_open = True
        if reopened:
            self._rows = self._layout()
        index = self._rows.index_of(path)
        if index is None and self._open_ended_group_of(path):
            reopened = True
            index = self._rows.index_of(path)
        if reopened:
            self.virtual_size = Size(self.virtual_size.width, len(self._rows))
        if index is None and nearest:
            index = self._rows.index_near(At(path))
        if index is None:
            return False
        self._move_cursor(index)
        if reopened:
            self.refresh()
            self._visible_rows_changed()
        return True

    def select_server(self, profile: str) -> None:
        """Move the cursor to server `profile`'s row."""
        index = self._rows.server_index(profile)
        if index is not None:
            self._move_cursor(index)

    def _move_cursor(self, index: int) -> None:
        self._cursor_at = None  # the cursor moves even when its row number stays the same
        if self.cursor == index:  # no watcher call for an unchanged value: say where the cursor is now
            self._cursor_moved()
            self._scroll_to_cursor()
        self.cursor = index

    def set_expanded(self, path: NodePath, expanded: bool) -> None:
        """Open or close a host or application; the cursor stays on its node (or moves to `path`)."""
        if path.level == "stream" or expanded == (path not in self._collapsed):
            return
        if expanded:
            self._collapsed.discard(path)
        else:
            self._collapsed.add(path)
        cursor = self.cursor_path
        if cursor is not None and not expanded and cursor != path and _under(cursor, path):
            self._cursor_at = At(path)
        self._relayout()
        self.post_message(self.Toggled(self, path, expanded))

    def _toggle(self, line: Line, expanded: bool) -> None:
        """Open or close a row: a node's branch, an "ended" group, or a server (another server: move to it)."""
        if isinstance(line, ServerRow):
            if line.profile != self._current_server:
                if expanded:
                    self.post_message(self.ServerOpened(self, line.profile))
            elif expanded != self._server_open:
                self._server_open = expanded
                self._cursor_at = At(server=line.profile)
                self._relayout()
        elif line.group:
            if expanded != (line.path in self._ended_open):
                (self._ended_open.add if expanded else self._ended_open.discard)(line.path)
                if not expanded and self.cursor_path is not None and self.cursor_path.parent == line.path:
                    self._cursor_at = At(line.path, group=True)
                self._relayout()
        else:
            self.set_expanded(line.path, expanded)

    # Cursor ----------------------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._rows) - 1))

    def watch_cursor(self, previous: int, value: int) -> None:
        self._cursor_moved()
        self._scroll_to_cursor()
        self.refresh_line(previous)
        self.refresh_line(value)

    def _cursor_moved(self) -> None:
        line = self.cursor_line
        at = At.of(line) if line is not None else None
        if at != self._cursor_at:
            self._cursor_at = at
            self.post_message(self.Highlighted(self, self.cursor_path))

    def _scroll_to_cursor(self) -> None:
        height = max(1, self.size.height)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_page_down(self) -> None:
        self.cursor += max(1, self.size.height - 1)

    def action_page_up(self) -> None:
        self.cursor -= max(1, self.size.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self._rows) - 1

    def action_collapse(self) -> None:
        line = self.cursor_line
        if line is None:
            return
        if line.expandable and line.expanded:
            self._toggle(line, False)
            return
        parent = self._rows.parent_index(line)
        if parent is not None:
            self.cursor = parent

    def action_expand(self) -> None:
        line = self.cursor_line
        if line is None or not line.expandable:
            return
        if not line.expanded:
            self._toggle(line, True)
        elif self.cursor + 1 < len(self._rows) and self._rows.line(self.cursor + 1).depth > line.depth:
            self.cursor += 1

    def action_toggle_branch(self) -> None:
        line = self.cursor_line
        if line is not None and line.expandable:
            self._toggle(line, not line.expanded)

    def action_open(self) -> None:
        line = self.cursor_line
        if isinstance(line, ServerRow) and line.profile != self._current_server:
            self._toggle(line, True)
        elif isinstance(line, ServerRow) or (line is not None and line.group):
            self._toggle(line, not line.expanded)
        elif line is not None:
            self.post_message(self.Opened(self, line.path))

    # Mouse -----------------------------------------------------------------------------------------

    async def _on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        if "row" not in meta:
            return
        index = int(meta["row"])
        if meta.get("toggle"):
            line = self._rows.line(index)
            self._toggle(line, not line.expanded)
        elif index == self.cursor or event.chain > 1:
            self.cursor = index
            self.action_open()
        else:
            self.cursor = index

    def _on_mouse_move(self, event: events.MouseMove) -> None:
        meta = event.style.meta
        self.hover_row = int(meta["row"]) if "row" in meta else -1

    def _on_leave(self, _: events.Leave) -> None:
        self.hover_row = -1

    def watch_hover_row(self, previous: int, value: int) -> None:
        self.refresh_line(previous)
        self.refresh_line(value)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self._visible_rows_changed()

    def _on_resize(self, _: events.Resize) -> None:
        self._visible_rows_changed()

    def _visible_rows_changed(self) -> None:
        self.call_after_refresh(self._tell_visible)

    def _tell_visible(self) -> None:
        paths = tuple(self.visible_paths())
        if paths != self._told_visible:
            self._told_visible = paths
            self.post_message(self.VisibleRowsChanged(self, paths))

    # Drawing ---------------------------------------------------------------------------------------

    def _label(self, line: Line) -> tuple[object, Text]:
        widest = self._labels.badge_width
        shown = self._labels.label(line, self.compact, self.app.theme, self.app.theme_variables)
        if self._labels.badge_width > widest:
            self.virtual_size = Size(self._needed_width(), len(self._rows))
        return shown

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles are looked up once per pass over the rows, not once per row.
        self._styles = RowStyles(self.rich_style, self.get_component_rich_style("node-tree--guides", partial=True),
                                  self.get_component_rich_style("node-tree--hover"),
                                  self.get_component_rich_style("node-tree--cursor"),
                                  self.get_component_rich_style("node-tree--cursor-blurred"))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_y)
        width = self.size.width
        base = self._styles.base
        if index >= len(self._rows):
            return Strip.blank(width, base)
        line = self._rows.line(index)
        shows, label = self._label(line)
        cursor = index == self.cursor
        key = (index, line, shows, cursor, cursor and self.has_focus, index == self.hover_row, width, base)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = draw_row(line, label, width=width, styles=self._styles, row_index=index,
                                                hover=index == self.hover_row, on_cursor=cursor,
                                                focused=self.has_focus, console=self.app.console)
        return strip

    def on_focus(self) -> None:
        self.refresh_line(self.cursor)

    def on_blur(self) -> None:
        self.refresh_line(self.cursor)

    def refresh_line(self, index: int) -> None:
        if index >= 0:
            super().refresh_line(index)


def _under(path: NodePath, ancestor: NodePath) -> bool:
    parent = path.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent.parent
    return False

"""The tree of virtual hosts → applications → streams: a virtual list that costs what is on screen.

The widget draws rows through Textual's Line API from a `TreeRows` layout, so a server with 10,000
streams costs the 40 rows in view: labels are built only for rows drawn, and cached by what they show
(state, reading, width class, theme). Data comes in through `show(listing, view_of, now, changed)`; the
arrangement (filter, sort) is kept incrementally by a `TreeArranger`. What the user does goes out as
small messages (`Highlighted`, `Opened`, `Toggled`, `VisibleRowsChanged`) for the screen to act on.

Keys: up/down or k/j move, left/h collapses or goes to the parent, right/l expands or goes to the first
child, space toggles, home/end (g/G) and page up/down jump, Enter opens. A click moves the cursor; a
click on the cursor's row (or a double click) opens; a click on ▶/▼ toggles.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
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
from omeconsole.core.tree_model import AppBranch, Arrangement, Row, SortOrder, TreeArranger, TreeRows
from omeconsole.model.nodes import Listing, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.ui.actions import bindings
from omeconsole.ui.badges import Marks, node_label
from omeconsole.ui.widgets.tree_drawing import (
    EXPANDED,
    RowStyles,
    draw_row,
    unknown_badge_width,
    unknown_view,
    widest_name,
)
from omeconsole.ui.widgets.tree_messages import TreeHighlighted, TreeOpened, TreeToggled, VisibleRowsChanged

ViewOf = Callable[[NodePath], NodeView]
"""What the tree reads about a node it draws (the engine's read-only view)."""
MarksOf = Callable[[NodePath], Marks]
"""Flags a node shows after its name (an ad break, alerts): the screen decides what they are."""


def _no_marks(_path: NodePath) -> Marks:
    return ()


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
    VisibleRowsChanged: TypeAlias = VisibleRowsChanged

    compact: reactive[bool] = reactive(False)
    """Labels carry only the name, state and viewers (narrow terminals)."""
    filter_text: reactive[str] = reactive("")
    node_order: reactive[SortOrder] = reactive(SortOrder.NAME)
    cursor: var[int] = var(0, init=False)
    hover_row: var[int] = var(-1, init=False)

    def __init__(self, *, resort_every: float = 5.0, **options: Any) -> None:
        super().__init__(**options)
        self._view_of: ViewOf = unknown_view
        self._marks_of: MarksOf = _no_marks
        self._arranger = TreeArranger(self._latest, resort_every=resort_every)
        self._listing: Listing = {}
        self._arrangement = Arrangement()
        self._rows = TreeRows(self._arrangement)
        self._collapsed: set[NodePath] = set()
        self._cursor_path: NodePath | None = None
        self._now = 0.0
        self._labels: LRUCache[NodePath, tuple[tuple[object, ...], Text]] = LRUCache(512)
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self._name_widths: dict[AppBranch, int] = {}
        self._badge_width = 0
        self._told_visible: tuple[NodePath, ...] | None = None
        self._styles = RowStyles(Style(), Style(), Style(), Style(), Style())

    # Data in ---------------------------------------------------------------------------------------

    def show(self, listing: Listing, view_of: ViewOf, now: float,
             changed: Collection[NodePath] | None = None, *, marks_of: MarksOf | None = None) -> None:
        """New data. `changed` names the nodes with new readings; None means any of them may have; an
        empty set repaints only the rows whose label would now read differently (a node turned stale, a
        countdown moved)."""
        self._view_of = view_of
        self._marks_of = marks_of or _no_marks
        self._listing = listing
        self._now = now
        if changed is not None:
            self._arranger.readings_changed(changed)
        if not self._rearrange():
            self._redraw_rows(changed)

    def _latest(self, path: NodePath) -> Sample | None:
        return self._view_of(path).latest

    def _redraw_rows(self, changed: Collection[NodePath] | None) -> None:
        """Repaint the rows on screen whose node changed (None: all of them). An empty set is a clock
        tick: no reading is new, but a node may have turned stale, so the rows whose label would now
        show something else are repainted, and only those."""
        if changed is None:
            self.refresh()
            return
        top = int(self.scroll_y)
        for index, path in enumerate(self._rows.paths(top, top + max(1, self.size.height)), top):
            if path in changed if changed else self._label_is_old(path):
                self.refresh_line(index)

    def _label_is_old(self, path: NodePath) -> bool:
        cached = self._labels.get(path)
        return cached is None or cached[0] != self._shows(path, self._view_of(path))

    def _rearrange(self) -> bool:
        """Lay the rows out again if the arrangement changed; True when it did (and all was redrawn)."""
        self._arranger.arrange_by(self.filter_text, self.node_order)
        arrangement = self._arranger.arrange(self._listing, self._now)
        if arrangement is self._arrangement:
            return False
        self._arrangement = arrangement
        self._relayout()
        return True

    def _relayout(self) -> None:
        """New rows: the cursor stays on its node (or its nearest shown ancestor) at the same height on
        screen, so rows inserted above it do not push it away."""
        on_screen = self.cursor - int(self.scroll_y)
        self._rows = TreeRows(self._arrangement, self._collapsed)
        self._name_widths = {app: self._name_widths.get(app) or widest_name(app)
                             for vhost in self._arrangement.vhosts for app in vhost.apps}
        self.virtual_size = Size(self._needed_width(), len(self._rows))
        index = self._nearest_row(self._cursor_path)
        self.set_reactive(NodeTree.cursor, index)
        if index is not None and self._cursor_path is not None:
            self.scroll_to(y=max(0, index - on_screen), animate=False, immediate=True)
        self._cursor_moved()
        self.refresh()
        self._visible_rows_changed()

    def _nearest_row(self, path: NodePath | None) -> int:
        target = path
        while target is not None:
            index = self._rows.index_of(target)
            if index is not None:
                return index
            target = target.parent
        return 0

    # Width: the tree takes the width it needs ------------------------------------------------------

    def _needed_width(self) -> int:
        """The widest name (measured once per application branch) plus the widest badges drawn so far."""
        names = max(self._name_widths.values(), default=0)
        names = max([names, *(len(EXPANDED) + cell_len(visible(v.path.name)) for v in self._arrangement.vhosts)])
        least = unknown_badge_width(self.app.theme_variables if self.is_attached else {}, compact=self.compact)
        return names + 2 + max(self._badge_width, least) + 1

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.virtual_size.width + self.styles.scrollbar_size_vertical

    # View options ----------------------------------------------------------------------------------

    def watch_filter_text(self) -> None:
        self._rearrange()

    def watch_node_order(self) -> None:
        self._rearrange()

    def watch_compact(self) -> None:
        self._badge_width = 0
        self._labels.clear()
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
        return self._cursor_path

    @property
    def arrangement(self) -> Arrangement:
        return self._arrangement

    def paths(self) -> list[NodePath]:
        """Every shown node in display order (walks every row: for tests and small trees)."""
        return self._rows.paths()

    def visible_paths(self) -> list[NodePath]:
        """The nodes on screen now (the engine polls those before the rest)."""
        top = int(self.scroll_y)
        return self._rows.paths(top, top + max(1, self.size.height))

    def is_expanded(self, path: NodePath) -> bool:
        return path.level != "stream" and path not in self._collapsed

    # What screens do -------------------------------------------------------------------------------

    def select_path(self, path: NodePath, *, nearest: bool = False) -> bool:
        """Move the cursor to `path`, opening its parents; with `nearest`, fall back to its closest ancestor."""
        opened = [p for p in (path.parent, path.parent.parent if path.parent else None) if p in self._collapsed]
        self._collapsed.difference_update(opened)
        if opened:
            self._rows = TreeRows(self._arrangement, self._collapsed)
            self.virtual_size = Size(self.virtual_size.width, len(self._rows))
        index = self._rows.index_of(path)
        if index is None and nearest:
            index = self._nearest_row(path)
        if index is None:
            return False
        self._cursor_path = None  # the cursor moves even when its row number stays the same
        if self.cursor == index:  # no watcher call for an unchanged value: say where the cursor is now
            self._cursor_moved()
            self._scroll_to_cursor()
        self.cursor = index
        if opened:
            self.refresh()
            self._visible_rows_changed()
        return True

    def set_expanded(self, path: NodePath, expanded: bool) -> None:
        """Open or close a host or application; the cursor stays on its node (or moves to `path`)."""
        if path.level == "stream" or expanded == (path not in self._collapsed):
            return
        if expanded:
            self._collapsed.discard(path)
        else:
            self._collapsed.add(path)
        cursor = self._cursor_path
        if cursor is not None and not expanded and cursor != path and _under(cursor, path):
            self._cursor_path = path
        self._relayout()
        self.post_message(self.Toggled(self, path, expanded))

    # Cursor ----------------------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._rows) - 1))

    def watch_cursor(self, previous: int, value: int) -> None:
        self._cursor_moved()
        self._scroll_to_cursor()
        self.refresh_line(previous)
        self.refresh_line(value)

    def _cursor_moved(self) -> None:
        path = self._rows.row(self.cursor).path if len(self._rows) else None
        if path != self._cursor_path:
            self._cursor_path = path
            self.post_message(self.Highlighted(self, path))

    def _scroll_to_cursor(self) -> None:
        height = max(1, self.size.height)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def _cursor_row(self) -> Row | None:
        return self._rows.row(self.cursor) if len(self._rows) else None

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
        row = self._cursor_row()
        if row is None:
            return
        if row.expandable and row.expanded:
            self.set_expanded(row.path, False)
        elif row.path.parent is not None:
            self.select_path(row.path.parent)

    def action_expand(self) -> None:
        row = self._cursor_row()
        if row is None or not row.expandable:
            return
        if not row.expanded:
            self.set_expanded(row.path, True)
        elif self.cursor + 1 < len(self._rows) and self._rows.row(self.cursor + 1).depth > row.depth:
            self.cursor += 1

    def action_toggle_branch(self) -> None:
        row = self._cursor_row()
        if row is not None and row.expandable:
            self.set_expanded(row.path, not row.expanded)

    def action_open(self) -> None:
        row = self._cursor_row()
        if row is not None:
            self.post_message(self.Opened(self, row.path))

    # Mouse -----------------------------------------------------------------------------------------

    async def _on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        if "row" not in meta:
            return
        index = int(meta["row"])
        if meta.get("toggle"):
            self.set_expanded(self._rows.row(index).path, not self._rows.row(index).expanded)
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

    def _shows(self, path: NodePath, view: NodeView) -> tuple[object, ...]:
        """What a label shows of a node: it is built again only when this changes."""
        latest = view.latest
        return (view.state, latest.at if latest else None, view.info.source_type if view.info else None,
                self.compact, self.app.theme, self._marks_of(path))

    def _label(self, path: NodePath) -> tuple[tuple[object, ...], Text]:
        """The row's label and what it shows (its cache key), built only when that changed."""
        view = self._view_of(path)
        key = self._shows(path, view)
        cached = self._labels.get(path)
        if cached is not None and cached[0] == key:
            return cached
        label = node_label(view, self.app.theme_variables, compact=self.compact, marks=self._marks_of(path))
        badges = label.cell_len - cell_len(visible(path.name)) - 2
        if badges > self._badge_width:
            self._badge_width = badges
            self.virtual_size = Size(self._needed_width(), len(self._rows))
        self._labels[path] = (key, label)
        return key, label

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
        row = self._rows.row(index)
        shows, label = self._label(row.path)
        cursor = index == self.cursor
        key = (index, row, shows, cursor, cursor and self.has_focus, index == self.hover_row, width, base)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = draw_row(row, label, width=width, styles=self._styles, row_index=index,
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

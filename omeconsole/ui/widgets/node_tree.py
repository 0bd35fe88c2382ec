"""The tree of virtual hosts → applications → streams: a virtual list that costs what is on screen.

A fleet's tree has a level on top: a row per server with its health (`show_servers`), the current
server's nodes open under its row (see `core/tree_servers`). An application's ended streams sit under
its "ended" group row, closed unless opened (see `core/tree_rows`).

The widget draws rows through Textual's Line API from a `TreeRows` layout, so a server with 10,000
streams costs the 40 rows in view: labels are built only for rows drawn, and cached by what they show
(state, reading, width class, theme). Each row on screen keeps its drawn strip while its label reads the
same and its place (cursor, hover, focus, width, styles) is unchanged, and new readings repaint only the
rows whose label now reads differently. Data comes in through `show(listing, view_of, now, changed)`; the
arrangement (filter, sort) is kept incrementally by a `TreeArranger`. What the user does goes out as
small messages (`Highlighted`, `Opened`, `Toggled`, `ServerOpened`, `VisibleRowsChanged`) for the screen.

Keys: up/down or k/j move, left/h collapses or goes to the parent, right/l expands or goes to the first
child, space toggles, home/end (g/G) and page up/down jump, Enter opens. A click moves the cursor; a
click on the cursor's row (or a double click) opens; a click on ▶/▼ toggles.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, ClassVar, TypeAlias

from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip

from omeconsole.core.tree_model import AppBranch, Arrangement, SortOrder, TreeArranger
from omeconsole.core.tree_rows import Row, TreeRows
from omeconsole.core.tree_servers import At, Line, ServerRow, ShownRows
from omeconsole.core.tree_shape import TreeShape
from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.ui.actions import bindings
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, Palette, PaletteFollower
from omeconsole.ui.widgets.cursor_rows import CursorRows
from omeconsole.ui.widgets.tree_drawing import (
    DrawnRows,
    RowStyles,
    ServerLine,
    TreeColumns,
    tree_columns,
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


class NodeTree(CursorRows, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = bindings(
        "cursor_down", "cursor_up", "collapse", "expand", "toggle_branch", "page_down", "page_up", "cursor_first",
        "cursor_last", "open")

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *PALETTE_CLASSES,
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
    """ + PALETTE_CSS

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

    def __init__(self, *, resort_every: float = 5.0, **options: Any) -> None:
        super().__init__(**options)
        self._labels = TreeLabels()
        self._arranger = TreeArranger(self._latest, resort_every=resort_every)
        self._listing: Listing = {}
        self._arrangement = Arrangement()
        self._rows = ShownRows(TreeRows(self._arrangement))
        self._shape = TreeShape()
        self._servers: tuple[ServerLine, ...] = ()
        self._cursor_at: At | None = None
        self._now = 0.0
        self._drawn = DrawnRows()
        self._name_widths: dict[AppBranch, int] = {}
        self._screen_columns = 0
        self._listed = True
        self._columns_named = False
        """The tree's columns were decided from a whole listing's names: kept until the screen's size changes."""
        self._told_visible: tuple[NodePath, ...] | None = None
        self._styles = RowStyles(Style(), Style(), Style(), Style(), Style())
        self._colours: Palette = {}
        self._palette = PaletteFollower(self, self._recolour)

    # Data in ---------------------------------------------------------------------------------------

    def show(self, listing: Listing, view_of: ViewOf, now: float,
             changed: Collection[NodePath] | None = None, *, marks_of: MarksOf | None = None,
             ended_note: EndedNote | None = None, listed: bool = True) -> bool:
        """New data. `changed` names the nodes with new readings; None means any of them may have; an
        empty set repaints only the rows whose label would now read differently (a node turned stale, a
        countdown moved). `ended_note`: what an ended stream's row says after its name (its recorded life).
        `listed`: every host and application has been listed (the tree's columns are decided from the names
        then; until then they follow the names listed so far). True when the rows were laid out again (the
        rows on screen may be others)."""
        self._labels.feed(view_of, marks_of, ended_note)
        self._listing = listing
        self._listed = listed
        self._now = now
        if changed is not None:
            self._arranger.readings_changed(changed)
        if self._rearrange():
            return True
        self._redraw_rows(changed)
        if not self._columns_named:
            self._decide_columns()
        return False

    def show_servers(self, servers: Sequence[ServerLine], current: str) -> None:
        """A fleet's server level: a row per server (in this order), `current`'s nodes open under its row."""
        before, self._servers = self._servers, tuple(servers)
        self._labels.servers = {server.profile: server.label for server in servers}
        if self._shape.set_servers([server.profile for server in servers], current):
            self._relayout()
            return
        for old, new in zip(before, servers, strict=True):
            index = self._rows.server_index(new.profile)
            if old.label != new.label and index is not None:
                self.refresh_line(index)

    def _latest(self, path: NodePath) -> Sample | None:
        return self._labels.view_of(path).latest

    def _redraw_rows(self, changed: Collection[NodePath] | None) -> None:
        """Repaint the rows on screen whose label now reads differently: of the nodes in `changed` (None:
        all rows). An empty set is a clock tick: no reading is new, but a node may have turned stale, so
        every row on screen is checked, and only those whose label would now show something else repainted."""
        if changed is None:
            self.refresh()
            return
        compact, theme, colours = self.compact, self.app.theme, self._palette.built_with()
        if changed:  # a host's or application's marks follow its streams' (`ADx2`): their rows are checked too
            changed = {*changed, *(parent for path in changed for parent in _parents(path))}
        top = int(self.scroll_y)
        checked = []
        for index in range(top, min(len(self._rows), top + max(1, self.size.height))):
            line = self._rows.line(index)
            if not (isinstance(line, ServerRow) or line.group or (changed and line.path not in changed)):
                checked.append((index, line))
        self.repaint_rows(self._labels.relabel(checked, compact, theme, colours))

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
        screen, so rows inserted above it do not push it away; a stream that ended under the cursor is
        followed into its application's "ended" group."""
        on_screen = self.cursor - int(self.scroll_y)
        self._rows = self._shape.layout(self._arrangement)
        at = self._cursor_at
        if at is not None and at.node is not None and self._rows.index_of(at.node) is None \
                and self._shape.open_group_of(at.node, self._arrangement):
            self._rows = self._shape.layout(self._arrangement)
        self._name_widths = {app: self._name_widths.get(app) or widest_name(app)
                             for vhost in self._arrangement.vhosts for app in vhost.apps}
        if not self._columns_named:
            self._decide_columns()
        self._size_to_rows()
        index = self._rows.index_near(at) if at is not None else 0
        self.set_reactive(NodeTree.cursor, index)
        if at is not None:
            self.scroll_to(y=max(0, index - on_screen), animate=False, immediate=True)
        self.cursor_moved()
        self.refresh()
        self.visible_rows_changed()

    # Width: decided once per screen size ------------------------------------------------------------

    def fit_to(self, screen_columns: int, *, compact: bool) -> None:
        """The screen is `screen_columns` wide: the tree's columns are decided again, from the names of the
        whole listing (once every host and application was listed; later listings never move them: a longer
        name is cut with `…`, and the panes beside the tree stay where they are when data arrives).
        `compact`: labels carry only the name, state and viewers."""
        self._screen_columns = screen_columns
        self._columns_named = False
        self.set_reactive(NodeTree.compact, compact)
        self._decide_columns()

    def _decide_columns(self) -> None:
        screen = Size(self._screen_columns or self.app.size.width, self.app.size.height)
        most = self.styles.max_width  # the stylesheet's share of the screen (half, beside the detail)
        room = (int(most.resolve(screen, screen)) if most is not None else screen.width) \
            - self.styles.scrollbar_size_vertical
        columns = tree_columns(self._name_widths.values(), self._arrangement.vhosts, self._servers, room,
                               compact=self.compact)
        self._columns_named = self._listed and bool(self._name_widths or self._servers)
        if columns == self._labels.columns:
            return
        self._labels.columns = columns
        self._drawn.clear()
        self.virtual_size = Size(columns.width, len(self._rows))
        self.refresh(layout=True)

    @property
    def columns(self) -> TreeColumns | None:
        """Where the names end and the badges start (None before the tree is first fitted to the screen)."""
        return self._labels.columns

    def _size_to_rows(self) -> None:
        """The virtual size for new rows, as wide as the columns decided. Streams come and go all the time:
        rows added or gone leave the screen's layout as it is (a layout redraws the whole screen), the scroll
        bar follows them (the screen lays out again only when it appears or goes)."""
        size = Size(self.virtual_size.width, len(self._rows))
        self.set_reactive(NodeTree.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.virtual_size.width + self.styles.scrollbar_size_vertical

    # View options ----------------------------------------------------------------------------------

    def watch_filter_text(self) -> None:
        self._rearrange()

    def watch_node_order(self) -> None:
        self._rearrange()

    def watch_compact(self) -> None:
        self._drawn.clear()
        self._columns_named = False
        self._decide_columns()

    def notify_style_update(self) -> None:
        super().notify_style_update()  # a new theme or stylesheet: every row is repainted, labels built anew
        self._labels.clear()
        self._drawn.clear()
        self._palette.styles_changed()

    def _recolour(self) -> None:
        """Other colours than the labels were built in (another theme): every row is built and drawn again."""
        self._labels.clear()
        self._drawn.clear()
        self.refresh()

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
        return self._shape.is_open(path)

    # What screens do -------------------------------------------------------------------------------

    def select_path(self, path: NodePath, *, nearest: bool = False) -> bool:
        """Move the cursor to `path`, opening its parents (and its "ended" group); with `nearest`, fall back
        to its closest ancestor."""
        reopened = self._shape.open_above(path, self._arrangement)
        if reopened:
            self._rows = self._shape.layout(self._arrangement)
            self._size_to_rows()
        index = self._rows.index_of(path)
        if index is None and nearest:
            index = self._rows.index_near(At(path))
        if index is None:
            return False
        self.move_cursor(index)
        if reopened:
            self.refresh()
            self.visible_rows_changed()
        return True

    def select_server(self, profile: str) -> None:
        """Move the cursor to server `profile`'s row."""
        index = self._rows.server_index(profile)
        if index is not None:
            self.move_cursor(index)

    def set_expanded(self, path: NodePath, expanded: bool) -> None:
        """Open or close a host or application; the cursor stays on its node (or moves to `path`)."""
        if not self._shape.set_open(path, expanded):
            return
        cursor = self.cursor_path
        if cursor is not None and not expanded and cursor != path and _under(cursor, path):
            self._cursor_at = At(path)
        self._relayout()
        self.post_message(self.Toggled(self, path, expanded))

    def _toggle(self, line: Line, expanded: bool) -> None:
        """Open or close a row: a node's branch, an "ended" group, or a server (another server: move to it)."""
        if isinstance(line, ServerRow):
            if line.profile != self._shape.current:
                if expanded:
                    self.post_message(self.ServerOpened(self, line.profile))
            elif self._shape.set_server_open(expanded):
                self._cursor_at = At(server=line.profile)
                self._relayout()
        elif line.group:
            if self._shape.set_group_open(line.path, expanded):
                cursor = self.cursor_path
                if cursor is not None and self._arrangement.ended_app(cursor) == line.path:
                    self._cursor_at = At(line.path, group=True)  # its stream is hidden: the cursor on the group
                self._relayout()
        else:
            self.set_expanded(line.path, expanded)

    # Cursor ----------------------------------------------------------------------------------------

    def row_count(self) -> int:
        return len(self._rows)

    def move_cursor(self, index: int) -> None:
        self._cursor_at = None  # the cursor moves even when its row number stays the same
        super().move_cursor(index)

    def cursor_moved(self) -> None:
        line = self.cursor_line
        at = At.of(line) if line is not None else None
        if at != self._cursor_at:
            self._cursor_at = at
            self.post_message(self.Highlighted(self, self.cursor_path))

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
        if isinstance(line, ServerRow) and line.profile != self._shape.current:
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

    def visible_rows_changed(self) -> None:
        self.call_after_refresh(self._tell_visible)

    def _tell_visible(self) -> None:
        paths = tuple(self.visible_paths())
        if paths != self._told_visible:
            self._told_visible = paths
            self.post_message(self.VisibleRowsChanged(self, paths))

    # Drawing ---------------------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles are looked up once per pass over the rows, not once per row.
        self._styles = RowStyles(self.rich_style, self.get_component_rich_style("node-tree--guides", partial=True),
                                  self.get_component_rich_style("node-tree--hover"),
                                  self.get_component_rich_style("node-tree--cursor"),
                                  self.get_component_rich_style("node-tree--cursor-blurred"))
        self._colours = self._palette.built_with()
        strips = super().render_lines(crop)
        self._drawn.keep_on_screen(int(self.scroll_y), self.size.height)
        return strips

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_y)
        width = self.size.width
        styles = self._styles
        if index >= len(self._rows):
            return Strip.blank(width, styles.base)
        line = self._rows.line(index)
        label = self._labels.label(line, self.compact, self.app.theme, self._colours)
        return self._drawn.strip(index, line, label, width=width, styles=styles, hover=index == self.hover_row,
                                 on_cursor=index == self.cursor, focused=self.has_focus, console=self.app.console)


def _under(path: NodePath, ancestor: NodePath) -> bool:
    parent = path.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


def _parents(path: NodePath) -> list[NodePath]:
    parents = []
    parent = path.parent
    while parent is not None:
        parents.append(parent)
        parent = parent.parent
    return parents

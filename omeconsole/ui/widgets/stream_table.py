"""The streams table: one row per stream, a column per figure, sorted by any column (`t` on the dashboard).

A virtual list like the tree (`CursorRows`, Textual's Line API): the header is the first line on screen and
stays there; only the rows on screen are read and drawn, so 10,000 streams cost the 40 rows in view. The
rows, their order and their cells are `core/stream_table`'s; this widget draws them and owns the keys: the
tree's cursor keys, and a sort key per column (k9s: shift and a letter, `N` name ... `D` data age; again
reverses). The header names the sorted column with ▲ (ascending) or ▼ (descending).

On a fleet the rows are every member's streams (`show` gets a listing per member) with a server column
first, sorted by `E` like any column; `home` is the server the operator is on, whose row a stream's path
selects first (the same path on an origin and an edge is two rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from omeconsole.core.stream_table import (
    GAP,
    RIGHT_ALIGNED,
    Column,
    FactSource,
    StreamTable,
    TableFacts,
    TableOrder,
    TableRow,
    cells,
    column_widths,
    server_width,
)
from omeconsole.model.nodes import Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import TABLE_SORT_KEYS, bindings
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, PaletteFollower
from omeconsole.ui.widgets.cursor_rows import CursorRows


class StreamTableView(CursorRows, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = bindings(
        "cursor_down", "cursor_up", "page_down", "page_up", "cursor_first", "cursor_last", "open",
        *(f"table_sort_{column}" for column, _, _ in TABLE_SORT_KEYS))

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *PALETTE_CLASSES,
        "stream-table--header", "stream-table--cursor", "stream-table--cursor-blurred", "stream-table--hover",
    }

    DEFAULT_CSS = """
    StreamTableView {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        & > .stream-table--header { text-style: bold; color: $foreground; background: $panel; }
        & > .stream-table--cursor { color: $block-cursor-foreground; background: $block-cursor-background; }
        & > .stream-table--cursor-blurred { color: $foreground; background: $block-cursor-blurred-background; }
        & > .stream-table--hover { background: $block-hover-background; }
    }
    """ + PALETTE_CSS

    class TableMessage(Message):
        """A message of the table (`control`: the table, for `@on(..., "#id")` selectors)."""

        def __init__(self, table: StreamTableView) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> StreamTableView:
            return self.table

    class Highlighted(TableMessage):
        """The cursor rests on another stream (None: no row), of `server` (`""` on a single server)."""

        def __init__(self, table: StreamTableView, path: NodePath | None, server: str = "") -> None:
            super().__init__(table)
            self.path = path
            self.server = server

    class Opened(TableMessage):
        """Enter on a stream: its own screen is wanted (on `server`, `""` on a single server)."""

        def __init__(self, table: StreamTableView, path: NodePath, server: str = "") -> None:
            super().__init__(table)
            self.path = path
            self.server = server

    class VisibleRowsChanged(TableMessage):
        """The streams on screen are others now (the engine polls those first)."""

    class Sorted(TableMessage):
        """Another order (a column's sort key): the status line names it."""

    filter_text: reactive[str] = reactive("")
    order: reactive[TableOrder] = reactive(TableOrder)

    def __init__(self, *, resort_every: float = 5.0, **options: Any) -> None:
        super().__init__(**options)
        self._table = StreamTable(resort_every=resort_every)
        self._listings: Mapping[str, Listing] = {}
        self._facts = TableFacts.single(FactSource(_unknown, _no_ad, _no_alerts, 0.0))
        self._server_width = 0
        self._cursor_row: TableRow | None = None
        self.home = ""
        """The server the operator is on (a fleet's member; `""` on a single server)."""
        self._palette = PaletteFollower(self, self.refresh)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    # Data in -------------------------------------------------------------------------------------

    def show(self, listings: Mapping[str, Listing], facts: TableFacts, *, home: str = "") -> None:
        """New data (a listing per server, `""` alone on a single server): the rows are arranged again when
        needed, the rows on screen repainted."""
        self._listings, self._facts, self.home = listings, facts, home
        width = server_width(tuple(listings))
        if width != self._server_width:
            self._server_width = width
            self.refresh()
        if not self._arrange():
            self.refresh()

    def _arrange(self) -> bool:
        if not self._table.arrange(self._listings, self.filter_text, self.order, self._facts):
            return False
        on_screen = self.cursor - int(self.scroll_y)
        self._size_to_rows()
        index = self._table.index_of(self._cursor_row) if self._cursor_row is not None else None
        self.set_reactive(StreamTableView.cursor, index if index is not None else 0)
        self.scroll_to(y=max(0, self.cursor - on_screen), animate=False, immediate=True)
        self.cursor_moved()
        self.refresh()
        self.visible_rows_changed()
        return True

    def watch_filter_text(self) -> None:
        self._arrange()

    def watch_order(self) -> None:
        self._arrange()
        self.refresh()  # the header's arrow
        self.post_message(self.Sorted(self))

    # What screens read and do --------------------------------------------------------------------

    @property
    def cursor_row(self) -> TableRow | None:
        return self._table.row(self.cursor) if len(self._table) else None

    @property
    def cursor_path(self) -> NodePath | None:
        row = self.cursor_row
        return None if row is None else row.path

    @property
    def fleet(self) -> bool:
        """A fleet's table: a server column."""
        return self._server_width > 0

    def rows(self) -> tuple[TableRow, ...]:
        """Every row shown, in display order."""
        return self._table.rows()

    def paths(self) -> tuple[NodePath, ...]:
        """Every stream shown, in display order (a path once per server that has it)."""
        return tuple(row.path for row in self._table.rows())

    def visible_rows(self) -> list[TableRow]:
        top = int(self.scroll_y)
        return [self._table.row(i) for i in range(top, min(len(self._table), top + self._body_height()))]

    def visible_paths(self, server: str | None = None) -> list[NodePath]:
        """The streams on screen (of `server` only, when given)."""
        return [row.path for row in self.visible_rows() if server is None or row.server == server]

    def select_path(self, path: NodePath, server: str | None = None) -> bool:
        """Move the cursor to stream `path` on `server` (by default the `home` server, else the first that has
        it); False when the table does not show it."""
        index = self._table.find(path, self.home if server is None else server)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def select_row(self, row: TableRow) -> bool:
        """Move the cursor to `row` exactly (that stream on that server); False when it is not shown."""
        index = self._table.index_of(row)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def select_server(self, server: str) -> bool:
        """Move the cursor to the first row of `server`; False when none is shown."""
        index = next((i for i, row in enumerate(self._table.rows()) if row.server == server), None)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def action_sort_column(self, column: str) -> None:
        pressed = Column[column.upper()]
        if pressed is Column.SERVER and not self.fleet:
            return  # one server: no server column
        self.order = self.order.pressed(pressed)

    def action_open(self) -> None:
        row = self.cursor_row
        if row is not None:
            self.post_message(self.Opened(self, row.path, row.server))

    # Cursor --------------------------------------------------------------------------------------

    def row_count(self) -> int:
        return len(self._table)

    def cursor_moved(self) -> None:
        row = self.cursor_row
        if row != self._cursor_row:
            self._cursor_row = row
            self.post_message(self.Highlighted(self, None if row is None else row.path,
                                               "" if row is None else row.server))

    def _body_height(self) -> int:
        return max(1, self.size.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + self._body_height():
            self.scroll_to(y=self.cursor - self._body_height() + 1, animate=False, immediate=True)

    def visible_rows_changed(self) -> None:
        self.call_after_refresh(self.post_message, self.VisibleRowsChanged(self))

    def refresh_line(self, index: int) -> None:
        if index >= 0:
            super().refresh_line(index + 1)  # the header is line 0

    async def _on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        if "row" not in meta:
            return
        index = int(meta["row"])
        if index == self.cursor or event.chain > 1:
            self.cursor = index
            self.action_open()
        else:
            self.cursor = index

    # Drawing -------------------------------------------------------------------------------------

    def _widths(self) -> dict[Column, int]:
        return column_widths(self.size.width, self._server_width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            return self._header(width, base + self.get_component_rich_style("stream-table--header"))
        index = y - 1 + int(self.scroll_y)
        if index >= len(self._table):
            return Strip.blank(width, base)
        row = self._table.row(index)
        facts = self._facts.facts(row)
        texts = cells(facts, row.server)
        colours = self._palette.built_with()
        style = base + Style(meta={"row": index})
        if index == self.hover_row:
            style += self.get_component_rich_style("stream-table--hover")
        on_cursor = index == self.cursor
        line = Text(no_wrap=True, end="")
        for column, cell_width in self._widths().items():
            cell = _fit(texts[column], cell_width, right=column in RIGHT_ALIGNED)
            colour = "" if on_cursor else _colour(column, facts.state, facts.stalled, colours)
            line.append(cell, style=colour)
            line.append(" " * GAP)
        if on_cursor:
            style += self.get_component_rich_style(
                "stream-table--cursor" if self.has_focus else "stream-table--cursor-blurred")
        line.stylize(style)
        return Strip(list(line.render(self.app.console))).adjust_cell_length(width, style)

    def _header(self, width: int, style: Style) -> Strip:
        order = self.order
        segments: list[Segment] = []
        for column, cell_width in self._widths().items():
            title = column.value + (order.arrow if column is order.column else "")
            segments.append(Segment(_fit(title, cell_width, right=column in RIGHT_ALIGNED) + " " * GAP, style))
        return Strip(segments).adjust_cell_length(width, style)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.refresh()  # the header line is drawn with the rows under it

    def on_resize(self) -> None:
        self._size_to_rows()

    def _size_to_rows(self) -> None:
        """The virtual size for the rows and the header. Streams come and go all the time: at the same width
        the screen's layout is left as it is (a layout redraws the whole screen), as the tree does."""
        size = Size(self.size.width, len(self._table) + 1)
        if size.width != self.virtual_size.width:
            self.virtual_size = size
            return
        self.set_reactive(StreamTableView.virtual_size, size)
        self._scroll_update(size)
        self.refresh()


def _fit(text: str, width: int, *, right: bool) -> str:
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


def _colour(column: Column, state: NodeState, stalled: bool, colours: dict[str, str]) -> str:
    """The theme's colour for a cell (it only reinforces what the words say)."""
    if column is Column.STATE:
        return colours.get("state-stale" if stalled else f"state-{state.value}", "")
    if column is Column.IN:
        return colours.get("rate-in", "")
    if column is Column.OUT:
        return colours.get("rate-out", "")
    if column in (Column.AD, Column.ALERTS):
        return colours.get("rate-out", "")
    return ""


def _unknown(path: NodePath) -> NodeView:
    return NodeView(path, NodeState.UNKNOWN)


def _no_ad(_path: NodePath) -> str | None:
    return None


def _no_alerts(_path: NodePath) -> int:
    return 0


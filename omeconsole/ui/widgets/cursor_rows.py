"""A virtual list of rows with a cursor and a hover row, drawn through Textual's Line API.

It owns what any such list does: the keys that move the cursor (one row, a page, first, last), the
cursor kept in view, the row under the mouse, and a repaint of only the rows that change. A subclass
says how many rows there are (`row_count`), draws row `y` (`render_line`), and hears that the cursor
moved (`cursor_moved`) and that the rows on screen changed (`visible_rows_changed`, after a scroll or
a resize). A drawn row carries its index in its style's meta (`row`), which the hover reads.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.reactive import var
from textual.scroll_view import ScrollView


class CursorRows(ScrollView, can_focus=True):
    cursor: var[int] = var(0, init=False)
    hover_row: var[int] = var(-1, init=False)

    def row_count(self) -> int:
        raise NotImplementedError

    def cursor_moved(self) -> None:
        """The cursor rests on another row (or the rows under it changed)."""

    def visible_rows_changed(self) -> None:
        """The rows on screen may be others now."""

    def move_cursor(self, index: int) -> None:
        """Put the cursor on row `index`, and say so even when it was there already."""
        if self.cursor == index:  # no watcher call for an unchanged value
            self.cursor_moved()
            self._scroll_to_cursor()
        self.cursor = index

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.row_count() - 1))

    def watch_cursor(self, previous: int, value: int) -> None:
        self.cursor_moved()
        self._scroll_to_cursor()
        self.refresh_line(previous)
        self.refresh_line(value)

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
        self.cursor = self.row_count() - 1

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
            self.visible_rows_changed()

    def _on_resize(self, _: events.Resize) -> None:
        self.visible_rows_changed()

    def on_focus(self) -> None:
        self.refresh_line(self.cursor)

    def on_blur(self) -> None:
        self.refresh_line(self.cursor)

    def refresh_line(self, index: int) -> None:
        if index >= 0:
            super().refresh_line(index)

    def repaint_rows(self, indices: Iterable[int]) -> None:
        """Repaint these rows (the rows of one redraw, in one call)."""
        for index in indices:
            self.refresh_line(index)

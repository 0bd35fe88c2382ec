"""Totals of the selected node: bytes in human units, rates and peaks, the server's own figures, times,
how often it was read and the data's age.

Unknowns read "n/a", never 0; a value the server sent broken reads "invalid"; an ended stream shows
no current rate (its peaks, totals and when it was last seen); where the server's own avg/max
throughput contradicts the console's rate, the row says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static

from omeconsole.core import units
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.readings import NodeStats
from omeconsole.ui.palette import PaletteFollower, palette_classes, palette_css
from omeconsole.ui.widgets.cell_grid import CellLines, column_widths, fits, grid_lines

DISAGREE = "⚠ differs from ours"
TWO_COLUMNS = 84
"""Content width from which the pairs are shown in two columns."""


def _field(stats: NodeStats | None, name: str, shown: str) -> str:
    if stats is None:
        return units.NA
    return units.INVALID if name in stats.invalid else shown


def _pair(stats: NodeStats | None, kind: str) -> str:
    if stats is None:
        return units.NA
    values = [_field(stats, f"{kind}_throughput_{d}_bps", units.rate(getattr(stats, f"{kind}_throughput_{d}_bps")))
              for d in ("in", "out")]
    return " / ".join(values)


def totals_rows(view: NodeView, now: float) -> list[tuple[str, str]]:
    """The label/value pairs shown, in order."""
    latest = view.latest
    stats = latest.stats if latest is not None else None
    ended = view.state is NodeState.ENDED
    peak = units.NA
    if stats is not None:
        when = units.timestamp(stats.max_total_connection_time)
        peak = f"{units.count(stats.max_total_connections)} at {when}"
    disagree = view.server_disagrees
    rows = [
        ("bytes in", _field(stats, "total_bytes_in", units.size(stats.total_bytes_in if stats else None))),
        ("bytes out", _field(stats, "total_bytes_out", units.size(stats.total_bytes_out if stats else None))),
    ]
    if ended:
        rows.append(("rate in / out", "— (ended)"))
    else:
        rows.append(("rate in / out", f"{units.rate(view.rate_in_bps)} / {units.rate(view.rate_out_bps)}"))
    rows += [
        ("peak in / out", f"{units.rate(view.peak_rate_in_bps)} / {units.rate(view.peak_rate_out_bps)}"),
        ("server avg in / out", _pair(stats, "avg") + (f"  {DISAGREE}" if disagree else "")),
        ("server max in / out", _pair(stats, "max")),
        ("connections", "— (ended)" if ended else _field(stats, "total_connections", units.count(
            stats.total_connections if stats else None))),
        ("peak connections", peak),
        ("created", _field(stats, "created", units.timestamp(stats.created if stats else None))),
    ]
    if ended and view.last_seen_at is not None:
        rows.append(("ended", f"last seen {units.age(now - view.last_seen_at)} ago"))
    else:
        rows.append(("last updated", _field(stats, "last_updated", units.timestamp(stats.last_updated if stats
                                                                                   else None))))
    sampled = f"every {units.age(view.sampled_every)}" if view.sampled_every is not None else units.NA
    rows += [("read", sampled), ("data age", units.age(view.age(now)))]
    return rows


class TotalsPanel(Static):
    """The pairs drawn for the width the panel has when it is drawn (a resize draws them again)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(palette_classes("muted", "state-stale"))
    DEFAULT_CSS = palette_css("muted", "state-stale")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._palette = PaletteFollower(self, self.refresh)
        self.border_title = "totals"
        self._rows: list[tuple[str, str]] = []
        self._drawn: tuple[tuple[object, ...], CellLines | Table] | None = None

    def show(self, view: NodeView, now: float) -> None:
        rows = totals_rows(view, now)
        if rows != self._rows:
            grown = len(rows) != len(self._rows)
            self._rows = rows
            self.refresh(layout=grown)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        columns = 2 if width >= TWO_COLUMNS else 1
        return (len(self._rows) + columns - 1) // columns

    def render(self) -> CellLines | Table:
        """One column of label/value pairs, or two side by side when the panel is wide enough: labels in
        muted padded to the widest of their column, values (and, on a narrow panel, labels) cut with …"""
        width = self.content_size.width
        colours = self._palette.built_with()
        key = (tuple(self._rows), width, tuple(colours.values()))
        if self._drawn is None or self._drawn[0] != key:
            self._drawn = key, totals_text(self._rows, width, colours, self.app.console)
        return self._drawn[1]


def totals_text(rows: list[tuple[str, str]], width: int, colours: Mapping[str, str],
                console: Console) -> CellLines | Table:
    """The pairs as lines of text, or as a table sharing the cut between labels and values where they do not fit."""
    columns = 2 if width >= TWO_COLUMNS else 1
    muted = colours.get("muted", "")
    height = (len(rows) + columns - 1) // columns
    lines: list[list[Text]] = []
    for line in range(height):
        cells: list[Text] = []
        for column in range(columns):
            index = column * height + line
            label, value = rows[index] if index < len(rows) else ("", "")
            cell = Text(value, style=muted if value in (units.NA, units.INVALID) else "")
            if DISAGREE in value:
                cell.highlight_words([DISAGREE], style=colours.get("state-stale", ""))
            cells += [Text(label, style=muted), cell]
        lines.append(cells)
    widths = column_widths(lines)
    if fits(widths, width):
        return grid_lines(lines, widths, [console.get_style(muted), Style.null()] * columns, console)
    table = Table.grid(padding=(0, 1))
    for column in range(columns):
        table.add_column(style=muted, no_wrap=True)
        table.add_column(no_wrap=True, overflow="ellipsis", ratio=1 if column == columns - 1 else None)
    for cells in lines:
        table.add_row(*cells)
    return table

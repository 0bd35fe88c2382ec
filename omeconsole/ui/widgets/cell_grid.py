"""Rows of cells drawn as rich segments: columns as wide as their widest cell, one space between them.

What a borderless rich `Table` draws for the detail's panels when its columns fit, built directly instead
of laid out (measure every cell, lay the columns out, render each cell) on every update, and the same
picture piece for piece: each cell (its text and its padding) and each gap are pieces of their own,
styled as the table styled them. Where the columns do not fit, the panels still ask a `Table` to share
the cut between them: that picture (labels and values each cut with `…`) is kept as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

GAP = 1
"""Spaces between two columns."""


def column_widths(rows: Sequence[Sequence[Text]]) -> list[int]:
    """Each column's widest cell (a row may have fewer cells than the widest row)."""
    widths: list[int] = []
    for row in rows:
        for index, cell in enumerate(row):
            if index == len(widths):
                widths.append(0)
            widths[index] = max(widths[index], cell.cell_len)
    return widths


def fits(widths: Sequence[int], room: int) -> bool:
    """Whether columns of these widths, with their gaps, fit in `room` cells."""
    return sum(widths) + GAP * max(0, len(widths) - 1) <= room


@dataclass(frozen=True)
class CellLines:
    """Lines of segments, drawn as they are (a rich renderable)."""

    lines: tuple[tuple[Segment, ...], ...]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            yield from line
            yield Segment.line()


def grid_lines(rows: Sequence[Sequence[Text]], widths: Sequence[int], gap_styles: Sequence[Style],
               console: Console) -> CellLines:
    """The rows, each cell padded to its column's width in its own style, each gap styled as its column
    (`gap_styles`: a table's column style covers its cells' padding)."""
    lines: list[tuple[Segment, ...]] = []
    for row in rows:
        line: list[Segment] = []
        last = len(row) - 1
        for index, cell in enumerate(row):
            pad = " " * (widths[index] - cell.cell_len)
            if cell.spans:
                cell = cell.copy()
                cell.pad_right(len(pad))
                line += cell.render(console, end="")
            else:  # one piece in the cell's style (the same style object as a gap of that style: one run)
                line.append(Segment(cell.plain + pad, console.get_style(cell.style)))
            if index < last:
                line.append(Segment(" " * GAP, gap_styles[index]))
        lines.append(tuple(line))
    return CellLines(tuple(lines))

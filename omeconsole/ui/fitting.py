"""One line fitted to the columns it has: its parts go by how little they matter, never cut in the middle.

A line (a tree row's badges, a detail header) is a list of parts in the order they are shown, each with
its own leading separator and a priority. When the line does not fit, the parts that matter least are
left out whole, so what stays is always a complete figure with its unit (`out 66.40 Mb/s`, never
`out 66.40 M…`); what the screen cannot hold at all is cut with `…` by the widget drawing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text


@dataclass(frozen=True)
class Part:
    text: Text
    """What is shown, with the separator before it (the first part shown has its separator removed)."""
    priority: int
    """0 is always shown; higher numbers go first when the line is too narrow."""
    separator: str = "  "


def chosen(parts: Sequence[Part], width: int | None) -> set[int]:
    """The indexes of the parts that fit in `width` columns (all of them when None), the most important first."""
    budget = 10_000 if width is None else width
    kept: set[int] = set()
    used = -len(parts[0].separator) if parts and parts[0].priority == 0 else 0  # the first has none shown
    for index in sorted(range(len(parts)), key=lambda i: (parts[i].priority, i)):
        part = parts[index]
        cost = part.text.cell_len + len(part.separator)
        if part.priority == 0 or used + cost <= budget:
            kept.add(index)
            used += cost
    return kept


def fitted(parts: Sequence[Part], width: int | None) -> Text:
    """The parts that fit in `width` columns (all of them when None), the most important first, shown in
    their own order."""
    return joined(parts, chosen(parts, width))


def joined(parts: Sequence[Part], kept: set[int]) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    for index, part in enumerate(parts):
        if index in kept:
            if line:
                line.append(part.separator)
            line.append_text(part.text)
    return line

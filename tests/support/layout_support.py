"""The screen as text, for tests that compare pictures (what a user reads, colours aside)."""

from __future__ import annotations

from typing import Any

from textual.app import App


def screen_text(app: App[Any]) -> str:
    """Every row of the screen in front as the terminal would show it (toasts and overlays included).
    Reads Textual's compositor (Textual 8.2.8) without clearing what it has still to draw."""
    compositor = app.screen._compositor
    chops = compositor._render_chops(compositor.size.region, lambda _y: True)
    return "\n".join("".join(strip.text for strip in chop.values()) for chop in chops)


BOX_DRAWING = range(0x2500, 0x2580)
"""Box Drawing (U+2500 to U+257F): the characters every frame, rule, axis and tree guide is drawn with."""


def frame_cells(text: str) -> dict[tuple[int, int], str]:
    """Every cell of a screen's text that holds a box-drawing character, by (row, column)."""
    return {(row, column): char for row, line in enumerate(text.splitlines())
            for column, char in enumerate(line) if ord(char) in BOX_DRAWING}


def covered(fresh: str, now: str) -> list[str]:
    """What `now` hides of `fresh`: the status line (the row above the footer) if it differs, and every
    frame cell (row, column, was) that reads differently. Empty when nothing that matters is covered."""
    before, after = fresh.splitlines(), now.splitlines()
    problems = [] if before[-2:-1] == after[-2:-1] else [f"status line: {after[-2]!r}"]
    after_cells = frame_cells(now)
    problems += [f"frame cell {where} {char!r} → {after_cells.get(where, ' ')!r}"
                 for where, char in frame_cells(fresh).items() if after_cells.get(where) != char]
    return problems

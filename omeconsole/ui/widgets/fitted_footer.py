"""The footer with the keys that fit its width: help, back and quit always, the others while there is room.

Textual's footer shows every key in a row and cuts what passes the terminal's edge, so at 80 columns (and
in replay, with its many keys, at any width) `? Help`, `esc Back` and `q Quit` fell off the end. Here the
keys are measured as they are composed and the ones shown last (the footer lists the focused widget's keys
first, the app's last) go first, except the keys that leave: help, back (or close) and quit. Composed again
when the width changes; nothing is laid out twice.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KEPT_ACTIONS = frozenset({"help", "back", "quit", "close", "dismiss"})
"""What a footer always shows: how to get help and how to leave (a dialog's or screen's close is its back)."""
PALETTE_CLASS = "-command-palette"


def key_width(key: FooterKey, *, compact: bool) -> int:
    """The columns Textual's FooterKey takes (its stylesheet: the key padded 0 1 and the description 0 1 0 0;
    compact: no padding, a space before the description and a margin of 1; the palette's key a divider and
    a padding of 1 on its right)."""
    if not key.description:
        drawn = cell_len(key.key_display)
    elif compact:
        drawn = cell_len(key.key_display) + 1 + cell_len(key.description)
    else:
        drawn = cell_len(key.key_display) + 2 + cell_len(key.description) + 1
    if key.has_class(PALETTE_CLASS):
        return drawn + 1 + (0 if compact else 1)
    return drawn + (1 if compact else 0)


def kept(key: FooterKey) -> bool:
    return key.action.rpartition(".")[2] in KEPT_ACTIONS


def fitting(widgets: Iterable[Widget], width: int, *, compact: bool) -> list[Widget]:
    """`widgets` less the keys that do not fit in `width` columns, dropped from the last shown; help, back and
    quit are never dropped (a terminal too narrow even for them cuts them at its edge). The console's
    bindings have no groups: the footer's keys come as one flat list."""
    shown = list(widgets)
    keys = [w for w in shown if isinstance(w, FooterKey)]
    used = sum(key_width(key, compact=compact) for key in keys)
    dropped: set[int] = set()
    for key in reversed(keys):
        if used <= width:
            break
        if not kept(key) and not key.has_class(PALETTE_CLASS):
            dropped.add(id(key))
            used -= key_width(key, compact=compact)
    return [w for w in shown if id(w) not in dropped]


class FittedFooter(Footer):
    def compose(self) -> ComposeResult:
        yield from fitting(super().compose(), self.size.width or self.app.size.width, compact=self.compact)

    def on_resize(self) -> None:
        self.call_after_refresh(self.recompose)

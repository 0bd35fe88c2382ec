"""Keys as data: remapping (`[keymap]`) checked before it is applied, and the sections of `?`.

Textual applies a keymap through `App.set_keymap`; an id it does not know is silently ignored, so the
console checks the ids first and tells the user about typos instead.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode


class HelpSection(enum.Enum):
    NAVIGATE = "navigate"
    VIEW = "view"
    AD_OPS = "ad ops"
    APP = "app"
    OTHER = "other"


def binding_ids(owners: Iterable[type[DOMNode]]) -> set[str]:
    """Every binding id declared by these apps, screens and widgets."""
    return {b.id for owner in owners for b in owner.BINDINGS if isinstance(b, Binding) and b.id}


def split_keymap(keymap: Mapping[str, str], known: set[str]) -> tuple[dict[str, str], list[str]]:
    """(the entries to apply, the unknown ids in order)."""
    return {k: v for k, v in keymap.items() if k in known}, sorted(set(keymap) - known)

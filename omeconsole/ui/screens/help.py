"""`?`: every key that works on the screen underneath, generated from its bindings.

Nothing is written by hand here, so the help cannot drift from the keys, and a key remapped in the
config file's keymap shows up under its new name.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


@dataclass(frozen=True)
class HelpEntry:
    keys: str
    description: str
    detail: str
    binding_id: str | None


def help_entries(screen: Screen[object]) -> list[HelpEntry]:
    """The described bindings active on `screen` (app, screen and focused widget), keys merged per action."""
    app = screen.app
    by_action: dict[tuple[str, str], list[str]] = {}
    found: dict[tuple[str, str], Binding] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.description or binding.system:
            continue
        ident = (binding.action, binding.description)
        by_action.setdefault(ident, [])
        shown = app.get_key_display(Binding(key, binding.action, binding.description, key_display=binding.key_display))
        if shown not in by_action[ident]:
            by_action[ident].append(shown)
        if ident not in found or (binding.id and not found[ident].id):
            found[ident] = binding  # the console's own binding (with an id) names the entry
    entries = [
        HelpEntry(" / ".join(keys), found[ident].description, found[ident].tooltip, found[ident].id)
        for ident, keys in by_action.items()
    ]
    # The console's own keys (they have ids) first, then the built-in keys of Textual's widgets.
    return sorted(entries, key=lambda e: (e.binding_id is None, e.description.lower()))


def help_table(entries: list[HelpEntry]) -> Table:
    table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True, style="bold")
    table.add_column("does")
    table.add_column("id (for the keymap)", style="dim", no_wrap=True)
    for entry in entries:
        does = Text(entry.description)
        if entry.detail:
            does.append(f": {entry.detail}", style="dim")
        table.add_row(entry.keys, does, entry.binding_id or "")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q", "dismiss", "Close help", id="close_help"),
    ]

    def __init__(self, entries: list[HelpEntry]) -> None:
        super().__init__()
        self._entries = entries

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "keys  (remap by id under \\[keymap] in the config file; ctrl+p for commands)"
            yield Static(help_table(self._entries), id="help-table")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

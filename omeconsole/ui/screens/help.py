"""`?`: every key of the screen underneath, grouped (navigate, view, ad ops, app), from its bindings.

Nothing is written by hand here, so the help cannot drift from the keys: the entries are the bindings
with an id declared by the focused widget, its containers, the screen and the app (the console's own
keys; the internals of Textual's widgets have no id and are left out), under the keys the user's
keymap gives them, each in the section the action registry (`actions.HELP_SECTIONS`) names. Actions that depend on the
selection are listed whatever is selected.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from omeconsole.ui.actions import HELP_SECTIONS, bindings
from omeconsole.ui.keymap import HelpSection
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, PaletteFollower


@dataclass(frozen=True)
class HelpEntry:
    keys: str
    description: str
    detail: str
    binding_id: str
    section: HelpSection


def binding_owners(screen: Screen[object]) -> Iterator[DOMNode]:
    """The focused widget and its containers, the screen, the app: where the keys in force come from."""
    node: DOMNode | None = screen.focused
    while node is not None and node is not screen:
        yield node
        node = node.parent
    yield screen
    yield screen.app


def declared_bindings(owner: DOMNode) -> Iterator[Binding]:
    """The owner's bindings with an id, its own class first, one key per binding."""
    for cls in type(owner).__mro__:
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", ())):
            if binding.id and binding.description:
                yield binding


def help_entries(screen: Screen[object], keymap: Mapping[str, str] | None = None) -> list[HelpEntry]:
    """The console's keys in force on `screen`, keys merged per binding id, grouped by section."""
    app: App[object] = screen.app
    keymap = keymap or {}
    keys: dict[str, list[str]] = {}
    first: dict[str, Binding] = {}
    for owner in binding_owners(screen):
        for binding in declared_bindings(owner):
            ident = binding.id or ""
            remapped = keymap.get(ident)
            pressed = ([b.key for b in Binding.make_bindings([binding.with_key(remapped)])]
                       if remapped else [binding.key])
            shown = keys.setdefault(ident, [])
            first.setdefault(ident, binding)
            for key in pressed:
                display = app.get_key_display(Binding(key, binding.action, binding.description,
                                                      key_display=None if remapped else binding.key_display))
                if display not in shown:
                    shown.append(display)
    entries = [HelpEntry(" / ".join(keys[ident]), binding.description, binding.tooltip, ident,
                         HELP_SECTIONS.get(ident, HelpSection.OTHER)) for ident, binding in first.items()]
    if app.ENABLE_COMMAND_PALETTE:
        palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")
        entries.append(HelpEntry(app.get_key_display(palette), "Command palette",
                                 "Connect, switch profile or theme, export, every action by name",
                                 "command_palette", HelpSection.APP))
    order = list(HelpSection)
    return sorted(entries, key=lambda entry: order.index(entry.section))


def help_table(entries: list[HelpEntry], colours: Mapping[str, str]) -> Table:
    muted = colours.get("muted", "")
    table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True, style="bold")
    table.add_column("does")
    table.add_column("id (for the keymap)", style=muted, no_wrap=True)
    section: HelpSection | None = None
    for entry in entries:
        if entry.section is not section:
            if section is not None:
                table.add_row()
            section = entry.section
            table.add_row(Text(section.value, style=f"bold {colours.get('accent', '')}"))
        does = Text(entry.description)
        if entry.detail:
            does.append(f": {entry.detail}", style=muted)
        table.add_row(Text(entry.keys), does, Text(entry.binding_id))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("close_help")
    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def __init__(self, entries: list[HelpEntry]) -> None:
        super().__init__()
        self._entries = entries
        self._palette = PaletteFollower(self, self._draw_table)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "keys  (remap by id under \\[keymap] in the config file; ctrl+p for commands)"
            yield Static(id="help-table")

    def on_mount(self) -> None:
        self._draw_table()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def _draw_table(self) -> None:
        self.query_one("#help-table", Static).update(help_table(self._entries, self._palette.built_with()))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

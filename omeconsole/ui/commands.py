"""The command palette (ctrl+p): every action in force on the screen, by name.

`ConsoleApp.get_system_commands` (Textual's hook for the palette) yields the app's own commands
(connect, switch profile, theme) and these: the bindings of the screen underneath, walked as `?`
walks them (the focused widget and its containers, the screen, the app), each once, and only those
that apply to what is selected (a cue-out only on a stream). Nothing here is written twice: a key's
palette entry is its binding's description and id.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.app import SystemCommand
from textual.dom import DOMNode
from textual.screen import Screen

from omeconsole.ui.screens.help import binding_owners, declared_bindings

LEFT_OUT = frozenset({"close_help", "cancel_prompt", "help", "quit"})
"""Bindings the palette does not repeat (the app yields its own Help and Quit)."""


def action_commands(screen: Screen[object]) -> Iterator[SystemCommand]:
    seen: set[str] = set(LEFT_OUT)
    for owner in binding_owners(screen):
        for binding in declared_bindings(owner):
            ident = binding.id or ""
            if ident in seen or owner.check_action(binding.action.split("(", 1)[0], ()) is False:
                continue
            seen.add(ident)
            yield SystemCommand(f"{binding.description} ({ident})", binding.tooltip or binding.description,
                                partial(_run, owner, binding.action))


async def _run(owner: DOMNode, action: str) -> None:
    await owner.app.run_action(action, owner)

"""ctrl+c while a send is in flight: leaving now would leave its outcome unknown, so the console asks."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from omeconsole.core.text import visible
from omeconsole.ui.actions import bindings


class QuitWhileSending(ModalScreen[bool]):
    """Names the sends still in flight; y quits anyway, Esc or n stays."""

    BINDINGS = bindings("quit_anyway", "stay")

    def __init__(self, sending: Sequence[str]) -> None:
        super().__init__()
        self._sending = list(sending)

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt") as box:
            box.border_title = "quit while sending?"
            yield Static(visible("still being sent, not answered yet: " + "; ".join(self._sending)),
                         id="quit-sending", markup=False)
            yield Label("Quitting now leaves its outcome unknown (the audit log says so at the next start).",
                        classes="hint")
            yield Label("y: quit anyway · Esc or n: stay", classes="hint")

    def action_quit_anyway(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)

"""`:` and a name, as in k9s: a prompt that completes host, application and stream names of the listing and,
on a fleet, of the other servers' listings (→ takes the completion), Enter goes to the node (on its server),
Esc cancels. A name that matches nothing or several nodes is answered in the prompt, with the nearest names,
and nothing is opened."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Static

from omeconsole.core.nearest import Jump, JumpScope, resolve_scope_jump, scope_names
from omeconsole.core.text import visible
from omeconsole.ui.actions import bindings


class JumpPrompt(ModalScreen[Jump | None]):
    BINDINGS = bindings("cancel_prompt")

    def __init__(self, scope: Callable[[], JumpScope]) -> None:
        """`scope`: the listings now (read again at Enter: streams come and go meanwhile)."""
        super().__init__()
        self._scope = scope

    def compose(self) -> ComposeResult:
        scope = self._scope()
        with Vertical(classes="prompt") as box:
            box.border_title = "jump to"
            what = "host, application or stream name" + (" (SERVER:path for another server)" if scope.others else "")
            yield Input(placeholder=what, id="jump",
                        suggester=SuggestFromList(scope_names(scope), case_sensitive=False))
            yield Static(id="jump-problem", markup=False)
            yield Label("→ completes · Enter goes there · Esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#jump-problem", Static).display = False
        self.query_one("#jump", Input).focus()

    @on(Input.Submitted, "#jump")
    def _submitted(self, event: Input.Submitted) -> None:
        jump = resolve_scope_jump(event.value, self._scope())
        if jump.path is not None:
            self.dismiss(jump)
            return
        nearest = f"; nearest: {', '.join(jump.nearest)}" if jump.nearest else ""
        problem = self.query_one("#jump-problem", Static)
        problem.update(visible(f"{event.value}: {jump.problem}{nearest}"))
        problem.display = True

    def action_cancel(self) -> None:
        self.dismiss(None)

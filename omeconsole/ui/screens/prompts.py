"""Small modal prompts: the token (after a 401), a server to connect to, and the export result.

What they show from outside (the server's reason for refusing a token, a path built from a stream's
name) is data: shown through `text.visible`, never read as markup, and wrapped rather than cut.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from omeconsole.core.text import visible
from omeconsole.ui.actions import bindings
from omeconsole.ui.widgets.status_bar import without_countdown


class TokenPrompt(ModalScreen[str | None]):
    """Asks for the access token; the text is masked and never logged. Esc keeps the old one."""

    BINDINGS = bindings("cancel_prompt")

    def __init__(self, reason: str) -> None:
        super().__init__()
        self._reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt") as box:
            box.border_title = "access token"
            yield Static(visible(without_countdown(self._reason)), id="token-reason", markup=False)
            yield Input(password=True, placeholder="access token", id="token")
            yield Label("Enter to connect, Esc to cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#token", Input).focus()

    @on(Input.Submitted, "#token")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConnectPrompt(ModalScreen[tuple[str, str | None] | None]):
    """A server address and, optionally, its token."""

    BINDINGS = bindings("cancel_prompt")

    def __init__(self, api_url: str) -> None:
        super().__init__()
        self._api_url = api_url

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt") as box:
            box.border_title = "connect"
            yield Label("management API address")
            yield Input(self._api_url, placeholder="http://127.0.0.1:8081", id="url")
            yield Label("access token (empty: keep the current one)")
            yield Input(password=True, id="token")
            yield Label("Enter to connect, Esc to cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#url", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        url = self.query_one("#url", Input).value.strip()
        if not url.startswith(("http://", "https://")):
            self.query_one("#url", Input).focus()
            self.notify("The address must start with http:// or https://", severity="error")
            return
        token = self.query_one("#token", Input).value or None
        self.dismiss((url, token))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportDone(ModalScreen[None]):
    """Shows where the history was written, so the user can copy the paths."""

    BINDINGS = bindings("close_export")

    def __init__(self, what: str, paths: list[Path]) -> None:
        super().__init__()
        self._what = what
        self._paths = paths

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt") as box:
            box.border_title = "exported"
            yield Static(f"History of {visible(self._what)} written to:", markup=False)
            for path in self._paths:
                yield Static(visible(str(path)), classes="path", markup=False)
            yield Button("OK", id="ok")

    @on(Button.Pressed, "#ok")
    def action_close(self) -> None:
        self.dismiss(None)

"""Every event sent, from the audit log: this run and earlier ones, newest first.

Read from the file, not from memory, so it shows exactly what an auditor would find, including
sends whose outcome stayed unknown and whether the playlist later confirmed them.
"""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from omeconsole.core.audit import AuditedSend, AuditLog

COLUMNS = ("time", "stream", "action", "status", "server message", "playlist", "body")


def confirmation_text(send: AuditedSend) -> str:
    if not send.confirmations:
        return "—"
    last = send.confirmations[-1]
    if last.seen_after_s is not None:
        return f"seen after {last.seen_after_s:.1f} s"
    return last.detail


def row(send: AuditedSend) -> tuple[str, ...]:
    body = json.dumps(send.body, ensure_ascii=False, separators=(",", ":"))
    return (send.time.replace("T", " ")[:23], send.stream_path, send.action, str(send.status),
            send.message, confirmation_text(send), body if len(body) <= 120 else body[:119] + "…")


class AdEventsScreen(Screen[None]):
    DEFAULT_CSS = """
    AdEventsScreen #events-summary { height: auto; padding: 0 1; }
    AdEventsScreen DataTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="close_ad_events"),
        Binding("r", "reload", "Reload", id="reload_ad_events", tooltip="Read the audit log again"),
    ]

    def __init__(self, audit: AuditLog) -> None:
        super().__init__()
        self._audit = audit

    def compose(self) -> ComposeResult:
        yield Static(id="events-summary")
        yield DataTable(id="events", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.action_reload()

    def action_reload(self) -> None:
        contents = self._audit.read_all()
        table = self.query_one(DataTable)
        table.clear()
        for send in reversed(contents.sends):
            table.add_row(*row(send), key=send.send_id)
        summary = f"{len(contents.sends)} event(s) sent, from {self._audit.path}"
        if contents.skipped_lines:
            summary += f"  ({contents.skipped_lines} unreadable line(s) skipped)"
        self.query_one("#events-summary", Static).update(summary)

"""Every event sent, from the audit log: this run and earlier ones, newest first.

Read from the file, not from memory, so it shows exactly what an auditor would find, including
sends whose outcome stayed unknown and whether the playlist later confirmed them.
"""

from __future__ import annotations

import json

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Static

from omeconsole.core.adops.audit import AuditedSend, AuditLog

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


def detail_text(send: AuditedSend) -> str:
    lines = [f"{send.time}  {send.action} to {send.stream_path} on {send.server}",
             f"HTTP status: {send.status}   server message: {send.message}",
             "body exactly as sent:", json.dumps(send.body, ensure_ascii=False, indent=2)]
    if send.confirmations:
        lines.append("playlist:")
        lines.extend(f"  {c.time}  {c.detail}" for c in send.confirmations)
    else:
        lines.append("playlist: no confirmation recorded")
    return "\n".join(lines)


class AdEventDetail(ModalScreen[None]):
    """One send in full: the exact body and every confirmation line."""

    DEFAULT_CSS = """
    AdEventDetail { align: center middle; }
    AdEventDetail VerticalScroll { width: 90; max-width: 100%; height: 80%; border: thick $primary;
                                   background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,enter", "app.pop_screen", "Close", id="close_ad_event")]

    def __init__(self, send: AuditedSend) -> None:
        super().__init__()
        self._send = send

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = f"event {self._send.send_id[:8]}"
            yield Static(detail_text(self._send), id="event-detail", markup=False)


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
        self._sends: dict[str, AuditedSend] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="events-summary")
        yield DataTable(id="events", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.action_reload()

    def action_reload(self) -> None:
        contents = self._audit.read_all()
        self._sends = {send.send_id: send for send in contents.sends}
        table = self.query_one(DataTable)
        table.clear()
        for send in reversed(contents.sends):
            table.add_row(*row(send), key=send.send_id)
        summary = f"{len(contents.sends)} event(s) sent, from {self._audit.path}"
        if contents.skipped_lines:
            summary += f"  ({contents.skipped_lines} unreadable line(s) skipped)"
        self.query_one("#events-summary", Static).update(summary)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        send = self._sends.get(str(event.row_key.value))
        if send is not None:
            self.app.push_screen(AdEventDetail(send))

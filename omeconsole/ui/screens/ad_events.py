"""Every event sent, from the audit log: this run and earlier ones, newest first, by server and profile;
and every ad break this console saw in a playlist without having sent it ("seen in the playlist").

Read from the file, not from memory, so it shows exactly what an auditor would find: the server and
profile of each send, sends whose outcome was never recorded ("outcome unknown — check the playlist":
the console was killed mid-send), whether the playlist confirmed them, and how many lines could not
be read. It opens on this console's server and lists the others' too on request (the filters). The
file is hostile input like any other: every value is shown as data. It is read again when it
changes (a send from this console, or from the command line in another terminal). Breaks seen in
playlists are this run's (`core.adops.playlist_watch`), listed with the time first seen, under this
console's server and profile.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, Select, Static

from omeconsole.core.adops.audit import OUTCOME_UNKNOWN, AuditContents, AuditedSend, AuditLog
from omeconsole.core.adops.playlist_watch import FirstSeen
from omeconsole.core.clock import Clock
from omeconsole.core.context import ServerContext
from omeconsole.ui.adops.changes import AdOpsChanged
from omeconsole.ui.adops.dialogs import CSS_PATH as DIALOGS_CSS
from omeconsole.ui.adops.panel import context_text
from omeconsole.ui.adops.untrusted_text import append_outside, outside
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.keyed_lists import KeyedTable
from omeconsole.ui.widgets.status_bar import StatusLine
from omeconsole.ui.widgets.ticking_status_bar import TickingStatusBar

COLUMNS = ("time (UTC)", "server", "profile", "stream", "action", "outcome", "server message", "playlist", "body")
BODY_CHARS = 120
RECHECK_S = 2.0
"""How often (console clock) the file is looked at for sends from elsewhere; it is read only if it changed."""
NO_PROFILE = "(no profile)"
ProfileChoice = tuple[str | None]
"""A profile filter's value: the profile, or None for sends made without one."""
SEEN_OUTCOME = "seen in the playlist"
SEEN_KEY = "seen-in-playlist:"
"""Row keys of breaks seen in playlists (send ids are hexadecimal: no clash)."""


def body_json(send: AuditedSend, *, indent: int | None = None) -> str:
    try:
        return json.dumps(send.body, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))
    except (ValueError, RecursionError):
        return repr(send.body)


def confirmation_text(send: AuditedSend) -> Text:
    if not send.confirmations:
        return Text("—", style="dim")
    last = send.confirmations[-1]
    if last.seen_after_s is not None:
        return Text(f"seen after {last.seen_after_s:.1f} s", style="green")
    return outside(last.detail, "red")


def outcome_text(send: AuditedSend) -> Text:
    if not send.outcome_recorded:
        return Text("unknown", style="bold magenta")
    status = send.status
    ok = isinstance(status, int) and 200 <= status < 300
    return Text(str(status), style="green" if ok else "bold red")


def row(send: AuditedSend) -> tuple[Text, ...]:
    body = body_json(send)
    message = (Text(OUTCOME_UNKNOWN, style="bold magenta") if not send.outcome_recorded
               else outside(send.message, limit=200))
    return (outside(send.time.replace("T", " ")[:23]), outside(send.server, limit=80),
            outside(send.profile or "—", limit=40), outside(send.stream_path, limit=120), outside(send.action),
            outcome_text(send), message, confirmation_text(send),
            outside(body if len(body) <= BODY_CHARS else body[:BODY_CHARS - 1] + "…", "dim", limit=BODY_CHARS))


def seen_row(seen: FirstSeen, context: ServerContext) -> tuple[Text, ...]:
    """A break this console did not send, as first seen in a playlist: a row beside the sends."""
    splice = f"splice {seen.splice_wall.strftime('%H:%M:%S.%f')[:-3]}" if seen.splice_wall is not None else "splice ?"
    planned = f", planned {seen.planned_s:g} s" if seen.planned_s is not None else ""
    return (outside(seen.seen_at.strftime("%Y-%m-%d %H:%M:%S.%f")[:23]), outside(context.host, limit=80),
            outside(context.profile or "—", limit=40), outside(str(seen.path), limit=120), outside("cue-out"),
            Text(SEEN_OUTCOME, style="bold cyan"), Text("not sent from this console", style="dim"),
            Text(f"{splice}{planned}", style="cyan"), Text("—", style="dim"))


def detail_text(send: AuditedSend) -> Text:
    text = Text()
    append_outside(text, send.time)
    text.append("  ")
    append_outside(text, send.action, "bold")
    text.append(" to ")
    append_outside(text, send.stream_path, "bold")
    text.append(" on ")
    append_outside(text, send.server, "bold")
    if send.profile:
        text.append(" · profile ")
        append_outside(text, send.profile, "bold")
    text.append("\nrequest: POST ")
    append_outside(text, send.api_path or "—")
    text.append("\noutcome: ")
    if send.outcome_recorded:
        text.append_text(outcome_text(send))
        text.append("  server message: ")
        append_outside(text, send.message)
    else:
        text.append(OUTCOME_UNKNOWN, style="bold magenta")
        text.append(" (an intent with no outcome: the console stopped before the answer)")
    text.append("\nbody exactly as sent:\n", style="bold")
    append_outside(text, body_json(send, indent=2), limit=None)
    text.append("\nplaylist:", style="bold")
    if not send.confirmations:
        text.append(" no confirmation recorded")
    for confirmation in send.confirmations:
        text.append("\n  ")
        append_outside(text, f"{confirmation.time}  {confirmation.detail}")
    return text


class AdEventDetail(ModalScreen[None]):
    """One send in full: the exact body and every confirmation line."""

    CSS_PATH = str(Path(__file__).resolve().parents[1] / "adops" / DIALOGS_CSS)
    BINDINGS = [Binding("escape,enter", "app.pop_screen", "Close", id="close_ad_event")]

    def __init__(self, send: AuditedSend) -> None:
        super().__init__()
        self._send = send

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="adops-dialog") as box:
            box.border_title = outside(f"event {self._send.send_id[:8]}", limit=20)
            yield Static(detail_text(self._send), id="event-detail")


class AdEventsScreen(Screen[None]):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "adops" / DIALOGS_CSS)
    BINDINGS = [
        Binding("escape", "close", "Back", id="close_ad_events"),
        Binding("r", "reload", "Reload", id="reload_ad_events", tooltip="Read the audit log again"),
    ]

    def __init__(self, audit: AuditLog, context: ServerContext, clock: Clock, *,
                 status_line: Callable[[], StatusLine],
                 seen: Callable[[], Sequence[FirstSeen]] = lambda: ()) -> None:
        """`seen`: breaks this console saw in playlists without having sent them (this run's)."""
        super().__init__()
        self._seen = seen
        self._seen_shown: Sequence[FirstSeen] = ()
        self._status_line = status_line
        self._audit = audit
        self._server = context
        self._clock = clock
        self._contents = AuditContents([], 0)
        self._sends: dict[str, AuditedSend] = {}
        self._read_stamp: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Static(context_text(self._server), id="events-context")
        with Horizontal(id="events-filters"):
            yield Label("server ")
            yield Select[str]([], prompt="all servers", id="server-filter", compact=True)
            yield Label("  profile ")
            yield Select[ProfileChoice]([], prompt="all profiles", id="profile-filter", compact=True)
        yield Static(id="events-summary")
        yield KeyedTable(id="events", cursor_type="row", zebra_stripes=True)
        yield TickingStatusBar(self._status_line, self._clock, id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.action_reload()
        self.query_one("#server-filter", Select).value = self._server.host  # this console's server first
        self.query_one(DataTable).focus()
        self._recheck()

    def action_close(self) -> None:
        self.dismiss()

    def action_reload(self) -> None:
        self._read_stamp = self._stamp()
        self._seen_shown = tuple(self._seen())
        self._contents = self._audit.read_all()
        self._sends = {send.send_id: send for send in self._contents.sends}
        self._offer(self.query_one("#server-filter", Select), (s.server for s in self._contents.sends),
                    self._server.host, outside)
        self._offer(self.query_one("#profile-filter", Select), ((s.profile,) for s in self._contents.sends),
                    (self._server.profile,), lambda choice: outside(choice[0] or NO_PROFILE))
        self._fill()

    @staticmethod
    def _offer(select: Select[Any], values: Iterable[Any], ours: Any, label: Any) -> None:
        """The choices a filter has: every value in the log (most used first) and this console's own."""
        counts = Counter(values)
        counts.setdefault(ours, 0)
        chosen = select.value
        options = [(label(value), value) for value, _ in counts.most_common()]
        with select.prevent(Select.Changed):
            select.set_options(options)
            if chosen in counts:
                select.value = chosen

    @on(Select.Changed)
    def _filtered(self) -> None:
        self._fill()

    def _shown(self) -> list[AuditedSend]:
        server = self.query_one("#server-filter", Select).value
        profile = self.query_one("#profile-filter", Select).value
        return [s for s in self._contents.sends
                if (server is Select.NULL or s.server == server)
                and (profile is Select.NULL or (s.profile,) == profile)]

    def _seen_in_view(self) -> list[FirstSeen]:
        """Breaks seen in playlists, when the filters include this console's server and profile."""
        server = self.query_one("#server-filter", Select).value
        profile = self.query_one("#profile-filter", Select).value
        ours = (server is Select.NULL or server == self._server.host) and (
            profile is Select.NULL or profile == (self._server.profile,))
        return list(self._seen_shown) if ours else []

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        shown = self._shown()
        seen = self._seen_in_view()
        # Newest first, sends and breaks seen together (both stamped in UTC, sortable as text).
        rows: list[tuple[str, str, tuple[Text, ...]]] = [
            (send.time.replace("T", " ")[:23], send.send_id, row(send)) for send in shown]
        rows += [(item.seen_at.strftime("%Y-%m-%d %H:%M:%S.%f")[:23], f"{SEEN_KEY}{index}",
                  seen_row(item, self._server)) for index, item in enumerate(seen)]
        rows.sort(key=lambda item: item[0])
        table.clear()
        for _, key, cells in reversed(rows):
            table.add_row(*cells, key=key)
        self.query_one("#events-summary", Static).update(self._summary(shown, len(seen)))

    def _summary(self, shown: list[AuditedSend], seen: int) -> Text:
        contents = self._contents
        text = Text(f"{len(shown)} of {len(contents.sends)} send(s) shown", style="bold")
        if seen:
            text.append(f" · {seen} break(s) {SEEN_OUTCOME}, not sent from this console", style="bold cyan")
        unknown = sum(1 for send in shown if not send.outcome_recorded)
        if unknown:
            text.append(f" · {unknown} {OUTCOME_UNKNOWN}", style="bold magenta")
        if contents.skipped_lines:
            text.append(f" · {contents.skipped_lines} unreadable line(s) skipped", style="bold yellow")
        if contents.dropped_sends:
            text.append(f" · {contents.dropped_sends} older send(s) not loaded", style="yellow")
        text.append(f"\nread {self._clock.wall().strftime('%H:%M:%S')} UTC from ", style="dim")
        append_outside(text, str(self._audit.path), "dim")
        return text

    def _stamp(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self._audit.path)
        except OSError:
            return None
        return info.st_size, info.st_mtime_ns

    def _reload_if_changed(self) -> None:
        if self.is_mounted and (self._stamp() != self._read_stamp or self._seen()[-1:] != self._seen_shown[-1:]):
            self.action_reload()

    def on_ad_ops_changed(self, message: AdOpsChanged) -> None:
        self._reload_if_changed()

    @work(group="ad-events-recheck", exclusive=True, exit_on_error=False)
    async def _recheck(self) -> None:
        while True:
            await self._clock.sleep(RECHECK_S)
            self._reload_if_changed()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        send = self._sends.get(str(event.row_key.value))
        if send is not None:
            self.app.push_screen(AdEventDetail(send))

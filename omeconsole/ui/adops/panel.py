"""The ad-break panel: the break's state and countdown, what the playlist showed, and its live tail.

It draws from a stream's controller only (`show(controller, context, now)`), so it can sit in any
screen that shows a stream. What it draws is kept in reactives of immutable values: a clock tick or
a change report that alters nothing redraws nothing. Everything that came from the server or the
playlist is drawn as data (`outside`). Marker lines are highlighted in the tail because they are
what the operator is looking for, and every marker still in the playlist is listed above the tail
(they scroll out of a short tail fast).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from omeconsole.api.emsg import DecodedFrame
from omeconsole.core.adops.ad_break import SOURCE_WORDS, BreakState, BreakView
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.context import ServerContext
from omeconsole.ui.adops.untrusted_text import append_outside, append_outside_lines, outside

TAIL_LINES = 16
CONFIRMATIONS_SHOWN = 4
_STATE_STYLE = {
    BreakState.IDLE: "dim",
    BreakState.SENT: "bold yellow",
    BreakState.SCHEDULED: "bold cyan",
    BreakState.ON_AIR: "bold reverse red",
    BreakState.ENDED: "bold green",
    BreakState.UNKNOWN: "bold magenta",
    BreakState.FAILED: "bold red",
}
MARKER_STYLE = "bold reverse yellow"


def countdown(seconds: float) -> str:
    """`0:24`, `12:05`, `1:02:03`: whole seconds, rounded up (a break never shows 0:00 while on air)."""
    whole = max(0, int(seconds + 0.999))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def break_badge(view: BreakView, now: datetime) -> Text | None:
    """The break in a few characters, for a tree row, a header or a status line: `AD 0:24` while on air,
    `AD in 0:03` before the splice, `AD sending…`, `AD ?` when the cue-out's outcome is unknown; None
    when there is no break to speak of."""
    style = _STATE_STYLE[view.state]
    if view.state is BreakState.ON_AIR:
        left = f" {countdown(view.remaining_s)}" if view.remaining_s is not None else ""
        return Text(f"AD{left}", style=style)
    if view.state is BreakState.SCHEDULED:
        ahead = (view.splice_wall - now).total_seconds() if view.splice_wall is not None else None
        return Text(f"AD in {countdown(ahead)}" if ahead is not None and ahead > 0 else "AD soon", style=style)
    if view.state is BreakState.SENT:
        return Text("AD sending…", style=style)
    if view.state is BreakState.UNKNOWN:
        return Text("AD ?", style=style)
    return None


def context_text(context: ServerContext) -> Text:
    """`127.0.0.1:8081 · profile prod` and the badges that change what a key does (read-only, demo)."""
    text = outside(context.host, "bold")
    if context.profile:
        text.append(" · profile ")
        append_outside(text, context.profile, "bold")
    if context.demo:
        text.append("  ")
        text.append(" DEMO ", style="bold reverse cyan")
    if context.read_only:
        text.append("  ")
        text.append(" READ-ONLY: nothing is sent ", style="bold reverse yellow")
    return text


def state_text(view: BreakView, now: datetime) -> Text:
    """The state in words, the countdown, where the splice time came from, what the playlist showed."""
    text = Text()
    text.append(f" {view.state.value.upper()} ", style=_STATE_STYLE[view.state])
    badge = break_badge(view, now)
    if view.state is BreakState.ON_AIR and badge is not None:
        text.append("  ")
        text.append_text(badge)
        text.append(" left" + (f" of {view.planned_s:g} s" if view.planned_s is not None else ""), style="bold")
    elif view.state is BreakState.SCHEDULED and badge is not None:
        text.append("  ")
        text.append_text(badge)
    text.append("  ")
    append_outside(text, view.message)
    if view.splice_wall is not None:
        source = SOURCE_WORDS[view.splice_source or "estimated"]
        text.append(f"\nsplice {view.splice_wall.strftime('%H:%M:%S.%f')[:-3]} UTC ({source})", style="dim")
        if view.ends_wall is not None:
            text.append(f" · ends {view.ends_wall.strftime('%H:%M:%S')} UTC", style="dim")
    if view.origin != "sent":
        text.append("\nnot sent from this console" if view.origin == "playlist"
                    else "\nsent by an earlier run of this console (audit log)", style="dim")
    if view.in_flight:
        text.append(f"\nsending {view.in_flight}…", style="yellow")
    for line in view.confirmations[-CONFIRMATIONS_SHOWN:]:
        text.append("\n")
        append_outside(text, line, "red" if "not seen" in line else "green")
    return text


def id3_text(frames: tuple[DecodedFrame, ...] | None) -> Text:
    if not frames:
        return Text("")
    text = Text("last ID3 in the media: ", style="bold")
    for index, frame in enumerate(frames):
        if index:
            text.append(", ")
        append_outside(text, frame.frame_type)
        if frame.info is not None:
            text.append(" ")
            append_outside(text, frame.info)
        text.append(" = ")
        append_outside(text, frame.data if frame.data is not None else "(none)", "bold")
    return text


MARKER_PREFIXES = ("#EXT-X-CUE", "#EXT-X-DATERANGE")
"""A playlist line that starts so is an ad marker (`line.startswith(MARKER_PREFIXES)`)."""


@dataclass(frozen=True)
class TailView:
    """What the tail shows: the playlist's lines (as read), or why it cannot be read."""

    lines: tuple[str, ...]
    problem: str | None
    url: str
    no_markers: str | None = None
    """The note on a server that writes no marker tags (its breaks show only as segment cuts)."""


def tail_text(tail: TailView) -> Text:
    if tail.problem:
        text = outside(f"playlist cannot be read: {tail.problem}", "bold red")
        text.append("\na splice is estimated from the server's rule (a keyframe interval after the request)",
                    style="bold red")
        return text
    if not tail.lines:
        return Text("reading the playlist…", style="dim")
    text = outside(tail.url, "dim")
    markers = [line for line in tail.lines if line.startswith(MARKER_PREFIXES)]
    if tail.no_markers is not None:
        text.append("\n")
        append_outside(text, tail.no_markers, "bold yellow")
    text.append(f"\nmarkers in the playlist: {len(markers) or 'none'}", style="bold")
    append_outside_lines(text, [(line, MARKER_STYLE) for line in markers])
    shown = tail.lines[-TAIL_LINES:]
    text.append(f"\nlast {len(shown)} lines:", style="bold")
    # Markers stand out, times in cyan, the rest dimmed.
    return append_outside_lines(text, [(line, MARKER_STYLE if line.startswith(MARKER_PREFIXES)
                                        else "cyan" if line.startswith("#EXT-X-PROGRAM-DATE-TIME") else "dim")
                                       for line in shown])


class AdBreakPanel(VerticalScroll):
    """Call `show(...)` on every change report and clock tick; only what changed is redrawn."""

    shown_break: reactive[tuple[BreakView, datetime] | None] = reactive(None, init=False)
    shown_id3: reactive[tuple[DecodedFrame, ...] | None] = reactive(None, init=False)
    shown_tail: reactive[TailView | None] = reactive(None, init=False)
    shown_context: reactive[ServerContext | None] = reactive(None, init=False)

    def compose(self) -> ComposeResult:
        yield Static(id="adbreak-context")
        yield Static(id="adbreak-state")
        yield Static(id="adbreak-id3")
        yield Static(id="adbreak-tail")

    def show(self, controller: StreamController, context: ServerContext, now: datetime) -> None:
        if self.border_title is None:
            self.border_title = outside(f"ad break · {controller.path}")
        self.shown_context = context
        self.shown_break = (controller.view(), now)
        self.shown_id3 = controller.last_id3
        playlist = controller.playlist
        markers = controller.markers
        self.shown_tail = TailView(playlist.lines if playlist is not None else (), controller.playlist_problem,
                                   controller.playlist_url, markers.note if markers.cuts_segment_only else None)

    def watch_shown_context(self, context: ServerContext | None) -> None:
        if context is not None:
            self.query_one("#adbreak-context", Static).update(context_text(context))

    def watch_shown_break(self, view: tuple[BreakView, datetime] | None) -> None:
        if view is not None:
            self.query_one("#adbreak-state", Static).update(state_text(*view))

    def watch_shown_id3(self, frames: tuple[DecodedFrame, ...] | None) -> None:
        self.query_one("#adbreak-id3", Static).update(id3_text(frames))

    def watch_shown_tail(self, tail: TailView | None) -> None:
        if tail is not None:
            self.query_one("#adbreak-tail", Static).update(tail_text(tail))

"""The ad-break panel: the break's state and countdown, what the playlist showed, and its live tail.

It draws from the stream's controller only (its break and the last playlist it read),
so it can be embedded anywhere a stream is shown. Cue and date-range lines are highlighted in the
tail because those are what the operator is looking for.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from omeconsole.api.emsg import DecodedFrame
from omeconsole.core.adops.ad_break import BreakState, BreakView
from omeconsole.core.adops.controller import StreamController

TAIL_LINES = 16
_STATE_STYLE = {
    BreakState.IDLE: "dim",
    BreakState.SENT: "bold yellow",
    BreakState.SCHEDULED: "bold cyan",
    BreakState.ON_AIR: "bold reverse red",
    BreakState.ENDED: "bold green",
    BreakState.UNKNOWN: "bold magenta",
    BreakState.FAILED: "bold red",
}


def state_text(view: BreakView, read_only: bool) -> Text:
    text = Text()
    if read_only:
        text.append(" READ-ONLY: sends are disabled ", style="bold reverse yellow")
        text.append("\n")
    text.append(f" {view.state.value.upper()} ", style=_STATE_STYLE[view.state])
    if view.state is BreakState.ON_AIR and view.remaining_s is not None:
        text.append(f"  {_clock(view.remaining_s)} left", style="bold")
        if view.planned_s is not None:
            text.append(f" of {view.planned_s:g} s")
    text.append(f"  {view.message}")
    if view.splice_wall is not None:
        source = "playlist" if view.from_playlist else "estimated from the API answer"
        text.append(f"\nsplice {view.splice_wall.strftime('%H:%M:%S.%f')[:-3]} ({source})", style="dim")
    if view.in_flight:
        text.append(f"\nsending {view.in_flight}…", style="yellow")
    for line in view.confirmations[-4:]:
        text.append("\n")
        text.append(line, style="red" if "not seen" in line else "green")
    return text


def is_marker_line(line: str) -> bool:
    return line.startswith(("#EXT-X-CUE", "#EXT-X-DATERANGE"))


def tail_text(lines: tuple[str, ...], unavailable: str | None, url: str = "") -> Text:
    """Every marker line still in the playlist (they scroll out of a short tail fast), then the tail."""
    if unavailable:
        return Text(f"playlist cannot be read: {unavailable}\nrelying on the API answer alone", style="bold red")
    if not lines:
        return Text("reading the playlist…", style="dim")
    text = Text(f"{url}\n", style="dim")
    markers = [line for line in lines if is_marker_line(line)]
    text.append(f"markers in the playlist: {len(markers) or 'none'}\n", style="bold")
    for line in markers:
        text.append(line, style="bold reverse yellow")
        text.append("\n")
    text.append(f"last {min(TAIL_LINES, len(lines))} lines:\n", style="bold")
    for line in lines[-TAIL_LINES:]:
        if is_marker_line(line):
            text.append(line, style="bold reverse yellow")
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME"):
            text.append(line, style="cyan")
        else:
            text.append(line, style="dim")
        text.append("\n")
    return text


def id3_text(frames: tuple[DecodedFrame, ...] | None) -> Text:
    if not frames:
        return Text("")
    text = Text("last ID3 in the media: ", style="bold")
    text.append(", ".join(_frame(f) for f in frames))
    return text


def _frame(frame: DecodedFrame) -> str:
    if frame.info is not None:
        return f"{frame.frame_type} {frame.info}={frame.data!r}"
    return f"{frame.frame_type}={frame.data!r}"


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.999)
    return f"{whole // 60:d}:{whole % 60:02d}"


class AdBreakPanel(VerticalScroll):
    """Call `show(entry, ...)` whenever AdOps reports or the clock ticks."""

    DEFAULT_CSS = """
    AdBreakPanel { height: 1fr; border: round $primary; padding: 0 1; }
    AdBreakPanel #adbreak-state { height: auto; margin-bottom: 1; }
    AdBreakPanel #adbreak-id3 { height: auto; }
    AdBreakPanel #adbreak-tail { height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="adbreak-state")
        yield Static(id="adbreak-id3")
        yield Static(id="adbreak-tail")

    def show(self, entry: StreamController, *, read_only: bool, last_id3: tuple[DecodedFrame, ...] | None) -> None:
        self.border_title = f"ad break · {entry.path}"
        view = entry.view()
        playlist = entry.playlist
        self.query_one("#adbreak-state", Static).update(state_text(view, read_only))
        self.query_one("#adbreak-id3", Static).update(id3_text(last_id3))
        self.query_one("#adbreak-tail", Static).update(
            tail_text(playlist.lines if playlist else (), entry.playlist_problem, entry.playlist_url))

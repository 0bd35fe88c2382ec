"""The events of the selected node, under its chart: what each is, its local time(s) and how long it lasted.

`ad break news 12:03:04-12:03:34 (30 s)`, `alert ingest-stalled firing 12:05:10- (1 min 20 s so far)`,
`restart 12:07:00` (the dash drawn as an en dash): newest first, at most `SHOWN` lines (then how many
earlier ones are not shown). Times are local, turned from the console's clock with the one instant the
screen drew with (`ShownEvents`).
Names from servers or config (alert rules, streams) go through `core.text.visible`. Hidden while the node
has no events and nothing to say about the kinds it cannot show.

`KIND_STYLES` is how each kind is drawn on the chart (glyph, colour); `chart_marks` places events on the
chart's time axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text

from omeconsole.core.text import visible
from omeconsole.core.timeline import EventKind, NodeEvent, name_under, wall_at
from omeconsole.model.paths import NodePath
from omeconsole.ui.palette import PaletteStatic
from omeconsole.ui.widgets.throughput_chart import ChartMark, MarkStyle

DASH = "\N{EN DASH}"
SHOWN = 6
"""Events listed at most; older ones are counted."""
NAME_LIMIT = 80
"""Characters of an alert's or a stream's name shown."""
KIND_STYLES: dict[EventKind, MarkStyle] = {
    EventKind.AD_BREAK: MarkStyle("AD", "ad break", "rate-out"),
    EventKind.ALERT: MarkStyle("⚑", "alert firing", "state-stale"),
    EventKind.START: MarkStyle("▶", "start", "state-live"),
    EventKind.END: MarkStyle("■", "end", "state-ended"),
    EventKind.RESTART: MarkStyle("↻", "restart", "state-stale"),
}
"""Glyphs as the rest of the console uses them (`AD` on rows, `⚑` for alerts); colours are theme variables."""


@dataclass(frozen=True)
class ShownEvents:
    """What the list and the chart show of one node at one instant of the screen."""

    viewed: NodePath
    events: Sequence[NodeEvent]
    """Newest first."""
    now: float
    """The screen's instant on the console's monotonic clock ..."""
    wall_now: datetime
    """... and the same instant on its wall clock."""
    unseen: str = ""
    """Which kinds cannot be shown here, and why ("" when all can)."""


def chart_marks(shown: ShownEvents, reference: float) -> list[ChartMark]:
    """The events on the chart's axis: seconds before `reference`, the instant the series are drawn against
    (the latest reading); oldest first so newer ones are drawn over them; a span still going on reaches the
    chart's right end (so the marks change only when something happened or a reading arrived)."""
    return [ChartMark(e.start - reference, (0.0 if e.end is None else e.end - reference) if e.kind.spans else None,
                      KIND_STYLES[e.kind]) for e in reversed(shown.events)]


def lasted(seconds: float) -> str:
    """How long, in whole seconds: `30 s`, `1 min 20 s`, `2 h 05 min`."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _clock(moment: datetime) -> str:
    return moment.astimezone().strftime("%H:%M:%S")


def event_line(event: NodeEvent, shown: ShownEvents) -> str:
    """One event in words (see the module); server and config text through `visible`."""
    style = KIND_STYLES[event.kind]
    words = [event.kind.value]
    if event.kind is EventKind.ALERT:
        words.append(visible(event.label, NAME_LIMIT))
    name = name_under(event, shown.viewed)
    if name:
        words.append(visible(name, NAME_LIMIT))
    if event.kind is EventKind.ALERT:
        words.append("firing")
    elif event.label:
        words.append(f"({visible(event.label, NAME_LIMIT)})")
    start = wall_at(event.start, shown.now, shown.wall_now)
    if not event.kind.spans:
        return f"{style.glyph} {' '.join(words)} {_clock(start)}"
    if event.end is None:
        so_far = lasted(shown.now - event.start)
        return f"{style.glyph} {' '.join(words)} {_clock(start)}{DASH} ({so_far} so far)"
    end = wall_at(event.end, shown.now, shown.wall_now)
    return f"{style.glyph} {' '.join(words)} {_clock(start)}{DASH}{_clock(end)} ({lasted(event.end - event.start)})"


class EventList(PaletteStatic):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._lines: tuple[str, ...] | None = None
        self._shown: ShownEvents | None = None

    def _draw(self) -> None:
        """Another theme: the lines again, in its colours."""
        if self._shown is not None:
            self._lines = None
            self.show(self._shown)

    def show(self, shown: ShownEvents) -> None:
        self._shown = shown
        lines = [event_line(event, shown) for event in shown.events[:SHOWN]]
        if len(shown.events) > SHOWN:
            lines.append(f"+{len(shown.events) - SHOWN} earlier")
        if shown.unseen:
            lines.append(shown.unseen)
        key = tuple(lines)
        if key == self._lines:
            return
        relayout = self._lines is None or len(self._lines) != len(key)
        self._lines = key
        self.display = bool(lines)
        muted = self._palette.built_with()["muted"]
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, line in enumerate(lines):
            if index:
                text.append("\n")
            text.append(line, style=muted if line == shown.unseen else "")
        self.update(text, layout=relayout)

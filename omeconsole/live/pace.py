"""When a real terminal is redrawn: one policy for every screen and widget that draws the engine's news.

The rule: **the selected node draws now; everything else waits for one interval.**

- A live screen (`ScreenPace`): a reading of its selected node is drawn when it arrives (unless one was drawn
  less than half a redraw gap ago: its second change in one polling round); the other nodes' reports wait for
  the selected node's next reading, at most `OTHERS_HOLD` redraw gaps, or for what is left of one gap when
  the selected node is not being read; a clock tick draws ages and countdowns only when no data redraw
  happened for `Pace.tick_redraw_after` and none is on its way.
- The bit-rate chart, the costliest widget: a node just selected is drawn at once, the same node's new points
  at most once per chart gap (`chart_gap`).
- A fleet's other servers (their rows, the fleet view): at most once per redraw gap, however many servers.

Every wait is an `Interval` on the console clock. Tests keep every gap at 0 (`Pace()`): each report is drawn
at once, so a test waits on what the screen shows, never on a gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

REDRAW_GAP = 0.9
"""Seconds (console clock) between data redraws in a real terminal; reports arriving faster are merged
into the next one. `Pace()` keeps 0 (every report redraws at once), which is what a test on a frozen
clock needs, since the merge waits on a real-time timer."""
CHART_GAP = 2.0
"""Seconds (console clock) between rebuilds of the bit-rate chart in a real terminal, its costliest
widget; the chart spans a minute or more, so one new point in two seconds reads the same. Tests keep 0."""
SETTLE_S = 0.05
"""Seconds a redraw waits at least for the rest of a polling round's reports."""
OTHERS_HOLD = 1.5
"""Reports of other nodes wait up to this many redraw gaps for the selected node's next reading."""


@dataclass(frozen=True)
class Pace:
    """How often a real terminal is redrawn; tests keep the zeros (every report drawn at once)."""

    redraw_gap: float = 0.0
    """Seconds (console clock) between data redraws; reports arriving faster are merged into the next one."""
    chart_gap: float = 0.0
    """Seconds between rebuilds of the bit-rate chart, the costliest widget; numbers follow every redraw."""
    tick_redraw_after: float = 0.9
    """A clock tick redraws (ages, countdowns) only if no data redraw happened for this long."""


def chart_gap_for(gap: float, *, same_node: bool) -> float:
    """The gap a chart's new points wait for: none for a node just selected, `gap` for more of the same node."""
    return gap if same_node else 0.0


class Interval:
    """One drawing made at most once per gap (seconds of the caller's clock)."""

    def __init__(self) -> None:
        self.drawn_at = -math.inf

    def wait(self, now: float, gap: float) -> float:
        """Seconds before it may be drawn again (0: now)."""
        return max(0.0, self.drawn_at + gap - now)

    def due(self, now: float, gap: float) -> bool:
        return now - self.drawn_at >= gap

    def drawn(self, now: float | None) -> None:
        """Drawn at `now`; None: drawn outside the pace (the next one is due at once)."""
        self.drawn_at = -math.inf if now is None else now


class ScreenPace:
    """A live screen's redraws under `pace`: when a report is drawn, and whether a clock tick draws."""

    def __init__(self, pace: Pace) -> None:
        self.pace = pace
        self._any = Interval()
        """Any redraw, data or clock tick."""
        self._data = Interval()
        """The last redraw of engine reports: the redraw gap counts from it, so a tick never delays data."""
        self._selected = Interval()
        """The last redraw that showed a report of the selected node."""
        self._selected_read_at = -math.inf

    def report(self, now: float, *, selected: bool) -> float:
        """A report arrived (`selected`: of the selected node): seconds before it is drawn (0: now)."""
        gap = self.pace.redraw_gap
        if selected:
            self._selected_read_at = now
        if gap <= 0 or (selected and self._selected.due(now, gap / 2)):
            return 0.0
        # While the selected node is being read, the rest waits for its next reading (a little longer than
        # a gap); otherwise what is left of the gap. Never a whole gap after its arrival.
        return max(SETTLE_S, self._data.wait(now, gap * OTHERS_HOLD if self._being_read(now) else gap))

    def data_drawn(self, now: float, *, selected: bool) -> None:
        """Reports were drawn (`selected`: the selected node's among them)."""
        self._data.drawn(now)
        if selected:
            self._selected.drawn(now)

    def drawn(self, now: float) -> None:
        self._any.drawn(now)

    def tick_due(self, now: float) -> bool:
        """Whether a clock tick draws ages now (the caller also checks that no data redraw is on its way)."""
        after = self.pace.tick_redraw_after
        if self._being_read(now):  # its next reading is due: it will draw the ages
            after = max(after, self.pace.redraw_gap * OTHERS_HOLD)
        return self._any.due(now, after)

    def _being_read(self, now: float) -> bool:
        return now - self._selected_read_at < 2 * self.pace.redraw_gap

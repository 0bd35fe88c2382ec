"""What the viewers chart draws: viewers over the chart's window, per playback protocol on a stream.

Viewers are playback sessions as `model.audience` defines them (llhls + hlsv3 + webrtc + srt, the
console's own playlist reads already taken off, see `core/polling/own_share.py`): the total is each
reading's `viewers`, a protocol's line its `connections_out` count. Relays, pushes, recordings and
thumbnail readers are not viewers and have no line.

The total comes from the node's compact series (up to an hour); the per-protocol counts only from its
full readings (the last `history_seconds`, 10 min by default) or, in a replay, from the samples kept
at full resolution (a tier's buckets keep the total only). Where the per-protocol lines cover less of
the window than the total, the panel says so instead of drawing zeros.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from omeconsole.model.audience import PLAYBACK
from omeconsole.model.nodes import NodeView
from omeconsole.model.readings import Sample
from omeconsole.ui.widgets.throughput_chart import COUNT, Panel, Series

TITLE = "viewers"
TOTAL = "total"
COLOURS = {"llhls": "rate-out", "hlsv3": "accent", "webrtc": "state-live", "srt": "meter", TOTAL: "foreground"}
"""The palette colour of each line (`ui/palette`; the legend names them: colour is never the only cue). The total
has none of its own: it is drawn in the chart's text colour."""


def total_line(view: NodeView, now: float, window: float) -> Series:
    """Viewers of the last `window` seconds against seconds before `now`: from the compact series, else
    from the full readings."""
    since = now - window
    if len(view.series):
        columns = view.series.columns(since)
        at, counts = columns.at, columns.viewers
    else:
        recent = [s for s in view.history if s.at >= since]
        at, counts = [s.at for s in recent], [s.viewers for s in recent]
    return Series(TOTAL, [round(t - now, 3) for t in at], [None if c is None else float(c) for c in counts],
                  COLOURS[TOTAL], COUNT)


def labelled(name: str, ys: Sequence[float | None]) -> str:
    """A legend's entry: the line's name and its latest count (`llhls 12`); the name alone without one."""
    latest = next((y for y in reversed(ys) if y is not None), None)
    return name if latest is None else f"{name} {round(latest):,}"


def protocol_lines(samples: Sequence[Sample], now: float) -> list[Series]:
    """One line per playback protocol that had a viewer in `samples`, named with its latest count (a count
    is None where a reading has no per-protocol counts: a gap, never a zero)."""
    xs = [round(s.at - now, 3) for s in samples]
    lines = []
    for protocol in PLAYBACK:
        ys = [None if s.stats.connections_out is None else float(s.stats.connections_out.get(protocol, 0))
              for s in samples]
        if any(ys):
            lines.append(Series(labelled(protocol, ys), xs, ys, COLOURS[protocol], COUNT))
    return lines


def coverage_note(total: Series, samples: Sequence[Sample], now: float) -> str:
    """What the per-protocol lines lack against the total: "" when they cover as much of the window."""
    known = [s.at for s in samples if s.stats.connections_out is not None]
    drawn = [x for x, y in zip(total.xs, total.ys, strict=True) if y is not None]
    if not drawn:
        return ""
    if not known:
        return "per protocol not recorded"
    spacing = (known[-1] - known[0]) / (len(known) - 1) if len(known) > 1 else 0.0
    since = known[0] - now
    if since - drawn[0] <= max(2.0 * spacing, 1.0):
        return ""
    return f"per protocol: last {_span(-since)}"


def _span(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def viewers_chart(view: NodeView, now: float, window: float) -> Series | Panel:
    """The viewers panel: on a stream, a line per playback protocol that had viewers (and the total when
    there are several, or when the protocols' lines cover less of the window), with a legend; on any
    other node, the total alone."""
    total = total_line(view, now, window)
    if view.path.level != "stream":
        return Series(TITLE, total.xs, total.ys, total.colour_variable, COUNT)
    since = now - window
    samples = [s for s in view.history if s.at >= since]
    lines = protocol_lines(samples, now)
    note = coverage_note(total, samples, now)
    shown = (*lines, replace(total, label=labelled(TOTAL, total.ys))) if len(lines) != 1 or note else tuple(lines)
    return Panel(TITLE, shown, note)

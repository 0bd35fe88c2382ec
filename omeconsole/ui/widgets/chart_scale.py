"""The arithmetic of the bit-rate charts and sparklines, free of any drawing library.

- `downsample`: the samples of a time window reduced to at most two points (the lowest and the
  highest, in the order they happened) per column of the plot, so a chart's cost follows its width,
  never the length of the history, and a one-second spike survives.
- `runs`: where the line breaks. A sample without a rate (None) or a silence much longer than the
  usual spacing between samples is a gap, drawn as a gap, never bridged.
- `robust_top`: the top of the y axis. A moment's outlier (at most 5 % of the points, at least 1.5 times
  the rest) does not set the scale; it is drawn clipped at the top and named.
- `rate_axis` / `time_axis`: round ticks (1-2-5 steps) with the unit on the axis.
- `spark_levels`: the sparkline rule (see its docstring).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

WINDOWS = (60.0, 300.0, 900.0, 3600.0)
"""The chart windows the keys choose between, in seconds: 1 min, 5 min, 15 min, 1 h."""

_RATE_UNITS = ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s"))
GAP_FACTOR = 3.0
"""A silence this many times the usual spacing between samples is a gap."""
OUTLIER_SHARE = 0.05
OUTLIER_FACTOR = 1.5
SPARK_BARS = "▁▂▃▄▅▆▇█"


def window_label(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


Run = tuple[list[float], list[float]]
"""One unbroken stretch of line: x (seconds, negative = past) and y (bits per second)."""


def runs(xs: Sequence[float], ys: Sequence[float | None], start: float, end: float) -> list[Run]:
    """The known points inside [start, end], split where a rate is missing or the samples fall silent."""
    first = bisect_left(xs, start)
    last = bisect_left(xs, end, lo=first)
    if last < len(xs) and xs[last] == end:
        last += 1
    spacing = _usual_spacing(xs[first:last])
    out: list[Run] = []
    current: Run = ([], [])
    previous_x: float | None = None
    for i in range(first, last):
        x, y = xs[i], ys[i]
        silent = previous_x is not None and spacing is not None and x - previous_x > GAP_FACTOR * spacing
        if (y is None or silent or not math.isfinite(y)) and current[0]:
            out.append(current)
            current = ([], [])
        if y is not None and math.isfinite(y):
            current[0].append(x)
            current[1].append(y)
        previous_x = x
    if current[0]:
        out.append(current)
    return out


def _usual_spacing(xs: Sequence[float]) -> float | None:
    if len(xs) < 3:
        return None
    steps = sorted(b - a for a, b in pairwise(xs))
    return steps[len(steps) // 2] or None


def downsample(run: Run, start: float, end: float, columns: int) -> Run:
    """At most two points per column of [start, end]: the lowest and the highest, in time order."""
    xs, ys = run
    if len(xs) <= 2 * columns or columns <= 0:
        return run
    width = (end - start) / columns
    out_x: list[float] = []
    out_y: list[float] = []
    i, n = 0, len(xs)
    while i < n:
        column = min(columns - 1, int((xs[i] - start) / width))
        low = high = i
        j = i + 1
        while j < n and min(columns - 1, int((xs[j] - start) / width)) == column:
            if ys[j] < ys[low]:
                low = j
            if ys[j] > ys[high]:
                high = j
            j += 1
        for k in sorted({low, high}):
            out_x.append(xs[k])
            out_y.append(ys[k])
        i = j
    return out_x, out_y


@dataclass(frozen=True)
class Top:
    value: float
    """The y axis ends here (before rounding up to a tick)."""
    clipped_peak: float | None = None
    """The highest value left above the axis (drawn at the top, marked), or None."""


def robust_top(values: Sequence[float]) -> Top:
    """The scale's top: the highest value, unless a few points (a moment's outlier) stand far above the rest."""
    if not values:
        return Top(0.0)
    ordered = sorted(values)
    peak = ordered[-1]
    if len(ordered) < 8:
        return Top(peak)
    spare = max(2, int(len(ordered) * OUTLIER_SHARE))
    rest = ordered[-1 - spare]
    if rest > 0 and peak > OUTLIER_FACTOR * rest:
        return Top(rest, peak)
    return Top(peak)


def rate_unit(bps: float) -> tuple[float, str]:
    for factor, unit in _RATE_UNITS:
        if abs(bps) >= factor:
            return factor, unit
    return 1.0, "b/s"


def nice_step(span: float, count: int) -> float:
    """The 1-2-5 step that divides `span` into at most `count` intervals."""
    raw = span / max(1, count)
    magnitude: float = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if multiple * magnitude >= raw * (1 - 1e-9):
            return multiple * magnitude
    return 10 * magnitude


@dataclass(frozen=True)
class Axis:
    top: float
    ticks: list[float]
    labels: list[str]


def rate_axis(top: float, intervals: int) -> Axis:
    """0 to a round top in 1-2-5 steps of bits per second; the top label carries the unit ("6 Mb/s")."""
    top = top if top > 0 else 1000.0
    step = nice_step(top, intervals)
    count = math.ceil(top / step - 1e-9)
    axis_top = count * step
    factor, unit = rate_unit(axis_top)
    decimals = max(0, -math.floor(math.log10(step / factor) + 1e-9))
    ticks = [i * step for i in range(count + 1)]
    labels = [f"{tick / factor:.{decimals}f}" if tick else "0" for tick in ticks]
    labels[-1] = f"{labels[-1]} {unit}"
    return Axis(axis_top, ticks, labels)


def time_axis(window: float, width: int) -> Axis:
    """Ticks from -window to now at round times, as many as fit `width` columns (a label needs ~8)."""
    steps = [s for s in (5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0) if window % s == 0]
    step = next((s for s in steps if window / s <= max(1, width // 8)), window)
    ticks = [-window + i * step for i in range(int(window // step) + 1)]
    return Axis(0.0, ticks, [_ago(t, minutes=step >= 60) for t in ticks])


def _ago(seconds: float, *, minutes: bool) -> str:
    if seconds == 0:
        return "now"
    whole = round(-seconds)
    return f"-{whole // 60}m" if minutes else f"-{whole}s"


def spark_levels(values: Sequence[float | None], columns: int) -> list[int | None]:
    """The sparkline rule: one level (0-7) per column, None for a column with no reading.

    Each column shows the highest value of its slice of the data (spikes stay visible). The scale is a
    band at least a quarter of the peak tall, centred on the data: a rate that moves by more than a
    quarter of its peak spans the whole height (its lowest value on the floor, its highest at the
    top), and a steady rate draws a flat line at mid height instead of a solid bar or magnified noise.
    A known value is never blank (at least ▁); zero sits on the floor when the band starts at zero.
    """
    if columns <= 0 or not values:
        return []
    columns = min(columns, len(values))
    per_column: list[float | None] = []
    for c in range(columns):
        chunk = [v for v in values[c * len(values) // columns: (c + 1) * len(values) // columns] if v is not None]
        per_column.append(max(chunk) if chunk else None)
    known = [v for v in per_column if v is not None]
    if not known:
        return [None] * columns
    low, high = min(known), max(known)
    band = max(high - low, high / 4)
    if band <= 0:
        return [0 if v is not None else None for v in per_column]
    floor = max(0.0, low - (band - (high - low)) / 2)
    top = len(SPARK_BARS) - 1
    return [None if v is None else max(0, min(top, round((v - floor) / band * top))) for v in per_column]

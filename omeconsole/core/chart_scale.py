"""The arithmetic of the bit-rate charts and sparklines, free of any drawing library.

- `downsample`: the samples of a time window reduced to at most two points (the lowest and the
  highest, in the order they happened) per column of the plot, so a chart's cost follows its width,
  never the length of the history, and a one-second spike survives.
- `runs`: where the line breaks. A sample without a rate (None) or a silence much longer than the
  usual spacing between samples is a gap, drawn as a gap, never bridged.
- `robust_top`: the top of the y axis. A moment's outlier (at most 5 % of the points, at least 1.5 times
  the rest) does not set the scale; it is drawn clipped at the top and named.
- `rate_axis` / `time_axis`: round ticks (1-2-5 steps) with the unit on the axis.
- `count_axis`: whole-number ticks (1-2-5 steps, never a fraction) for counts such as viewers.
- `spark_levels`: the sparkline rule (see its docstring).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import cast

WINDOWS = (60.0, 300.0, 900.0, 3600.0)
"""The chart windows the keys choose between, in seconds: 1 min, 5 min, 15 min, 1 h."""

_RATE_UNITS = ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s"))
GAP_FACTOR = 3.0
"""A silence this many times the usual (average) spacing between samples is a gap."""
OUTLIER_SHARE = 0.05
OUTLIER_FACTOR = 1.5
SPARK_BARS = "▁▂▃▄▅▆▇█"


def window_label(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


Run = tuple[list[float], list[float]]
"""One unbroken stretch of line: x (seconds, negative = past) and y (bits per second)."""


def runs(xs: Sequence[float], ys: Sequence[float | None], start: float, end: float) -> list[Run]:
    """The known points inside [start, end], split where a rate is missing or the samples fall silent.

    Written for long histories: two passes of comprehensions and slices, no per-point bookkeeping.
    """
    first, last = bisect_left(xs, start), bisect_right(xs, end)
    count = last - first
    if count <= 0:
        return []
    # The usual spacing is the window's average: a silence stands far above it even when it is long.
    limit = GAP_FACTOR * (xs[last - 1] - xs[first]) / (count - 1) if count >= 3 else math.inf
    inf = math.inf
    unknown = [i for i, y in enumerate(ys[first:last], first) if y is None or not -inf < y < inf]
    silences = [i for i in range(first + 1, last) if xs[i] - xs[i - 1] > limit]
    edges = sorted({first, last, *silences, *unknown, *(i + 1 for i in unknown)})
    skip = set(unknown)
    # Between two edges every rate is known: the slices hold floats only.
    return [(list(xs[a:b]), cast(list[float], list(ys[a:b]))) for a, b in pairwise(edges) if a not in skip]


def downsample(run: Run, start: float, end: float, columns: int) -> Run:
    """At most two points per column of [start, end]: the lowest and the highest, in time order."""
    xs, ys = run
    if len(xs) <= 2 * columns or columns <= 0:
        return run
    width = (end - start) / columns
    out_x: list[float] = []
    out_y: list[float] = []
    i = 0
    for column in range(columns):
        j = bisect_left(xs, start + (column + 1) * width, lo=i) if column < columns - 1 else len(xs)
        if j > i:
            values = ys[i:j]
            for k in sorted({values.index(min(values)), values.index(max(values))}):
                out_x.append(xs[i + k])
                out_y.append(values[k])
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


def count_axis(top: float, intervals: int) -> Axis:
    """0 to a round whole top in 1-2-5 steps of at least 1 (a count has no halves); labels with thousands
    separators ("1,200"). Nothing counted: the scale is 0 to 1."""
    step = max(1.0, nice_step(top, intervals)) if top > 0 else 1.0
    count = max(1, math.ceil(top / step - 1e-9))
    ticks = [i * step for i in range(count + 1)]
    return Axis(count * step, ticks, [f"{round(tick):,}" for tick in ticks])


def time_axis(window: float, width: int, end: str = "now") -> Axis:
    """Ticks from -window to the chart's end at round times, as many as fit `width` columns (a label needs
    ~8). `end`: what the right edge is called ("now"; "end" for a stream that ended)."""
    steps = [s for s in (5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0) if window % s == 0]
    step = next((s for s in steps if window / s <= max(1, width // 8)), window)
    ticks = [-window + i * step for i in range(int(window // step) + 1)]
    return Axis(0.0, ticks, [_ago(t, end, minutes=step >= 60) for t in ticks])


def _ago(seconds: float, end: str, *, minutes: bool) -> str:
    if seconds == 0:
        return end
    whole = round(-seconds)
    return f"-{whole // 60}m" if minutes else f"-{whole}s"


def time_columns(xs: Sequence[float], ys: Sequence[float | None], window: float, columns: int) -> list[float | None]:
    """One value per column over the chart's window: column c spans seconds [-window + c·w/n, -window + (c+1)·w/n)
    before now (`xs`: seconds before now, ascending, 0 or less), its value the highest reading over it (spikes
    stay visible). A reading holds until the next one, up to 1.5 times the usual spacing of readings, so a
    column narrower than that spacing is not blank between two readings; a longer silence, time before the
    first reading, or a reading without a rate is blank: the same instants as the chart's, blank where no data."""
    if columns <= 0 or window <= 0:
        return []
    steps = sorted(b - a for a, b in pairwise(xs) if b > a)
    hold = 1.5 * steps[len(steps) // 2] if steps else 0.0
    per_column: list[float | None] = [None] * columns

    def column_of(x: float) -> int:
        return min(columns - 1, max(0, int((x + window) / window * columns)))

    for index, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y is None or x < -window:
            continue
        following = xs[index + 1] if index + 1 < len(xs) else x
        until = min(following, x + hold)
        last = column_of(until) - 1 if until > x and column_of(until) > column_of(x) else column_of(x)
        for column in range(column_of(x), last + 1):
            current = per_column[column]
            per_column[column] = y if current is None else max(current, y)
    return per_column


def spark_levels(values: Sequence[float | None], columns: int) -> list[int | None]:
    """The sparkline rule: one level (0-7) per column, None for a column with no reading.

    Each column shows the highest value of its slice of the data (spikes stay visible). The scale is a
    band at least a quarter of the peak tall, centred on the data: a rate that moves by more than a
    quarter of its peak spans the whole height (its lowest value on the floor, its highest at the
    top), and a steady rate draws a flat line at mid height instead of a solid bar or magnified noise.
    The peak is the chart's robust top: a moment's outlier is a full bar, not the scale of the rest.
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
    low, high = min(known), robust_top(known).value
    band = max(high - low, high / 4)
    if band <= 0:
        return [0 if v is not None else None for v in per_column]
    floor = max(0.0, low - (band - (high - low)) / 2)
    top = len(SPARK_BARS) - 1
    return [None if v is None else max(0, min(top, round((v - floor) / band * top))) for v in per_column]

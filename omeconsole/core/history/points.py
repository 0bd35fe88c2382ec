"""Points of a node's history at a chosen resolution, with gaps as gaps and the sampling said honestly.

A point is either one sample as taken (`span == 0`) or a bucket of `span` seconds. A bucket with no
sample is a gap: every value None. In a bucket, bytes are the bytes moved (exact, summed), rates are
those bytes over the time they were moved in, and the extremes are the extremes of the samples in it.
Buckets merge without losing anything: sums add, extremes compare, the last reading stays last.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from omeconsole.model.paths import NodePath

NICE_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400)
GAP_FACTOR = 2.5
"""Samples further apart than this many times the node's usual spacing have a gap between them."""
MAX_POINTS = 500_000


@dataclass(frozen=True, slots=True)
class Row:
    """One stored sample or tier bucket, in the shape both share (a sample is a bucket of one)."""

    start: float
    samples: int
    span: float
    delta_in: int
    delta_out: int
    last_at: float
    viewers: int | None
    viewers_min: int | None
    viewers_max: int | None
    viewers_max_at: float | None
    rate_in_min: float | None
    rate_in_max: float | None
    rate_out_min: float | None
    rate_out_max: float | None
    total_in: int | None
    total_out: int | None
    rate_in: float | None = None
    """A sample's own rate as the console computed it (None for buckets)."""
    rate_out: float | None = None


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    at: float
    """Epoch seconds: the sample's time, or the bucket's start."""
    span: float
    """0 for a sample as taken; the bucket's length otherwise."""
    samples: int
    """Samples in it; 0 is a gap and every value below is None."""
    rate_in_bps: float | None = None
    """A sample's rate as the console showed it; a bucket's bytes * 8 over the seconds they moved in."""
    rate_out_bps: float | None = None
    rate_in_max_bps: float | None = None
    rate_out_max_bps: float | None = None
    rate_out_min_bps: float | None = None
    viewers: int | None = None
    """The last reading in it."""
    viewers_min: int | None = None
    viewers_max: int | None = None
    viewers_max_at: float | None = None
    bytes_in: int | None = None
    """Bytes moved in it (since the previous sample, for a sample as taken)."""
    bytes_out: int | None = None
    total_in: int | None = None
    """The server's byte counter at the last reading in it."""
    total_out: int | None = None

    @property
    def gap(self) -> bool:
        return self.samples == 0


@dataclass(frozen=True, slots=True)
class HistorySeries:
    server: str
    path: NodePath
    start: float
    end: float
    step: float | None
    """Seconds per point, or None: every sample as taken."""
    source: str
    """Where the points come from: "full resolution" or a tier such as "10 s buckets"."""
    source_step: int
    """0 for full resolution, else the tier's step."""
    points: tuple[HistoryPoint, ...]
    sampled_every: float | None
    """The node's usual seconds between samples over the range (None: fewer than two samples)."""

    def bytes_total(self) -> tuple[int, int]:
        return (sum(p.bytes_in or 0 for p in self.points), sum(p.bytes_out or 0 for p in self.points))


def _least(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _most(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def merge(rows: Sequence[Row], start: float) -> Row:
    """Rows in time order as one bucket starting at `start`."""
    first = rows[0]
    if len(rows) == 1 and first.start == start:
        return first
    if len(rows) == 1:
        return Row(start, first.samples, first.span, first.delta_in, first.delta_out, first.last_at, first.viewers,
                   first.viewers_min, first.viewers_max, first.viewers_max_at, first.rate_in_min,
                   first.rate_in_max, first.rate_out_min, first.rate_out_max, first.total_in, first.total_out)
    viewers_max, viewers_max_at = first.viewers_max, first.viewers_max_at
    viewers = first.viewers
    merged = [first.samples, first.span, first.delta_in, first.delta_out]
    lows: list[float | None] = [first.viewers_min, first.rate_in_min, first.rate_out_min]
    highs: list[float | None] = [first.rate_in_max, first.rate_out_max]
    totals = [first.total_in, first.total_out]
    for row in rows[1:]:
        merged = [merged[0] + row.samples, merged[1] + row.span, merged[2] + row.delta_in, merged[3] + row.delta_out]
        if row.viewers_max is not None and (viewers_max is None or row.viewers_max > viewers_max):
            viewers_max, viewers_max_at = row.viewers_max, row.viewers_max_at
        viewers = row.viewers if row.viewers is not None else viewers
        lows = [_least(lows[0], row.viewers_min), _least(lows[1], row.rate_in_min), _least(lows[2], row.rate_out_min)]
        highs = [_most(highs[0], row.rate_in_max), _most(highs[1], row.rate_out_max)]
        totals = [row.total_in if row.total_in is not None else totals[0],
                  row.total_out if row.total_out is not None else totals[1]]
    viewers_min = None if lows[0] is None else int(lows[0])
    return Row(start, int(merged[0]), float(merged[1]), int(merged[2]), int(merged[3]), rows[-1].last_at, viewers,
               viewers_min, viewers_max, viewers_max_at, lows[1], highs[0], lows[2], highs[1], totals[0], totals[1])


def _rate(delta: int, span: float) -> float | None:
    return delta * 8 / span if span > 0 else None


def bucket_point(row: Row, step: float) -> HistoryPoint:
    return HistoryPoint(
        at=row.start, span=step, samples=row.samples, rate_in_bps=_rate(row.delta_in, row.span),
        rate_out_bps=_rate(row.delta_out, row.span), rate_in_max_bps=row.rate_in_max,
        rate_out_max_bps=row.rate_out_max, rate_out_min_bps=row.rate_out_min, viewers=row.viewers,
        viewers_min=row.viewers_min, viewers_max=row.viewers_max, viewers_max_at=row.viewers_max_at,
        bytes_in=row.delta_in, bytes_out=row.delta_out, total_in=row.total_in, total_out=row.total_out)


def sample_point(row: Row) -> HistoryPoint:
    return HistoryPoint(
        at=row.start, span=0.0, samples=1, rate_in_bps=row.rate_in, rate_out_bps=row.rate_out,
        rate_in_max_bps=row.rate_in, rate_out_max_bps=row.rate_out, rate_out_min_bps=row.rate_out,
        viewers=row.viewers, viewers_min=row.viewers, viewers_max=row.viewers, viewers_max_at=row.start,
        bytes_in=row.delta_in, bytes_out=row.delta_out, total_in=row.total_in, total_out=row.total_out)


def sampled_every(rows: Iterable[Row]) -> float | None:
    """The median seconds between a node's samples (each row's span over its samples)."""
    spacings = [row.span / row.samples for row in rows if row.samples and row.span > 0]
    return statistics.median(spacings) if spacings else None


def as_samples(rows: Sequence[Row], every: float | None) -> list[HistoryPoint]:
    """Every sample as taken, with a gap point wherever two are much further apart than usual."""
    points: list[HistoryPoint] = []
    previous: Row | None = None
    for row in rows:
        if previous is not None and every is not None and row.start - previous.start > GAP_FACTOR * every:
            points.append(HistoryPoint(at=previous.start + every, span=0.0, samples=0))
        points.append(sample_point(row))
        previous = row
    return points


def as_buckets(rows: Sequence[Row], start: float, end: float, step: float) -> list[HistoryPoint]:
    """Buckets of `step` seconds from the one holding `start` up to `end`, gaps included (the bucket that
    starts exactly at `end` only if a sample was taken at that very instant)."""
    first = (start // step) * step
    count = max(1, math.ceil((end - first) / step))
    if count > MAX_POINTS:
        raise ValueError(f"{count:,} points of {step:g} s: choose a larger step")
    grouped: dict[int, list[Row]] = {}
    for row in rows:
        grouped.setdefault(int((row.start - first) // step), []).append(row)
    count = max(count, max(grouped, default=0) + 1)
    points = []
    for index in range(count):
        members = grouped.get(index)
        at = first + index * step
        points.append(bucket_point(merge(members, at), step) if members else HistoryPoint(at=at, span=step, samples=0))
    return points


def nice_step(seconds: float, multiple_of: int = 1) -> int:
    """The smallest step of NICE_STEPS at least `seconds` long and a multiple of `multiple_of`."""
    for step in NICE_STEPS:
        if step >= seconds and step % multiple_of == 0:
            return step
    whole_days = -(-seconds // 86_400)
    return int(max(whole_days * 86_400, multiple_of))

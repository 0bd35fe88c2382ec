"""Bounded history per watched node: recent full readings, and a compact rate series for charts.

Two rings per node, both handed out as views that copy nothing:
- readings: the last `history_capacity` Samples (history_seconds / interval: 600 at the defaults), each
  with the server's whole record (what an export writes), stored by column (`reading_ring.py`): nothing
  per reading for the garbage collector to walk;
- series: at most `chart_capacity` points of (time, rate in, rate out, viewers) in four float arrays:
  7,200 points (225 KiB), one hour at the fastest interval (0.5 s), for chart windows of 1 m to 1 h.
  Floats are not tracked by the garbage collector, so an hour of history adds nothing to a collection.

Only watched nodes (selected or on screen) get rings, plus the `keep_recent` most recently watched ones
(scrolling away and back keeps a chart). The bound is therefore (watched + keep_recent) x (readings of
~0.5 KiB + 225 KiB of series); every other node keeps only its latest reading, outside this store.
A view stays correct while its reader holds it: it shows the items that existed when it was made, and
shrinks from the old end if the ring overwrites them meanwhile.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, TypeVar, overload

from omeconsole.core.polling.reading_ring import ReadingRing
from omeconsole.model.nodes import NO_SERIES, Point, Series, SeriesColumns
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample

_NAN = math.nan
T = TypeVar("T", covariant=True)


class _Ring(Protocol[T]):
    def first_kept(self) -> int: ...

    def item(self, seq: int) -> T: ...


def _length(ring: _Ring[object], end: int) -> int:
    return max(0, end - ring.first_kept())


def _get(ring: _Ring[T], end: int, index: int | slice) -> T | list[T]:
    """Item `index` (or a slice, copied) of the view of `ring` that ends before sequence number `end`."""
    start = ring.first_kept()
    length = max(0, end - start)
    if isinstance(index, slice):
        return [ring.item(start + i) for i in range(*index.indices(length))]
    if index < 0:
        index += length
    if not 0 <= index < length:
        raise IndexError("history index out of range")
    return ring.item(start + index)


class SampleView(Sequence[Sample]):
    """Read-only, oldest first; the samples up to when it was made."""

    __slots__ = ("_end", "_ring")

    def __init__(self, ring: ReadingRing, end: int) -> None:
        self._ring = ring
        self._end = end

    def __len__(self) -> int:
        return _length(self._ring, self._end)

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Sample]: ...

    def __getitem__(self, index: int | slice) -> Sample | Sequence[Sample]:
        return _get(self._ring, self._end, index)

    def __iter__(self) -> Iterator[Sample]:
        ring = self._ring
        for seq in range(ring.first_kept(), self._end):
            yield ring.item(seq)


class SeriesRing:
    """Time, rates and viewers in four float arrays (NaN for "none"), overwritten in place when full."""

    __slots__ = ("_at", "_capacity", "_in", "_out", "_viewers", "count")

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._at = array("d")
        self._in = array("d")
        self._out = array("d")
        self._viewers = array("d")
        self.count = 0

    def append(self, at: float, rate_in: float | None, rate_out: float | None, viewers: int | None) -> None:
        values = (at, _NAN if rate_in is None else rate_in, _NAN if rate_out is None else rate_out,
                  _NAN if viewers is None else float(viewers))
        columns = (self._at, self._in, self._out, self._viewers)
        if len(self._at) < self._capacity:
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        else:
            slot = self.count % self._capacity
            for column, value in zip(columns, values, strict=True):
                column[slot] = value
        self.count += 1

    def first_kept(self) -> int:
        return max(0, self.count - self._capacity)

    def item(self, seq: int) -> Point:
        slot = seq % self._capacity
        return Point(self._at[slot], _none(self._in[slot]), _none(self._out[slot]), _count(self._viewers[slot]))

    def time(self, seq: int) -> float:
        return self._at[seq % self._capacity]

    def view(self) -> SeriesView:
        return SeriesView(self, self.count)


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _count(value: float) -> int | None:
    return None if math.isnan(value) else int(value)


class _Times(Sequence[float]):
    """The times of a series view, for bisecting (times only grow: one poll of a node at a time)."""

    __slots__ = ("_ring", "_start", "_stop")

    def __init__(self, ring: SeriesRing, start: int, stop: int) -> None:
        self._ring, self._start, self._stop = ring, start, stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[float]: ...

    def __getitem__(self, index: int | slice) -> float | Sequence[float]:
        if isinstance(index, slice):
            return [self._ring.time(self._start + i) for i in range(*index.indices(len(self)))]
        return self._ring.time(self._start + index)


class SeriesView(Series):
    __slots__ = ("_end", "_ring")

    def __init__(self, ring: SeriesRing, end: int) -> None:
        self._ring = ring
        self._end = end

    def __len__(self) -> int:
        return _length(self._ring, self._end)

    @overload
    def __getitem__(self, index: int) -> Point: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Point]: ...

    def __getitem__(self, index: int | slice) -> Point | Sequence[Point]:
        return _get(self._ring, self._end, index)

    def columns(self, since: float | None = None) -> SeriesColumns:
        ring = self._ring
        start = ring.first_kept()
        if since is not None:
            start += bisect_left(_Times(ring, start, max(start, self._end)), since)
        columns = SeriesColumns([], [], [], [])
        for seq in range(start, self._end):
            point = ring.item(seq)
            columns.at.append(point.at)
            columns.rate_in_bps.append(point.rate_in_bps)
            columns.rate_out_bps.append(point.rate_out_bps)
            columns.viewers.append(point.viewers)
        return columns


class _Rings:
    __slots__ = ("readings", "series")

    def __init__(self, readings: int, series: int) -> None:
        self.readings = ReadingRing(readings)
        self.series = SeriesRing(series)


class HistoryStore:
    """The rings of watched nodes (and of the last `keep_recent` watched ones)."""

    def __init__(self, readings: int, series: int, keep_recent: int = 16) -> None:
        if readings < 1 or series < 1:
            raise ValueError("a history ring needs room for at least one sample")
        self._readings = readings
        self._series = series
        self.keep_recent = keep_recent
        self._rings: dict[NodePath, _Rings] = {}
        self._watched: frozenset[NodePath] = frozenset()
        self._recent: OrderedDict[NodePath, None] = OrderedDict()

    @property
    def watched(self) -> frozenset[NodePath]:
        return self._watched

    def watch(self, paths: Iterable[NodePath]) -> frozenset[NodePath]:
        """Sets which nodes are watched now; returns those no longer watched (their rings join the
        recent list, the oldest of which lose theirs)."""
        new = frozenset(paths)
        left = self._watched - new
        for path in left:
            if path in self._rings:
                self._recent[path] = None
                self._recent.move_to_end(path)
        for path in new:
            self._recent.pop(path, None)
        self._watched = new
        while len(self._recent) > self.keep_recent:
            dropped, _ = self._recent.popitem(last=False)
            self._rings.pop(dropped, None)
        return left

    def record(self, path: NodePath, sample: Sample) -> None:
        rings = self._rings.get(path)
        if rings is None:
            if path not in self._watched:
                return
            rings = self._rings[path] = _Rings(self._readings, self._series)
        rings.readings.append(sample)
        rings.series.append(sample.at, sample.rate_in_bps, sample.rate_out_bps, sample.viewers)

    def views(self, path: NodePath) -> tuple[Sequence[Sample], Series]:
        rings = self._rings.get(path)
        if rings is None:
            return (), NO_SERIES
        return SampleView(rings.readings, rings.readings.count), rings.series.view()

    def forget(self, path: NodePath) -> None:
        self._rings.pop(path, None)
        self._recent.pop(path, None)

    def sample_count(self) -> int:
        """Full readings held in all rings (the figure that must stay bounded)."""
        return sum(len(rings.readings) for rings in self._rings.values())

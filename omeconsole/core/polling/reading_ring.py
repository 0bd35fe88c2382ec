"""The last N full readings of a node, stored by column: no object per reading for the garbage collector.

The engine keeps ten minutes of full readings (600 at the defaults) for every node on screen: tens of
thousands of readings on a busy dashboard. Kept as `Sample` objects, each reading was two objects the
collector tracks (the sample and its statistics record), and every full collection walked all of them:
pauses grew with the console's uptime. Here each field is one column: floats in a float array, counters
in a 64-bit integer array (the decoder bounds them to 0..2**63-1), times as two numbers, every other value
(the shared maps of counts per protocol, names of invalid fields) in a list of references to immutable
values, which the collector does not track. A reading is made again, equal to the one appended, when it
is read: an export, a chart of a node without a compact series.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import fields
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from omeconsole.model.readings import NodeStats, Sample

_NO_INT = -(2**63)
"""None in an integer column (a counter is never negative)."""


class _Floats:
    """None as NaN: the console never computes a NaN rate or time."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values = array("d")

    def append(self, value: float | None) -> None:
        self.values.append(math.nan if value is None else value)

    def put(self, slot: int, value: float | None) -> None:
        self.values[slot] = math.nan if value is None else value

    def get(self, slot: int) -> float | None:
        value = self.values[slot]
        return None if math.isnan(value) else value


class _Ints:
    """Counters in 8 bytes each; a value no 64-bit integer holds (none the decoder makes) is kept aside."""

    __slots__ = ("aside", "values")

    def __init__(self) -> None:
        self.values = array("q")
        self.aside: dict[int, int] = {}

    def append(self, value: int | None) -> None:
        self.values.append(_NO_INT)
        self.put(len(self.values) - 1, value)

    def put(self, slot: int, value: int | None) -> None:
        self.aside.pop(slot, None)
        if value is not None and not -(2**63) < value < 2**63:
            self.aside[slot] = value
            value = None
        self.values[slot] = _NO_INT if value is None else value

    def get(self, slot: int) -> int | None:
        value = self.values[slot]
        return self.aside.get(slot) if value == _NO_INT else value


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class _Times:
    """Times in 12 bytes each (microseconds since the epoch and the UTC offset in seconds), not a 48-byte
    object per reading: a node's update, receive and send times move with every reading. A time these
    two numbers would not make again exactly (no offset, an offset that is not whole seconds, a named
    zone) is kept aside as it is."""

    __slots__ = ("aside", "offsets", "values")

    def __init__(self) -> None:
        self.values = array("q")
        self.offsets = array("i")
        self.aside: dict[int, datetime] = {}

    def append(self, value: datetime | None) -> None:
        self.values.append(_NO_INT)
        self.offsets.append(0)
        self.put(len(self.values) - 1, value)

    def put(self, slot: int, value: datetime | None) -> None:
        self.aside.pop(slot, None)
        self.values[slot] = _NO_INT
        if value is None:
            return
        offset = value.utcoffset()
        if (type(value) is not datetime or type(value.tzinfo) is not timezone or offset is None
                or offset.microseconds or value.tzname() != timezone(offset).tzname(None)):
            self.aside[slot] = value
            return
        self.values[slot] = (value - _EPOCH) // _MICROSECOND
        self.offsets[slot] = offset.days * 86_400 + offset.seconds

    def get(self, slot: int) -> datetime | None:
        value = self.values[slot]
        if value == _NO_INT:
            return self.aside.get(slot)
        return (_EPOCH + value * _MICROSECOND).astimezone(timezone(timedelta(seconds=self.offsets[slot])))


class _Refs:
    """Immutable values by reference (shared where the decoder shares them)."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: list[Any] = []

    def append(self, value: object) -> None:
        self.values.append(value)

    def put(self, slot: int, value: object) -> None:
        self.values[slot] = value

    def get(self, slot: int) -> Any:
        return self.values[slot]


_Column = _Floats | _Ints | _Times | _Refs
_KIND: dict[str, type[_Column]] = {"float": _Floats, "float | None": _Floats, "int | None": _Ints,
                                   "datetime | None": _Times}
"""A column per declared type (the models' annotations are strings: `from __future__ import annotations`)."""
_SAMPLE_FIELDS = tuple((f.name, _KIND.get(str(f.type), _Refs)) for f in fields(Sample) if f.name != "stats")
_STATS_FIELDS = tuple((f.name, _KIND.get(str(f.type), _Refs)) for f in fields(NodeStats))


class ReadingRing:
    """The last `capacity` readings, overwritten in place (no shifting under a reader); sequence numbers
    count every reading ever appended, so a view made earlier knows which of its readings are gone."""

    __slots__ = ("_capacity", "_sample", "_stats", "count")

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._sample = tuple((name, kind()) for name, kind in _SAMPLE_FIELDS)
        self._stats = tuple((name, kind()) for name, kind in _STATS_FIELDS)
        self.count = 0
        """Readings ever appended: the sequence number of the next one."""

    def append(self, sample: Sample) -> None:
        stats = sample.stats
        if self.count < self._capacity:
            for name, column in self._sample:
                column.append(getattr(sample, name))
            for name, column in self._stats:
                column.append(getattr(stats, name))
        else:
            slot = self.count % self._capacity
            for name, column in self._sample:
                column.put(slot, getattr(sample, name))
            for name, column in self._stats:
                column.put(slot, getattr(stats, name))
        self.count += 1

    def first_kept(self) -> int:
        return max(0, self.count - self._capacity)

    def item(self, seq: int) -> Sample:
        slot = seq % self._capacity
        stats: dict[str, Any] = {name: column.get(slot) for name, column in self._stats}
        sample: dict[str, Any] = {name: column.get(slot) for name, column in self._sample}
        return Sample(**sample, stats=NodeStats(**stats))

    def __len__(self) -> int:
        return min(self.count, self._capacity)

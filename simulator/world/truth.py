"""The simulator's truth about bytes, for tests that hold a client's rates to it.

What a client can read (the statistics) moves in two ways: synthetic traffic in whole ticks, and the bytes
the publisher really sends a player at the moment it sends them (which also moves `lastUpdatedTime`, as the
real server's counters do). A client that divides a byte delta by a time delta taken from the wrong clock
sees false spikes; the truth here is the exact totals of a node at every world time they changed, so a test
can ask what the rate really was over any window.

Recording is opt-in per node (`World.watch_bytes`), from that moment on, so a world nobody tests pays nothing.
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["in", "out"]
MAX_POINTS = 1_000_000
"""Changes kept per watched node (a tick and each real client's response add one)."""


@dataclass
class Ledger:
    """One node's totals (bytes in, bytes out) at every world time they changed."""

    times_ms: deque[int] = field(default_factory=lambda: deque(maxlen=MAX_POINTS))
    totals: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=MAX_POINTS))

    def record(self, now_ms: int, bytes_in: int, bytes_out: int) -> None:
        if self.totals and self.totals[-1] == (bytes_in, bytes_out):
            return
        if self.times_ms and self.times_ms[-1] == now_ms:  # several changes in one millisecond: the last
            self.totals[-1] = (bytes_in, bytes_out)
            return
        self.times_ms.append(now_ms)
        self.totals.append((bytes_in, bytes_out))

    def at(self, time_ms: int) -> tuple[int, int]:
        """The totals at `time_ms` (after every change stamped at or before it)."""
        index = bisect.bisect_right(self.times_ms, time_ms) - 1
        if index < 0:
            raise ValueError(f"no record at {time_ms}: the node was watched from {self.times_ms[0]} on")
        return self.totals[index]


def rate_bps(ledger: Ledger, direction: Direction, start_ms: int, end_ms: int) -> float:
    """Bits per second over (start_ms, end_ms]: the bytes that arrived (or left) in it, over its length."""
    if end_ms <= start_ms:
        raise ValueError("a rate needs a window that ends after it starts")
    column = 0 if direction == "in" else 1
    moved = ledger.at(end_ms)[column] - ledger.at(start_ms)[column]
    return moved * 8 * 1000 / (end_ms - start_ms)

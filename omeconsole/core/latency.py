"""How long one server takes to answer: every request's round trip, timed where it meets the wire.

`TimedTransport` wraps the session's transport (the `Transport` seam of api/http.py) and hands each
answered request's time to a `LatencyMeter`, which keeps the most recent ones. Only answers count (any
HTTP status: a 404 is an answer): a refused connection is not a fast server, and a timeout is not a
latency but an error, which the link counts on its own. Times are the injected clock's, so a test on a
fake clock sees what it set.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from omeconsole.api.http import Cap, Method, Reply, Timeouts, Transport
from omeconsole.core.clock import Clock

KEEP = 64
"""Round trips kept: the median of the last minute or so of polling."""


@dataclass(frozen=True, slots=True)
class Latency:
    """A server's recent round trips, in seconds (None: no request answered yet)."""

    last_s: float | None = None
    median_s: float | None = None
    max_s: float | None = None
    samples: int = 0
    """How many round trips the figures are made of (at most KEEP)."""


class LatencyMeter:
    def __init__(self, keep: int = KEEP) -> None:
        self._times: deque[float] = deque(maxlen=keep)

    def record(self, seconds: float) -> None:
        self._times.append(max(0.0, seconds))

    def snapshot(self) -> Latency:
        if not self._times:
            return Latency()
        return Latency(self._times[-1], statistics.median(self._times), max(self._times), len(self._times))


class TimedTransport:
    """A transport that times every request of `inner` that got an answer."""

    def __init__(self, inner: Transport, meter: LatencyMeter, clock: Clock) -> None:
        self._inner = inner
        self._meter = meter
        self._clock = clock

    def __repr__(self) -> str:
        return f"TimedTransport({self._inner!r})"

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        started = self._clock.monotonic()
        reply = await self._inner.request(method, url, cap=cap, headers=headers, body=body, timeouts=timeouts)
        self._meter.record(self._clock.monotonic() - started)
        return reply

    async def aclose(self) -> None:
        await self._inner.aclose()

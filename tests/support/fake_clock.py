"""The one manual clock of the console's tests (and of the benches that replay time): it satisfies
`omeconsole.core.clock.Clock` and the simulator's clock, and moves only when advanced."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta


class FakeClock:
    """A clock that moves only when a test advances it; sleepers wake when their time comes.

    The one manual clock of the console's tests. It also tells wall milliseconds (`now_ms`), which is
    the simulator's clock interface, so one FakeClock can drive the simulated server and the console
    together: both then agree on every instant, and "true" figures can be compared with the console's.
    """

    def __init__(self, start: float = 1000.0, wall_start: datetime | None = None) -> None:
        self._now = start
        self._start = start
        self._wall_start = wall_start or datetime(2026, 1, 1, tzinfo=UTC)
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []
        self._parked: asyncio.Event | None = None

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> datetime:
        return self._wall_start + timedelta(seconds=self._now - self._start)

    def now_ms(self) -> int:
        """Wall milliseconds since the Unix epoch (the simulator's `Clock.now_ms`)."""
        return round(self._wall_start.timestamp() * 1000 + (self._now - self._start) * 1000)

    @property
    def sleepers(self) -> int:
        """How many sleeps are pending (tests use it to know the code under test is parked)."""
        return sum(1 for _, future in self._waiters if not future.done())

    async def parked(self, sleepers: int) -> None:
        """Returns once at least `sleepers` sleeps are pending: the code under test has caught up."""
        while self.sleepers < sleepers:
            self._parked = asyncio.Event()
            await self._parked.wait()
            await asyncio.sleep(0)  # let the sleep that woke us register its future

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a FakeClock never goes back")
        self._now += seconds
        still_waiting: list[tuple[float, asyncio.Future[None]]] = []
        for deadline, future in self._waiters:
            if future.done():
                continue
            if deadline <= self._now + 1e-9:
                future.set_result(None)
            else:
                still_waiting.append((deadline, future))
        self._waiters = still_waiting

    async def sleep(self, seconds: float) -> None:
        if self._parked is not None:
            self._parked.set()
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((self._now + seconds, future))
        await future

"""Injectable time: the world reads wall-clock milliseconds from a Clock, never from the OS directly.

Tests use ManualClock and advance it without sleeping; the server uses SystemClock.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait for `seconds` of this clock's time."""
        ...


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that moves only when told to; sleepers wake when the time they wait for is reached."""

    def __init__(self, start_ms: int = 1_767_225_600_000) -> None:  # 2026-01-01T00:00:00Z
        self._now_ms = start_ms
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def now_ms(self) -> int:
        return self._now_ms

    def advance(self, seconds: float) -> None:
        self.set_ms(self._now_ms + round(seconds * 1000))

    def set_ms(self, now_ms: int) -> None:
        if now_ms < self._now_ms:
            raise ValueError("a ManualClock never goes back")
        self._now_ms = now_ms
        still_waiting = []
        for deadline, future in self._waiters:
            if deadline <= now_ms:
                if not future.done():
                    future.set_result(None)
            else:
                still_waiting.append((deadline, future))
        self._waiters = still_waiting

    async def sleep(self, seconds: float) -> None:
        deadline = self._now_ms + max(1, round(seconds * 1000))
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((deadline, future))
        await future

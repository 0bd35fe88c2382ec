"""The console's time: injected everywhere so that polling, ages and back-off are testable.

`monotonic()` orders samples and measures ages; `wall()` is only for showing and logging times.
Tests use a manual clock (tests/support/fake_clock.py) and advance it by hand; nothing in the core reads the OS
clock directly.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def wall(self) -> datetime:
        """The current time, timezone-aware."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait for `seconds` of this clock's time."""
        ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

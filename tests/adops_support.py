"""Shared pieces of the ad-ops tests: the console's clock driven by the simulator's ManualClock.

The console and the in-process simulator must agree on time for "seen after N s" and the break
countdown to be deterministic, so both read one ManualClock.
"""

from __future__ import annotations

from datetime import UTC, datetime

from simulator.world.clock import ManualClock


class SharedClock:
    """The console's Clock protocol (monotonic, wall, sleep) over the simulator's ManualClock."""

    def __init__(self, manual: ManualClock) -> None:
        self.manual = manual

    def monotonic(self) -> float:
        return self.manual.now_ms() / 1000

    def wall(self) -> datetime:
        return datetime.fromtimestamp(self.manual.now_ms() / 1000, UTC)

    async def sleep(self, seconds: float) -> None:
        await self.manual.sleep(seconds)

    def advance(self, seconds: float) -> None:
        self.manual.advance(seconds)

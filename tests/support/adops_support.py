"""Shared pieces of the ad-ops tests: the console's clock driven by the simulator's ManualClock.

The console and the in-process simulator must agree on time for "seen after N s" and the break
countdown to be deterministic, so both read one ManualClock.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.context import ServerContext
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


def server_context(api_url: str, *, read_only: bool = False, profile: str | None = "test") -> ServerContext:
    return ServerContext(api_url=api_url, profile=profile, read_only=read_only)


def make_ops(client: OmeClient, publisher_url: str, clock: SharedClock, audit_path: Path, *,
             read_only: bool = False, confirm_timeout_s: float = 10.0) -> AdOps:
    """Ad operations on the simulator, with the test's audit log and the shared clock."""
    return AdOps(client, AuditLog(audit_path), clock, server_context(client.api_url, read_only=read_only),
                 publisher_url=publisher_url, confirm_timeout_s=confirm_timeout_s)

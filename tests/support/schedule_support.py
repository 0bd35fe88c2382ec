"""Shared pieces of the schedule tests: a runner on the simulator, both on one ManualClock, driven step by step.

The runner says when it sleeps and until when (`parked`, `naps`, `wake_at`); the driver moves the one
clock exactly to that instant, so every run fires at its time and a simulated day takes no wall time
beyond the requests themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from adops_support import SharedClock, server_context
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.lock import RunnerLock, lock_path
from omeconsole.core.schedule.runner import Runner
from omeconsole.core.schedule.store import Book, load_book
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.scenario import AppSpec, Scenario, StreamSpec, TrafficSettings, VhostSpec

ONE_STREAM = Scenario("one-stream", (VhostSpec("default", (AppSpec("app", (StreamSpec("stream", permanent=True),)),)),),
                      traffic=TrafficSettings(tick_seconds=10.0))
"""default/app/stream alone, its traffic ticked every 10 s: a simulated day costs seconds, not minutes."""
WAIT_S = 60.0
"""Only a bound that keeps a broken run from hanging: every wait here is on an event."""


def ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


@dataclass
class Rig:
    simulator: RunningSimulator
    clock: SharedClock
    adops: AdOps
    config: Path
    schedules: Path
    audit: Path
    events: list[RunnerEvent] = field(default_factory=list)

    def runner(self, **options: float) -> Runner:
        return Runner(self.adops, self.book, [self.config, self.schedules], self.events.append,
                      RunnerLock(lock_path(self.audit), "test runner"), **options)

    def book(self) -> Book:
        return load_book(self.config, self.schedules)

    def kinds(self, kind: str) -> list[RunnerEvent]:
        return [e for e in self.events if e.kind == kind]


@contextlib.asynccontextmanager
async def rig(tmp_path: Path, config: str, *, start: datetime | None = None, scenario: str | Scenario = ONE_STREAM,
              **simulator: object) -> AsyncIterator[Rig]:
    """The simulator and ad operations on one ManualClock starting at `start`, the config file written."""
    manual = ManualClock(ms(start) if start is not None else ms(datetime(2026, 1, 1, tzinfo=UTC)))
    async with running_simulator(scenario, clock=manual, **simulator) as running:  # type: ignore[arg-type]
        manual.advance(20)  # a few segments exist before the first run
        clock = SharedClock(manual)
        client = OmeClient(running.api_url, TEST_TOKEN)
        audit = tmp_path / "audit.jsonl"
        adops = AdOps(client, AuditLog(audit, now=clock.wall), clock, server_context(client.api_url),
                      publisher_url=running.publisher_url, confirm_timeout_s=10.0)
        config_file = tmp_path / "config.toml"
        config_file.write_text(config)
        try:
            yield Rig(running, clock, adops, config_file, tmp_path / "schedules.toml", audit)
        finally:
            await adops.aclose()
            await client.aclose()


async def drive(runner: Runner, clock: SharedClock, until: datetime) -> None:
    """Move the one clock from wake-up to wake-up of the runner, up to `until` (where it is left asleep)."""
    while True:
        naps = runner.naps
        await asyncio.wait_for(runner.asleep(naps - 1 if runner.parked.is_set() else naps), WAIT_S)
        assert runner.wake_at is not None
        if runner.wake_at > until:
            clock.manual.set_ms(max(ms(until), clock.manual.now_ms()))
            return
        naps = runner.naps
        if ms(runner.wake_at) > clock.manual.now_ms():
            clock.manual.set_ms(ms(runner.wake_at))
        else:
            await asyncio.sleep(0)  # the clock was moved past its wake-up: it is waking now
        await asyncio.wait_for(runner.asleep(naps), WAIT_S)


@contextlib.asynccontextmanager
async def started(runner: Runner) -> AsyncIterator[Runner]:
    """`runner` started on its own task, stopped (and its lock released) on exit."""
    runner.start()
    stop = asyncio.Event()
    task = asyncio.create_task(runner.run(stop))
    try:
        yield runner
    finally:
        stop.set()
        await task
        runner.close()


@contextlib.asynccontextmanager
async def running(r: Rig, **options: float) -> AsyncIterator[Runner]:
    """A started runner of the rig on its own task, stopped (and its lock released) on exit."""
    async with started(r.runner(**options)) as runner:
        yield runner

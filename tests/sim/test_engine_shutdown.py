"""Stopping the engine leaves nothing behind: no task it created may outlive it ("destroyed but pending")."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

from fake_clock import FakeClock
from fake_ome_server import FakeOme

from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath

Parked = tuple[PollingEngine, FakeClock, asyncio.Task[None], set[asyncio.Task[object]]]


@contextlib.asynccontextmanager
async def parked_engine() -> AsyncIterator[Parked]:
    """An engine running on a fake clock against a fake server on loopback, after its first readings,
    parked in its sleep between cycles."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=1)
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
        engine.select(NodePath("vh0", "app0", "s0"))
        polled = asyncio.Event()
        engine.add_listener(lambda update: polled.set() if engine.node(NodePath("vh0", "app0", "s0")).latest
                            else None)
        before = set(asyncio.all_tasks())
        task = asyncio.create_task(engine.run())
        await asyncio.wait_for(polled.wait(), 10)
        await asyncio.wait_for(clock.parked(1), 10)  # asleep: no clock movement, so it cannot poll again
        yield engine, clock, task, before


def left_pending(before: set[asyncio.Task[object]]) -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()]


async def test_stop_leaves_no_task_of_the_engine_pending() -> None:
    async with parked_engine() as (engine, clock, task, before):
        assert left_pending(before)  # the run loop and its sleep are there while it runs
        engine.stop()
        await asyncio.wait_for(task, 10)
        assert left_pending(before) == []
        assert clock.sleepers == 0


async def test_cancelling_the_run_loop_also_ends_its_inner_tasks() -> None:
    """What a UI worker does to the engine at exit."""
    async with parked_engine() as (engine, clock, task, before):
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=10)
        assert task in done and task.cancelled()
        assert left_pending(before) == []
        assert clock.sleepers == 0
        engine.stop()  # stopping afterwards is harmless


async def test_stopping_with_requests_in_flight_cancels_them() -> None:
    """A server that never answers: `stop()` does not wait for it, and leaves no request task behind."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=1)
    async with fake.serving(), fake.client(timeout=60) as client:
        fake.stall = True  # every request is held open, never answered
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
        before = set(asyncio.all_tasks())
        task = asyncio.create_task(engine.run())
        while fake.count() == 0:
            await asyncio.sleep(0.001)
        assert engine.connection.status == "connecting"
        engine.stop()
        await asyncio.wait_for(task, 10)
        assert [t for t in left_pending(before) if t.get_name().startswith("polling")] == []
        assert task.done()

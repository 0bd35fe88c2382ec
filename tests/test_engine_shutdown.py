"""Stopping the engine leaves nothing behind: no task it created may outlive it ("destroyed but pending")."""

from __future__ import annotations

import asyncio
import random

from fake_ome_server import FakeOme

from omeconsole.core.clock import FakeClock
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath


async def parked_engine() -> tuple[PollingEngine, FakeClock, asyncio.Task[None], set[asyncio.Task[object]]]:
    """An engine running on a fake clock, after its first cycle, parked in its sleep between cycles."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=1)
    engine = PollingEngine(fake.client(), clock, PollSettings(), rng=random.Random(1))
    engine.select(NodePath("vh0", "app0", "s0"))
    polled = asyncio.Event()
    engine.add_listener(lambda _update: polled.set())
    before = set(asyncio.all_tasks())
    task = asyncio.create_task(engine.run())
    await asyncio.wait_for(polled.wait(), 10)
    while clock.sleepers == 0:  # wait until the loop is asleep (no clock movement: it cannot poll again)
        await asyncio.sleep(0)
    return engine, clock, task, before


def left_pending(before: set[asyncio.Task[object]]) -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()]


async def test_stop_leaves_no_task_of_the_engine_pending() -> None:
    engine, clock, task, before = await parked_engine()
    assert left_pending(before)  # the run loop and its sleep are there while it runs
    engine.stop()
    await asyncio.wait_for(task, 10)
    assert left_pending(before) == []
    assert clock.sleepers == 0


async def test_cancelling_the_run_loop_also_ends_its_inner_tasks() -> None:
    """What a UI worker does to the engine at exit."""
    engine, clock, task, before = await parked_engine()
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    assert task in done and task.cancelled()
    assert left_pending(before) == []
    assert clock.sleepers == 0
    engine.stop()  # stopping afterwards is harmless

"""Time that is honest: stale needs two intervals without a reading, the link never says "connected" when
nothing succeeds, and errors are counted. The engine runs its own loop against a faulty simulator; both
clocks move in quarter seconds and the test waits for the engine to park after each step.

One request at a time (`max_concurrency=1`) keeps the order of requests, hence the seeded fault draws,
the same on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

NEWS = NodePath("default", "app", "news")
STEP = 0.25


class Rig:
    def __init__(self, sim: RunningSimulator, world: ManualClock, console: FakeClock, engine: PollingEngine) -> None:
        self.sim, self.world, self.console, self.engine = sim, world, console, engine

    async def step(self, seconds: float = STEP) -> None:
        self.world.advance(seconds)
        self.console.advance(seconds)
        await asyncio.wait_for(self.console.parked(1), 10)

    def faults(self, on: bool) -> None:
        assert self.sim.faults is not None
        self.sim.faults.http.active = on


@contextlib.asynccontextmanager
async def running_engine(faults: str) -> AsyncIterator[Rig]:
    world, console = ManualClock(), FakeClock()
    async with running_simulator(clock=world, faults=faults) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        assert sim.faults is not None
        sim.faults.http.active = False
        engine = PollingEngine(client, console, PollSettings(max_concurrency=1), rng=random.Random(2))
        engine.select(NEWS)
        engine.set_on_screen([NodePath("default"), NodePath("default", "app"), NEWS], [NodePath("default", "app")])
        task = asyncio.create_task(engine.run())
        rig = Rig(sim, world, console, engine)
        try:
            for _ in range(12):
                await rig.step()
            yield rig
        finally:
            engine.stop()
            await asyncio.wait_for(task, 10)


async def test_a_fifth_of_requests_failing_shows_errors_but_never_flickers_to_stale() -> None:
    async with running_engine("5xx=0.2") as rig:
        assert rig.engine.node(NEWS).state is NodeState.LIVE
        rig.faults(True)
        states: list[NodeState] = []
        links: list[LinkState] = []
        for _ in range(4 * 60):
            await rig.step()
            states.append(rig.engine.node(NEWS).state)
            links.append(rig.engine.connection)
        assert rig.sim.faults is not None and rig.sim.faults.counts()["5xx"] >= 20  # they did fail
        assert set(states) == {NodeState.LIVE}  # not one flip in a minute
        assert {link.status for link in links} == {"connected"}  # most requests succeed
        last = links[-1]
        assert last.errors_per_minute >= 10 and last.last_error is not None and "[HTTP]" in last.last_error
        assert last.last_error_at is not None and last.errors_total >= last.errors_per_minute
        ages = [rig.engine.node(NEWS).age(rig.console.monotonic())]
        assert ages[0] is not None and ages[0] <= 1.0  # and the reading shown is fresh


async def test_when_nothing_succeeds_for_two_intervals_the_node_is_stale_and_the_link_says_why() -> None:
    async with running_engine("5xx=1") as rig:
        rig.faults(True)
        last_success = rig.engine.connection.last_success_at
        assert last_success is not None
        seen: list[tuple[float, NodeState, str]] = []
        for _ in range(4 * 4):
            await rig.step()
            quiet = rig.console.monotonic() - last_success
            seen.append((quiet, rig.engine.node(NEWS).state, rig.engine.connection.status))
        assert rig.engine.connection.last_success_at == last_success  # nothing got through
        # one failed request is not stale; no reading for two intervals is (2.5 with the reply's own time)
        for quiet, state, status in seen:
            assert (status == "connected") == (quiet <= 2.0), seen
            assert (state is NodeState.LIVE) == (quiet <= 2.5), seen
        assert seen[-1][1:] == (NodeState.STALE, "error")
        link = rig.engine.connection
        assert "has succeeded for" in link.message and link.last_error is not None and "[HTTP]" in link.message
        assert link.server is not None and link.errors_per_minute >= 4
        rig.faults(False)
        await rig.step(1.0)
        await rig.step(1.0)
        assert rig.engine.node(NEWS).state is NodeState.LIVE and rig.engine.connection.status == "connected"

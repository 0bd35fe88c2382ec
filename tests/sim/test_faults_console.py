"""The console core against a faulty simulator: the polling engine and ad operations, for every fault kind.

Both sides run on clocks the test moves: the simulator's world on a ManualClock, the console on a
FakeClock; one "interval" is one second on both, then one engine cycle. HTTP faults are switched on
and off at run time, so "recovers within two intervals after the fault stops" is counted in cycles.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
import pytest
from fake_clock import FakeClock

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.context import ServerContext
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import ManualClock
from simulator.world.scenario import load_scenario

TOKEN = "console-fault-token"
STREAM = NodePath("default", "app", "stream")
WATCHED = (NodePath("default"), NodePath("default", "app"), STREAM)
FAULT_CYCLES = 3
DEMO = load_scenario("demo")
MAX_INGEST_BPS = {  # the traffic model's ceiling: bit rate x 1.2 jitter, x 1.1 for window rounding
    NodePath("default"): sum(s.bitrate_kbps for v in DEMO.vhosts for a in v.apps for s in a.streams) * 1320,
    NodePath("default", "app"): sum(s.bitrate_kbps for a in DEMO.vhosts[0].apps if a.name == "app"
                                    for s in a.streams) * 1320,
    STREAM: 4500 * 1320,
}
T = TypeVar("T")
HTTP_FAULTS = ["latency=300ms", "5xx=1", "reset=1", "stall=1:30s", "html=1", "truncate=1", "types=1"]


@dataclass
class Rig:
    simulator: RunningSimulator
    world_clock: ManualClock
    console_clock: FakeClock
    client: OmeClient
    engine: PollingEngine
    latency_s: float = 0.0

    @property
    def faults_on(self) -> bool:
        assert self.simulator.faults is not None
        return self.simulator.faults.http.active

    @faults_on.setter
    def faults_on(self, value: bool) -> None:
        assert self.simulator.faults is not None
        self.simulator.faults.http.active = value

    async def cycle(self) -> None:
        """One interval on both clocks, then one engine cycle (which must never raise)."""
        self.world_clock.advance(1)
        self.console_clock.advance(1)
        await self.pumped(self.engine.poll_cycle())

    async def pumped(self, work: Awaitable[T]) -> T:
        """Await `work`, moving the world clock past any added latency the simulator holds a request for."""
        task = asyncio.ensure_future(work)
        faults = self.simulator.faults
        assert faults is not None
        while not task.done():
            if self.latency_s and faults.http.held:
                self.world_clock.advance(self.latency_s)
            await asyncio.sleep(0.002)
        return task.result()

    def fresh(self, path: NodePath) -> bool:
        view = self.engine.node(path)
        return (view.state is NodeState.LIVE and view.error is None
                and view.age(self.console_clock.monotonic()) == 0.0
                and self.engine.connection.status == "connected")

    def samples(self, path: NodePath) -> list[Sample]:
        return list(self.engine.node(path).history)


@contextlib.asynccontextmanager
async def rig(spec: str, *, timeout: float = 1.5, active: bool = False) -> AsyncIterator[Rig]:
    world_clock = ManualClock()
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=7,
                                      clock=world_clock, faults=spec)
    assert simulator.faults is not None
    simulator.faults.http.active = active
    client = OmeClient(simulator.api_url, TOKEN, timeout=timeout)
    console_clock = FakeClock()
    engine = PollingEngine(client, console_clock, PollSettings(interval=1.0), rng=random.Random(1))
    engine.select(STREAM)
    engine.set_on_screen(WATCHED)
    latency = 0.3 if spec.startswith("latency") else 0.0
    try:
        yield Rig(simulator, world_clock, console_clock, client, engine, latency)
    finally:
        await client.aclose()
        await simulator.stop()


async def until(condition: Callable[[], bool]) -> None:
    """Wait for the engine task to get somewhere (bounded; never a timing assertion)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition never became true")


def assert_no_bogus_rates(rig: Rig) -> None:
    for path, ceiling in MAX_INGEST_BPS.items():
        for sample in rig.samples(path):
            for rate in (sample.rate_in_bps, sample.rate_out_bps):
                assert rate is None or (math.isfinite(rate) and rate >= 0), (path, sample)
            assert sample.rate_in_bps is None or sample.rate_in_bps <= ceiling, (path, sample.rate_in_bps)


@pytest.mark.parametrize("spec", HTTP_FAULTS)
async def test_the_engine_keeps_running_shows_the_fault_and_recovers_within_two_intervals(spec: str) -> None:
    async with rig(spec) as r:
        for _ in range(3):
            await r.cycle()
        assert r.fresh(STREAM)
        r.faults_on = True
        for cycle in range(1, FAULT_CYCLES + 1):
            await r.cycle()
            view = r.engine.node(STREAM)
            if spec.startswith("latency"):  # slower, not broken: nothing to report
                assert r.fresh(STREAM)
                continue
            # one failed request is an error shown, not yet "stale": that takes two intervals without a reading
            assert view.error or r.engine.connection.status != "connected"
            assert view.state is (NodeState.STALE if cycle == FAULT_CYCLES else NodeState.LIVE)
            assert r.engine.connection.last_error is not None and r.engine.connection.errors_per_minute >= cycle
            if cycle >= 3:
                assert r.engine.connection.status != "connected"  # nothing has succeeded for two intervals
            shown = (view.error or "") + r.engine.connection.message + (r.engine.connection.last_error or "")
            assert TOKEN not in shown
        r.faults_on = False
        recovered_after = None
        for cycle in range(1, 3):
            await r.cycle()
            if r.fresh(STREAM) and all(r.engine.node(p).error is None for p in WATCHED):
                recovered_after = cycle
                break
        assert recovered_after is not None, (r.engine.connection, r.engine.node(STREAM))
        assert_no_bogus_rates(r)


async def test_after_a_long_outage_the_engine_recovers_within_two_intervals() -> None:
    async with rig("reset=1") as r:
        await r.cycle()
        r.faults_on = True
        for _ in range(20):
            await r.cycle()
        r.faults_on = False
        await r.cycle()
        await r.cycle()
        assert r.fresh(STREAM)


async def test_the_engine_survives_a_mix_of_every_fault_running_on_its_own() -> None:
    async with rig("5xx=0.15,reset=0.1,html=0.05,truncate=0.05,types=0.05,stall=0.05:30s", active=True) as r:
        run = asyncio.create_task(r.engine.run())
        for _ in range(30):
            r.world_clock.advance(1)
            r.console_clock.advance(1)
            await until(lambda: r.console_clock.sleepers > 0 or run.done())  # parked for its next cycle
            assert not run.done()
        r.faults_on = False
        for _ in range(60):
            if r.fresh(STREAM):
                break
            r.world_clock.advance(1)
            r.console_clock.advance(1)
            await until(lambda: r.console_clock.sleepers > 0 or run.done())
        assert r.fresh(STREAM)
        r.engine.stop()
        await asyncio.wait_for(run, 10)
        assert_no_bogus_rates(r)
        assert r.simulator.faults is not None
        counts = r.simulator.faults.counts()
        assert sum(counts[k] for k in ("5xx", "reset", "html", "truncate", "types", "stall")) > 10


async def test_a_server_restart_draws_a_gap_not_a_spike() -> None:
    async with rig("restart=every:8s") as r:
        for _ in range(30):
            await r.cycle()
        assert r.simulator.faults is not None and r.simulator.faults.counts()["restart"] == 3
        samples = r.samples(STREAM)
        created = [s.stats.created for s in samples]
        changes = [i for i in range(1, len(samples)) if created[i] != created[i - 1]]
        assert len(changes) == 3
        for i in changes:
            assert (samples[i].rate_in_bps, samples[i].rate_out_bps) == (None, None)
            assert samples[i + 1].rate_in_bps is not None  # the chart goes on after the gap
        assert_no_bogus_rates(r)
        assert r.fresh(STREAM)


async def test_a_vanished_stream_shows_ended_keeps_its_history_and_comes_back() -> None:
    async with rig("vanish=at:5s:for:12s") as r:
        states: list[NodeState] = []
        for _ in range(30):
            await r.cycle()
            states.append(r.engine.node(STREAM).state)
        assert states[:4] == [NodeState.LIVE] * 4
        assert set(states[4:16]) == {NodeState.ENDED}  # world seconds 5 to 16: gone
        assert NodeState.LIVE in states[16:18], states  # the selected stream's own probe sees it back
        assert states[-1] is NodeState.LIVE
        samples = r.samples(STREAM)
        reborn = [i for i in range(1, len(samples)) if samples[i].stats.created != samples[i - 1].stats.created]
        assert len(reborn) == 1 and samples[reborn[0]].rate_in_bps is None
        assert samples[0].stats.created < samples[-1].stats.created  # the history from before is kept
        assert_no_bogus_rates(r)


async def test_a_stream_back_between_listing_passes_is_live_again_within_two_intervals() -> None:
    async with rig("vanish=at:5s:for:3s") as r:
        for _ in range(10):  # gone at world seconds 5 to 7, back at 8: LIVE again by 10
            await r.cycle()
        assert r.engine.node(STREAM).state is NodeState.LIVE


@pytest.mark.parametrize("spec", HTTP_FAULTS)
async def test_an_ad_operation_is_sent_once_and_logged_whatever_the_fault(spec: str, tmp_path: Path) -> None:
    async with rig(spec, active=True) as r:
        audit = AuditLog(tmp_path / "audit.jsonl")
        context = ServerContext(r.client.api_url, None, read_only=False)
        ops = AdOps(r.client, audit, r.console_clock, context, publisher_url=r.simulator.publisher_url)
        controller = ops.stream(STREAM)
        try:
            # The playlist is not read first: the rules' check could not run, confirmed as --force does.
            outcome = await r.pumped(controller.send(controller.plan_cue_out(30), confirmed={"check-not-run"}))
        finally:
            await ops.aclose()
        assert r.simulator.faults is not None
        assert r.simulator.faults.counts()["POST"] == 1  # never re-sent, whatever happened
        stream = r.simulator.world.find_stream("default", "app", "stream")
        assert stream is not None
        applied = len(stream.events.events)
        # A captive portal's page (html) or a garbled reply (truncate, types) came from something that took
        # the request: the console cannot know whether it was applied, so it says "unknown", never "sent".
        expected = {"latency": ("accepted", 1), "5xx": ("rejected", 0), "html": ("unknown", 0),
                    "reset": ("unknown", 1), "stall": ("unknown", 1), "truncate": ("unknown", 1),
                    "types": ("unknown", 1)}
        assert (outcome.status, applied) == expected[spec.split("=")[0]], outcome
        contents = audit.read_all()
        assert contents.skipped_lines == 0
        [logged] = contents.sends
        assert (logged.action, logged.stream, logged.body) == ("cue-out", "stream", {
            "eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]})
        assert logged.outcome_recorded
        text = (tmp_path / "audit.jsonl").read_text("utf-8")
        assert TOKEN not in text
        assert all(json.loads(line) for line in text.splitlines())


async def test_stopping_the_simulator_ends_every_task_it_started() -> None:
    """A viewer starts the publisher's sweeper; `stop()` must end it too, or it dangles on the caller's loop."""
    before = asyncio.all_tasks()
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=7,
                                      clock=ManualClock())
    async with httpx.AsyncClient(base_url=simulator.publisher_url) as viewer:
        assert (await viewer.get("/app/stream/llhls.m3u8")).status_code == 200
    assert any(task.get_name() == "publisher-sweeper" for task in asyncio.all_tasks())
    await simulator.stop()
    assert asyncio.all_tasks() - before == set()

"""The truth about a simulated stream's rates, for holding the console's figures to it (tests and bench).

The world's own counters are read at every world tick and around every playlist fetch of a run; from them
`true_rate(t1, t2)` is the traffic itself over any stretch of world time: a tick's bytes spread evenly
over the second they stand for, a fetch's bytes at its instant. A console rate is held to the true rate
over the window it says it covers (`Sample.window_s`, ending at the reading's lastRecvTime on the server's
clock, or when the reply arrived on the console's). When the world and the console run on one FakeClock,
world time and console time are the same instants.

Until the simulator exposes a truth API of its own, this reads `world.counters("stream", row)`.
"""

from __future__ import annotations

import asyncio
import math
import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime

import httpx
from fake_clock import FakeClock

from omeconsole.core.polling.engine import PollingEngine
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.topology import Stream

STEP_S = 0.1
"""The run moves time in steps this long: fetches and polls happen on this grid."""


@dataclass
class Truth:
    stream: Stream
    start_ms: int
    ticks: list[tuple[float, int, int]] = field(default_factory=list)
    """(world seconds, bytes in, bytes out less every fetch's bytes) after each tick."""
    fetched: list[tuple[float, int]] = field(default_factory=list)
    """(world seconds, bytes out the fetch added)."""

    def read(self, sim: RunningSimulator) -> tuple[int, int]:
        sim.world.advance()
        values = sim.world.counters("stream", self.stream.row)
        bytes_in, bytes_out = values["bytes_in"], values["bytes_out"]
        assert isinstance(bytes_in, int) and isinstance(bytes_out, int)
        return bytes_in, bytes_out

    def note_tick(self, sim: RunningSimulator, now_s: float) -> None:
        bytes_in, bytes_out = self.read(sim)
        self.ticks.append((now_s, bytes_in, bytes_out - sum(b for _, b in self.fetched)))

    def cumulative(self, t: float) -> tuple[float, float]:
        """Bytes in and out from the start to world time t, the traffic spread over its ticks."""
        index = bisect_right([at for at, _, _ in self.ticks], t) - 1
        at, bytes_in, synthetic_out = self.ticks[index]
        if index + 1 < len(self.ticks):
            nxt, next_in, next_out = self.ticks[index + 1]
            share = (t - at) / (nxt - at)
            bytes_in += share * (next_in - bytes_in)
            synthetic_out += share * (next_out - synthetic_out)
        return bytes_in, synthetic_out + sum(b for when, b in self.fetched if when <= t)

    def true_rate(self, t1: float, t2: float) -> tuple[float, float]:
        (in1, out1), (in2, out2) = self.cumulative(t1), self.cumulative(t2)
        return (in2 - in1) * 8 / (t2 - t1), (out2 - out1) * 8 / (t2 - t1)

    def world_seconds(self, stamp: datetime) -> float:
        return stamp.timestamp() - self.start_ms / 1000


@dataclass
class Run:
    truth: Truth
    samples: list[tuple[float, Sample]]
    """(world seconds, the console's sample) for every poll of the stream."""


async def play(sim: RunningSimulator, engine: PollingEngine, console_clock: FakeClock, path: NodePath, *,
               fetches_per_s: int, seconds: float, also_advance: tuple[ManualClock, ...] = (),
               interval_steps: int = 10, offset_steps: int = 5) -> Run:
    """Moves the clock in STEP_S steps for `seconds`: fetches the stream's LL-HLS playlist `fetches_per_s`
    times a second from a real HTTP client, and polls every `interval_steps` steps (first after
    `offset_steps`, so the console's polls do not fall on the world's ticks). `also_advance`: the
    world's own clock when it is not the console's (a checkout whose FakeClock cannot drive the world)."""
    stream = sim.world.find_stream(path.vhost, path.app or "", path.stream or "")
    assert stream is not None
    truth = Truth(stream, sim.world.start_ms)
    engine.select(path)
    samples: list[tuple[float, Sample]] = []
    fetching = random.Random(fetches_per_s)  # fetches at seeded random instants, as players make them
    ticks_seen = -1
    async with httpx.AsyncClient(base_url=sim.publisher_url) as viewer:
        for step in range(round(seconds / STEP_S)):
            now_s = (sim.world.clock.now_ms() - truth.start_ms) / 1000
            sim.world.advance()
            if sim.world.ticks_done != ticks_seen:
                ticks_seen = sim.world.ticks_done
                truth.note_tick(sim, now_s)
            if fetching.random() < fetches_per_s * STEP_S:
                before = truth.read(sim)[1]
                reply = await viewer.get(f"/{path.app}/{path.stream}/llhls.m3u8")
                assert reply.status_code == 200
                truth.fetched.append((now_s, truth.read(sim)[1] - before))
            if step % interval_steps == offset_steps:
                await engine.poll_cycle()
                latest = engine.node(path).latest
                assert latest is not None and abs(latest.at - console_clock.monotonic()) < 1e-9
                samples.append((now_s, latest))
            for clock in (console_clock, *also_advance):
                clock.advance(STEP_S)
            await asyncio.sleep(0)
    return Run(truth, samples)


def _relative(ours: float | None, true: float) -> float:
    assert ours is not None
    if true == 0:
        return 0.0 if ours == 0 else math.inf
    return abs(ours - true) / true


def _window_before(truth: Truth, previous: Sample, sample: Sample, now_s: float) -> tuple[float, float]:
    """The window an older console's rate covered, as (length, end in world seconds): between the two
    readings' lastUpdatedTime when that moved (it divided by their difference), else between the polls."""
    before, after = previous.stats.last_updated, sample.stats.last_updated
    if before is not None and after is not None and (after - before).total_seconds() >= 0.05:
        return (after - before).total_seconds(), truth.world_seconds(after)
    return sample.at - previous.at, now_s


def errors(run: Run) -> list[float]:
    """|ours - truth| / truth for every rate the console gave (in and out), over the window each rate
    says it covers. A sample without `window_s` (an older console) covers the time between its and the
    previous reading's lastUpdatedTime (or between the two polls)."""
    out: list[float] = []
    previous: Sample | None = None
    for now_s, sample in run.samples:
        window = getattr(sample, "window_s", None)
        end = now_s
        if getattr(sample, "window_clock", None) == "server":
            assert sample.stats.last_recv is not None
            end = run.truth.world_seconds(sample.stats.last_recv)
        elif window is None and previous is not None and sample.rate_in_bps is not None:
            window, end = _window_before(run.truth, previous, sample, now_s)
        previous = sample
        if window is None or now_s >= run.truth.ticks[-1][0]:
            continue  # no rate, or the world's next tick (which spreads over the window's end) is not in
        truth = run.truth.true_rate(end - window, end)
        out.extend(_relative(ours, true) for ours, true in zip((sample.rate_in_bps, sample.rate_out_bps), truth,
                                                               strict=True))
    return out

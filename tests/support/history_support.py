"""The history tests' tools: readings made by hand and a writer that stores them at given wall times, and
a rig that records the real simulator with both clocks moved by hand."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.history.observations import ObservedEnd, ObservedSample, ServerId
from omeconsole.core.history.recorder import Recorder
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

T0 = 1_767_225_600.0
"""2026-01-01T00:00:00Z: a whole minute, hour and day, so buckets start on it."""
SERVER = ServerId.from_url("http://127.0.0.1:8081", "lab")
STREAM = NodePath("default", "app", "stream")


@dataclass(frozen=True)
class Reading:
    """One reading of a node as a test writes it: wall time, counters, viewers, the life it belongs to."""

    at: float
    total_in: int | None
    total_out: int | None
    viewers: int | None = None
    created: float = T0 - 600
    rate_out: float | None = None
    server_peak: int | None = None
    server_peak_at: float | None = None


def stats(reading: Reading) -> NodeStats:
    peak_at = None if reading.server_peak_at is None else datetime.fromtimestamp(reading.server_peak_at, UTC)
    return NodeStats(
        created=datetime.fromtimestamp(reading.created, UTC), last_updated=datetime.fromtimestamp(reading.at, UTC),
        total_bytes_in=reading.total_in, total_bytes_out=reading.total_out, connections_in={"srt": 1},
        connections_out={"llhls": reading.viewers or 0}, total_connections=reading.viewers,
        max_total_connections=reading.server_peak, max_total_connection_time=peak_at, avg_throughput_in_bps=None,
        avg_throughput_out_bps=None, max_throughput_in_bps=None, max_throughput_out_bps=None,
        last_throughput_in_bytes=None, last_throughput_out_bytes=None)


def observed(reading: Reading, path: NodePath = STREAM, server: ServerId = SERVER) -> ObservedSample:
    sample = Sample(at=reading.at - T0, rate_in_bps=None, rate_out_bps=reading.rate_out, viewers=reading.viewers,
                    stats=stats(reading))
    return ObservedSample(server, path, sample, reading.at)


@contextmanager
def store(path: Path, settings: HistorySettings | None = None, *, now: float | None = None) -> Iterator[HistoryWriter]:
    """A writer on `path` that prunes as if it were `now` (default: just after T0), closed on exit."""
    moment = T0 + 1 if now is None else now
    writer = HistoryWriter.start(path, settings or HistorySettings(), now=lambda: moment)
    try:
        yield writer
    finally:
        writer.close()


def write(path: Path, readings: Iterable[Reading], *, node: NodePath = STREAM, server: ServerId = SERVER,
          ended_at: float | None = None, settings: HistorySettings | None = None, now: float | None = None) -> None:
    with store(path, settings, now=now) as writer:
        for reading in readings:
            assert writer.offer(observed(reading, node, server))
        if ended_at is not None:
            assert writer.offer(ObservedEnd(server, node, ended_at))
        assert writer.flush(30)


START = float(int(time.time())) - 900
"""Where recording tests start both clocks: a quarter of an hour ago, so `history --since 1h` (which asks
the real clock) finds what they record, however long the suite took to get to them."""


@dataclass
class Rig:
    """A simulator and a console clock, both moved by hand, and a store to record them into."""

    sim: RunningSimulator
    sim_clock: ManualClock
    clock: FakeClock
    db: Path

    @property
    def server(self) -> ServerId:
        return ServerId.from_url(self.sim.api_url)

    async def advance(self, engine: PollingEngine, seconds: int) -> None:
        """`seconds` polling cycles, one second of both clocks after each."""
        for _ in range(seconds):
            await engine.poll_cycle()
            self.sim_clock.advance(1)
            self.clock.advance(1)

    def idle(self, seconds: int) -> None:
        """Time passes with no recorder running."""
        self.sim_clock.advance(seconds)
        self.clock.advance(seconds)

    @asynccontextmanager
    async def recorder(self) -> AsyncIterator[tuple[Recorder, PollingEngine]]:
        writer = HistoryWriter.start(self.db, HistorySettings(), now=lambda: self.clock.wall().timestamp())
        async with OmeClient(self.sim.api_url, TEST_TOKEN) as client:
            engine = PollingEngine(client, self.clock, PollSettings(listing_interval=3), rng=random.Random(3))
            recorder = Recorder(engine, self.clock, self.server, writer)
            detach = recorder.attach()
            try:
                yield recorder, engine
            finally:
                detach()
                writer.close()


@asynccontextmanager
async def recording_rig(directory: Path) -> AsyncIterator[Rig]:
    sim_clock = ManualClock(start_ms=int(START * 1000))
    clock = FakeClock(start=1000.0, wall_start=datetime.fromtimestamp(START, UTC))
    async with running_simulator(clock=sim_clock) as sim:
        yield Rig(sim, sim_clock, clock, directory / "history.sqlite3")

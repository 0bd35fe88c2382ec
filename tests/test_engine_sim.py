"""The polling engine against the real simulator (both editions), time moved by hand on both sides."""

from __future__ import annotations

import random

import pytest
from conftest import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.clock import FakeClock
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from simulator.world.clock import ManualClock


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_engine_lists_the_server_and_computes_the_servers_own_rates(edition: str) -> None:
    sim_clock, clock = ManualClock(), FakeClock()
    async with running_simulator(edition=edition, clock=sim_clock) as sim, \
            OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(3))
        live = sorted(sim.world.live_streams(), key=lambda s: (s.vhost, s.app, s.name))
        watched = next(s for s in live if s.name == "stream")
        path = NodePath(watched.vhost, watched.app, watched.name)
        engine.select(path)
        engine.set_visible([NodePath(s.vhost, s.app, s.name) for s in live])
        for _ in range(8):
            await engine.poll_cycle()
            sim_clock.advance(1)
            clock.advance(1)
        assert engine.connection.status == "connected"
        assert engine.server is not None and engine.server.edition == edition
        tree = engine.tree()
        for stream in sim.world.live_streams():
            assert stream.name in tree[stream.vhost][stream.app]
        view = engine.node(path)
        assert view.state is NodeState.LIVE
        assert view.info is not None and view.info.name == "stream"
        samples = [s for s in view.history if s.rate_in_bps is not None]
        assert len(samples) >= 5
        for sample in samples:
            # polled once per server tick, the byte-total rate is exactly the server's own 1 s figure
            assert sample.rate_in_bps == sample.stats.avg_throughput_in_bps > 0
            assert sample.rate_out_bps == sample.stats.avg_throughput_out_bps
        if edition == "oss":
            assert view.latest is not None and view.latest.stats.connections_in is None


async def test_engine_marks_a_stream_the_server_ended() -> None:
    sim_clock, clock = ManualClock(), FakeClock()
    async with running_simulator(clock=sim_clock) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(listing_interval=3), rng=random.Random(3))
        stream = next(s for s in sim.world.live_streams() if s.name == "news")
        path = NodePath(stream.vhost, stream.app, stream.name)
        engine.select(path)
        for _ in range(4):
            await engine.poll_cycle()
            sim_clock.advance(1)
            clock.advance(1)
        sim.world.end_stream(stream)
        for _ in range(5):
            await engine.poll_cycle()
            sim_clock.advance(1)
            clock.advance(1)
        view = engine.node(path)
        assert view.state is NodeState.ENDED
        assert len(view.history) >= 3
        assert "news" not in engine.tree()[stream.vhost][stream.app]

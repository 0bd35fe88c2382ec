"""The polling engine against the real simulator (both editions), one fake clock moving both sides."""

from __future__ import annotations

import random

import pytest
from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_engine_lists_the_server_and_its_rates_agree_with_the_servers_own(edition: str) -> None:
    clock = FakeClock()
    async with running_simulator(edition=edition, clock=clock) as sim, \
            OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(3))
        live = sorted(sim.world.live_streams(), key=lambda s: (s.vhost, s.app, s.name))
        watched = next(s for s in live if s.name == "stream")
        path = NodePath(watched.vhost, watched.app, watched.name)
        engine.select(path)
        engine.set_on_screen([NodePath(s.vhost, s.app, s.name) for s in live])
        for _ in range(12):
            await engine.poll_cycle()
            clock.advance(1)
        assert engine.connection.status == "connected"
        assert engine.server is not None and engine.server.edition == edition
        listing = engine.listing()
        for stream in sim.world.live_streams():
            assert stream.name in listing[stream.vhost][stream.app].live
        view = engine.node(path)
        assert view.state is NodeState.LIVE
        assert view.info is not None and view.info.name == "stream"
        assert view.sampled_every == 1.0
        history = list(view.history)
        rated = [i for i, s in enumerate(history) if s.rate_in_bps is not None]
        assert rated and rated[0] == 1 and len(rated) == len(history) - 1  # from one server step on, every reading
        for i in rated:
            sample = history[i]
            assert sample.window_s is not None
            # polled once per server tick: the rate over the window is the mean of the server's own 1 s
            # figures over the same ticks
            window = [s for s in history[:i + 1] if s.at > sample.at - sample.window_s]
            server_in = sum(s.stats.avg_throughput_in_bps or 0 for s in window) / len(window)
            server_out = sum(s.stats.avg_throughput_out_bps or 0 for s in window) / len(window)
            assert sample.rate_in_bps == pytest.approx(server_in, rel=1e-9) and server_in > 0
            assert sample.rate_out_bps == pytest.approx(server_out, rel=1e-9)
            assert sample.disagree == frozenset()
        if edition == "oss":
            assert view.latest is not None and view.latest.stats.connections_in is None


async def test_engine_marks_a_stream_the_server_ended() -> None:
    clock = FakeClock()
    async with running_simulator(clock=clock) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(listing_interval=3), rng=random.Random(3))
        stream = next(s for s in sim.world.live_streams() if s.name == "news")
        path = NodePath(stream.vhost, stream.app, stream.name)
        engine.select(path)
        for _ in range(4):
            await engine.poll_cycle()
            clock.advance(1)
        sim.world.end_stream(stream)
        for _ in range(5):
            await engine.poll_cycle()
            clock.advance(1)
        view = engine.node(path)
        assert view.state is NodeState.ENDED
        assert len(view.history) >= 3
        assert "news" not in engine.listing()[stream.vhost][stream.app].live
        assert "news" in engine.listing()[stream.vhost][stream.app].ended

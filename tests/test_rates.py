"""Rates when the console polls faster than the server updates: no new information is not zero traffic."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from conftest import running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.clock import FakeClock
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.core.polling.rates import SERVER_STILL_S, make_sample
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats
from simulator.world.clock import ManualClock

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stats(bytes_in: int, bytes_out: int, updated_s: float) -> NodeStats:
    return NodeStats(created=T0, last_updated=T0 + timedelta(seconds=updated_s), total_bytes_in=bytes_in,
                     total_bytes_out=bytes_out, connections_in=None, connections_out={}, total_connections=1,
                     max_total_connections=1, max_total_connection_time=T0, avg_throughput_in_bps=0,
                     avg_throughput_out_bps=0, max_throughput_in_bps=0, max_throughput_out_bps=0,
                     last_throughput_in_bytes=0, last_throughput_out_bytes=0)


def test_a_poll_between_two_server_updates_keeps_the_previous_rate() -> None:
    first = make_sample(None, stats(0, 0, 0), at=10.0)
    moved = make_sample(first, stats(1_000_000, 2_000_000, 1), at=11.0)
    assert (moved.rate_in_bps, moved.rate_out_bps) == (8_000_000, 16_000_000)
    again = make_sample(moved, stats(1_000_000, 2_000_000, 1), at=11.5)  # the server has not updated yet
    assert (again.rate_in_bps, again.rate_out_bps) == (8_000_000, 16_000_000)
    later = make_sample(again, stats(2_500_000, 2_500_000, 2), at=12.0)
    assert (later.rate_in_bps, later.rate_out_bps) == (12_000_000, 4_000_000)


def test_a_first_reading_polled_again_before_an_update_still_has_no_rate() -> None:
    first = make_sample(None, stats(500, 500, 0), at=10.0)
    again = make_sample(first, stats(500, 500, 0), at=10.4)
    assert again.rate_in_bps is None and again.rate_out_bps is None


def test_traffic_that_stopped_reads_zero_once_the_server_stays_still() -> None:
    sample = make_sample(make_sample(None, stats(0, 0, 0), at=0.0), stats(1_000, 1_000, 1), at=1.0)
    assert sample.rate_in_bps == 8_000
    at = 1.0
    while at - 1.0 < SERVER_STILL_S - 0.5:  # polled every half second: the server says nothing new
        at += 0.5
        sample = make_sample(sample, stats(1_000, 1_000, 1), at=at)
        assert sample.rate_in_bps == 8_000
    sample = make_sample(sample, stats(1_000, 1_000, 1), at=1.0 + SERVER_STILL_S)
    assert sample.rate_in_bps == 0.0 and sample.rate_out_bps == 0.0  # still for long enough: no traffic
    # a session change moves lastUpdatedTime without bytes: that is zero traffic, said by the server itself
    quiet = make_sample(make_sample(None, stats(0, 0, 0), at=0.0), stats(0, 0, 1), at=0.5)
    assert quiet.rate_in_bps == 0.0


async def test_the_engine_polling_twice_per_server_tick_never_shows_a_bogus_zero() -> None:
    sim_clock, clock = ManualClock(), FakeClock()
    async with running_simulator(clock=sim_clock) as sim, OmeClient(sim.api_url, "test-token") as client:
        engine = PollingEngine(client, clock, PollSettings(interval=0.5), rng=random.Random(3))
        watched = next(s for s in sim.world.live_streams() if s.name == "stream")
        path = NodePath(watched.vhost, watched.app, watched.name)
        engine.select(path)
        for _ in range(12):  # the server's counters move once a second; the console asks twice a second
            await engine.poll_cycle()
            sim_clock.advance(0.5)
            clock.advance(0.5)
        history = engine.node(path).history
        rated = [s for s in history if s.rate_in_bps is not None]
        assert len(history) >= 10 and len(rated) >= len(history) - 2
        for sample in rated:
            assert sample.rate_in_bps == sample.stats.avg_throughput_in_bps > 0
            assert sample.rate_out_bps == sample.stats.avg_throughput_out_bps

"""The faults the console's alert rules need: an ingest stall (input bytes stop, the stream stays listed with
its input connection, the server's throughput fields freeze) and a bit-rate drop, on chosen streams and in
time windows; seen in the world itself and through the statistics API."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sim_support import api_client, running_simulator

from simulator.world.clock import ManualClock
from simulator.world.fault_spec import parse_fault_spec
from simulator.world.faults import WorldFaults
from simulator.world.scenario import load_scenario
from simulator.world.world import World

STALLED = "default/app/stream"
OTHER = "default/app/news"


def world_with(spec: str) -> tuple[World, ManualClock, WorldFaults]:
    clock = ManualClock()
    world = World(load_scenario("demo"), clock, seed=5)
    faults = WorldFaults(world, parse_fault_spec(spec), seed=5)
    for path in (STALLED, OTHER, "default/app"):
        world.watch_bytes(path)
    return world, clock, faults


def at(clock: ManualClock, world: World, seconds: float) -> None:
    clock.set_ms(world.start_ms + round(seconds * 1000))
    world.advance()


def test_an_ingest_stall_stops_the_input_bytes_of_the_chosen_streams_only_for_its_window() -> None:
    world, clock, faults = world_with(f"ingest-stall=30s..90s,streams={STALLED}")
    at(clock, world, 30)
    stream = world.find_stream("default", "app", "stream")
    assert stream is not None
    frozen = world.counters("stream", stream.row)
    at(clock, world, 90)
    during = world.counters("stream", stream.row)
    assert world.bytes_at(STALLED, world.start_ms + 30_000) == world.bytes_at(STALLED)  # nothing in, nothing out
    for key in ("bytes_in", "avg_in", "max_in", "last_in", "last_recv_ms", "avg_out", "last_out"):
        assert during[key] == frozen[key], key  # throughput frozen, as the real server's
    assert during["provider_conn"]["rtmp"] == 1 and stream.live  # listed, its input connection kept
    assert during["total_conn"] > 0  # its viewers stay connected
    assert world.true_rate(OTHER, "in", 60) > 2_500_000  # the other streams flow on
    assert world.true_rate("default/app", "in", 60) > 0
    at(clock, world, 100)
    assert 0.8 * 4_500_000 < world.true_rate(STALLED, "in", 9) < 1.2 * 4_500_000  # back after the window
    assert world.counters("stream", stream.row)["avg_in"] != frozen["avg_in"]
    assert faults.counts["ingest-stall"] == 1


def test_a_bitrate_drop_takes_the_input_to_its_share_and_repeats_on_schedule() -> None:
    world, clock, faults = world_with("bitrate-drop=20%@every:60s:for:20s,streams=*/nothing/here|default/app/*")
    at(clock, world, 60)
    normal = world.true_rate(STALLED, "in", 60)
    at(clock, world, 80)
    dropped = world.true_rate(STALLED, "in", 20)
    assert dropped == pytest.approx(0.2 * normal, rel=0.05)
    assert world.true_rate(OTHER, "in", 20) == pytest.approx(
        0.2 * world.true_rate(OTHER, "in", 20, world.start_ms + 60_000), rel=0.05)
    at(clock, world, 120)
    assert world.true_rate(STALLED, "in", 40) == pytest.approx(normal, rel=0.05)
    at(clock, world, 140)
    assert world.true_rate(STALLED, "in", 20) == pytest.approx(0.2 * normal, rel=0.05)  # again, every 60 s
    assert faults.counts["bitrate-drop"] == 2 * 4  # the four streams of app, twice


async def stream_stats(http: httpx.AsyncClient) -> dict[str, Any]:
    reply = await http.get("/v2/stats/current/vhosts/default/apps/app/streams/stream")
    assert reply.status_code == 200
    record: dict[str, Any] = reply.json()["response"]
    return record


async def test_a_stalled_stream_seen_through_the_api_looks_like_a_stalled_encoder() -> None:
    clock = ManualClock()
    async with running_simulator("demo", clock=clock, faults=f"ingest-stall=at:20s:for:40s,streams={STALLED}") \
            as simulator, api_client(simulator) as http:
        clock.advance(20)
        before = await stream_stats(http)
        clock.advance(40)
        during = await stream_stats(http)
        assert during["providers"] == before["providers"]  # bytes, throughput, last receive time: frozen
        assert during["providers"]["connections"]["rtmp"] == 1
        assert during["publishers"]["totalBytesOut"] == before["publishers"]["totalBytesOut"]
        assert during["publishers"]["totalConnections"] > 0
        listing = (await http.get("/v1/vhosts/default/apps/app/streams")).json()["response"]
        assert "stream" in listing
        news = "/v2/stats/current/vhosts/default/apps/app/streams/news"
        assert (await http.get(news)).json()["response"]["providers"]["avgThroughputIn"] > 0
        clock.advance(5)
        after = await stream_stats(http)
        assert after["providers"]["totalBytesIn"] > during["providers"]["totalBytesIn"]
        assert after["providers"]["lastRecvTime"] != during["providers"]["lastRecvTime"]
        assert simulator.faults is not None and simulator.faults.counts()["ingest-stall"] == 1


async def test_a_bitrate_drop_seen_through_the_api_in_the_servers_own_throughput() -> None:
    clock = ManualClock()
    async with running_simulator("demo", clock=clock, faults=f"bitrate-drop=0.25@30s..,streams={STALLED}") \
            as simulator, api_client(simulator) as http:
        clock.advance(30)
        normal = (await stream_stats(http))["providers"]["avgThroughputIn"]
        clock.advance(10)
        dropped = (await stream_stats(http))["providers"]["avgThroughputIn"]
        assert normal > 3_000_000
        assert 0.15 * normal < dropped < 0.35 * normal

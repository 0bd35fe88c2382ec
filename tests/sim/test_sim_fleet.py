"""A fleet in one process (start_fleet): an origin that ingests and edges that pull its streams over OVT and
serve the viewers, each a whole server on its own ports with its own token and edition, read over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from simulator.http.auth import basic_header
from simulator.http.fleet import RunningFleet, start_fleet
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.fault_spec import parse_fault_spec
from simulator.world.faults import WorldFaults
from simulator.world.fleet import fleet_worlds
from simulator.world.scenario import StreamSpec, load_scenario
from simulator.world.world import World

TOKENS = ["origin-token", "edge-one-token", "edge-two-token"]
STREAM = "default/app/stream"


@contextlib.asynccontextmanager
async def fleet(clock: ManualClock, **options: Any) -> AsyncIterator[RunningFleet]:
    running = await start_fleet("demo", edges=2, access_tokens=TOKENS, editions=["enterprise", "oss", "enterprise"],
                                seed=3, clock=clock, **options)
    try:
        yield running
    finally:
        await running.stop()


def api(server: RunningSimulator) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.api_url, headers={"Authorization": basic_header(server.access_token)},
                             timeout=10)


async def get(server: RunningSimulator, path: str, status: int = 200) -> Any:
    async with api(server) as http:
        reply = await http.get(path)
    assert reply.status_code == status, (server.api_url, path, reply.text)
    return reply.json().get("response")


async def v1_stream(server: RunningSimulator, path: str = STREAM) -> dict[str, Any]:
    vhost, app, stream = path.split("/")
    record: dict[str, Any] = await get(server, f"/v1/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}")
    return record


async def test_each_server_has_its_own_ports_token_and_edition() -> None:
    clock = ManualClock()
    async with fleet(clock) as running:
        urls = {url for server in running.servers for url in (server.api_url, server.publisher_url)}
        assert len(urls) == 6
        versions = [(await get(server, "/v1/version"))["version"] for server in running.servers]
        assert versions[0].startswith("0.20.5") and versions[1].startswith("0.21") and versions[2].startswith("0.20.5")
        async with httpx.AsyncClient(base_url=running.edges[0].api_url, timeout=10,
                                     headers={"Authorization": basic_header(TOKENS[0])}) as wrong:
            assert (await wrong.get("/v1/vhosts")).status_code == 401  # the origin's token does not open an edge
        await get(running.edges[0], "/v2/stats/current/vhosts/default", 404)  # open source edge: no /v2


async def test_edges_list_the_origins_streams_pulled_over_ovt_and_relay_every_byte() -> None:
    clock = ManualClock()
    async with fleet(clock) as running:
        clock.advance(30)
        for app in ("app", "live"):
            names = await get(running.origin, f"/v1/vhosts/default/apps/{app}/streams")
            for edge in running.edges:
                assert await get(edge, f"/v1/vhosts/default/apps/{app}/streams") == names
        origin_record = await get(running.origin, "/v2/stats/current/vhosts/default/apps/app/streams/stream")
        assert origin_record["providers"]["connections"]["rtmp"] == 1
        assert origin_record["publishers"]["connections"]["ovt"] == 2  # one per edge pulling
        assert origin_record["publishers"]["totalConnections"] == 2  # and nobody watches the origin itself
        edge_record = await get(running.edges[1], "/v2/stats/current/vhosts/default/apps/app/streams/stream")
        assert edge_record["providers"]["connections"] == {**dict.fromkeys(edge_record["providers"]["connections"], 0),
                                                           "ovt": 1}
        assert edge_record["publishers"]["connections"]["ovt"] == 0
        info = await get(running.edges[0], "/v1/vhosts/default/apps/app/streams/stream")
        assert info["input"]["sourceType"] == "Ovt"
        origin_in, origin_out = origin_record["providers"]["totalBytesIn"], origin_record["publishers"]["totalBytesOut"]
        edges_in = [(await v1_stream(edge))["totalBytesIn"] for edge in running.edges]
        assert edges_in == [origin_in, origin_in]  # each edge received every byte the origin ingested
        assert origin_out == sum(edges_in)  # which is exactly what the origin sent them
        viewers = [(await v1_stream(edge))["totalConnections"] for edge in running.edges]
        assert all(count > 0 for count in viewers)  # the viewers are on the edges


async def test_the_fleet_sum_of_a_streams_viewers_is_the_sum_of_each_servers_own_numbers() -> None:
    clock = ManualClock()
    async with fleet(clock) as running:
        clock.advance(13.2)
        before = [(await v1_stream(server))["connections"]["llhls"] for server in running.servers]
        players = [(running.edges[0], "127.0.0.2"), (running.edges[0], "127.0.0.3"), (running.edges[1], "127.0.0.4")]
        async with contextlib.AsyncExitStack() as open_players:  # a player counts while its connection is open
            for server, address in players:  # real players, each from its own address
                transport = httpx.AsyncHTTPTransport(local_address=address)
                player = await open_players.enter_async_context(
                    httpx.AsyncClient(base_url=server.publisher_url, transport=transport, timeout=10))
                assert (await player.get("/app/stream/llhls.m3u8")).status_code == 200
            after = [(await v1_stream(server))["connections"]["llhls"] for server in running.servers]
            assert [a - b for a, b in zip(after, before, strict=True)] == [0, 2, 1]
            assert sum(after) == sum(before) + 3
            records = [await v1_stream(server) for server in running.servers]
        assert [record["connections"]["ovt"] for record in records] == [2, 0, 0]  # relays, not viewers
        for record in records:  # each server's total is its protocols' sum
            assert record["totalConnections"] == sum(record["connections"].values())


async def test_a_stream_ending_on_the_origin_ends_on_every_edge_and_a_new_one_is_pulled() -> None:
    clock = ManualClock()
    async with fleet(clock) as running:
        clock.advance(10)
        edge_app_before = await get(running.edges[0], "/v1/stats/current/vhosts/default/apps/app")
        origin_world = running.origin.world
        stream = origin_world.find_stream("default", "app", "news")
        assert stream is not None
        origin_world.end_stream(stream)
        for edge in running.edges:
            assert "news" not in await get(edge, "/v1/vhosts/default/apps/app/streams")
            await get(edge, "/v1/stats/current/vhosts/default/apps/app/streams/news", 404)
        edge_app_after = await get(running.edges[0], "/v1/stats/current/vhosts/default/apps/app")
        assert edge_app_after["totalBytesIn"] >= edge_app_before["totalBytesIn"]  # parents keep ended streams' bytes
        origin_app = await get(running.origin, "/v2/stats/current/vhosts/default/apps/app")
        assert origin_app["publishers"]["connections"]["ovt"] == 2 * 3  # three streams left, two edges each
        origin_world.start_stream("default", "app", StreamSpec("late", "srt", 2000, 10))
        clock.advance(5)
        for edge in running.edges:
            assert (await get(edge, "/v1/vhosts/default/apps/app/streams"))[-1] == "late"
            assert (await v1_stream(edge, "default/app/late"))["totalBytesIn"] == (
                await v1_stream(running.origin, "default/app/late"))["totalBytesIn"]


async def test_origin_faults_reach_the_edges_through_the_relay() -> None:
    clock = ManualClock()
    async with fleet(clock, faults=f"ingest-stall=10s..40s,streams={STREAM}") as running:
        clock.advance(10)
        before = [(await v1_stream(server))["totalBytesIn"] for server in running.servers]
        clock.advance(30)
        during = [(await v1_stream(server))["totalBytesIn"] for server in running.servers]
        assert during == before  # stalled at the origin, so at every edge
        assert [(await v1_stream(edge))["totalConnections"] for edge in running.edges] != [0, 0]


async def test_a_fleet_stops_cleanly_and_frees_its_ports() -> None:
    clock = ManualClock()
    running = await start_fleet("empty", edges=3, clock=clock)
    addresses = [server.api_url.removeprefix("http://").rsplit(":", 1) for server in running.servers]
    await running.stop()
    for host, port in addresses:
        with pytest.raises(OSError):
            await asyncio.open_connection(host, int(port))
    with pytest.raises(ValueError, match="at least one edge"):
        await start_fleet("empty", edges=0)
    with pytest.raises(ValueError, match="access_tokens: 2 given for 3 servers"):
        await start_fleet("empty", edges=2, access_tokens=["a", "b"])


def test_edges_follow_the_origin_through_churn_vanishing_and_restarts() -> None:
    clock = ManualClock()
    origin = World(load_scenario("demo"), clock, seed=11, viewer_share=0.0)
    edges = fleet_worlds(origin, 3, seed=11)
    WorldFaults(origin, parse_fault_spec("vanish=every:50s:for:20s:share:0.3,restart=at:333s"), seed=11)
    for second in range(0, 900, 7):
        clock.set_ms(origin.start_ms + second * 1000)
        for edge in edges:
            edge.advance()
        live = {(s.vhost, s.app, s.name): s for s in origin.live_streams()}
        for edge in edges:
            assert {(s.vhost, s.app, s.name) for s in edge.live_streams()} == set(live)
        for key, stream in live.items():
            counters = origin.counters("stream", stream.row)
            assert counters["publisher_conn"]["ovt"] == len(edges)
            assert counters["total_conn"] == len(edges)  # no viewers on the origin
            for edge in edges:
                mirrored = edge.find_stream(*key)
                assert mirrored is not None
                edge_counters = edge.counters("stream", mirrored.row)
                assert edge_counters["provider_conn"]["ovt"] == 1
                if mirrored.created_ms == stream.created_ms:  # pulled from its start: every byte relayed
                    assert edge_counters["bytes_in"] == counters["bytes_in"]
                    assert counters["bytes_out"] == len(edges) * counters["bytes_in"]
    assert origin.scenario.traffic.churn_per_hour > 0 and origin.topology_revision > 20

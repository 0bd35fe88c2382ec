"""World faults seen through the management API: a server restart and streams vanishing and returning."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx

from simulator.http.auth import basic_header
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import ManualClock
from simulator.world.fault_spec import parse_fault_spec
from simulator.world.faults import WorldFaults
from simulator.world.scenario import load_scenario
from simulator.world.timefmt import iso8601_ms
from simulator.world.world import World

TOKEN = "fault-test-token"
LEVELS = {
    "vhost": "/v2/stats/current/vhosts/default",
    "app": "/v2/stats/current/vhosts/default/apps/app",
    "stream": "/v2/stats/current/vhosts/default/apps/app/streams/sports",
}
SERVER_V1 = "/v1/stats/current"


@contextlib.asynccontextmanager
async def faulty(spec: str, clock: ManualClock) -> AsyncIterator[tuple[RunningSimulator, httpx.AsyncClient]]:
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=7,
                                      clock=clock, faults=spec)
    try:
        async with httpx.AsyncClient(base_url=simulator.api_url, headers={"Authorization": basic_header(TOKEN)},
                                     timeout=10) as http:
            yield simulator, http
    finally:
        await simulator.stop()


async def stats(http: httpx.AsyncClient, path: str) -> dict[str, Any]:
    reply = await http.get(path)
    assert reply.status_code == 200, reply.text
    response: dict[str, Any] = reply.json()["response"]
    return response


async def test_a_restart_resets_every_counter_at_every_level_with_new_created_times() -> None:
    clock = ManualClock()
    async with faulty("restart=every:120s", clock) as (simulator, http):
        start = simulator.world.start_ms
        reply = await http.post("/v1/vhosts/default/apps/app/streams/sports:sendEvent",
                                json={"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": "a"}]})
        assert reply.status_code == 200
        clock.advance(119)
        before = {level: await stats(http, path) for level, path in LEVELS.items()}
        for record in before.values():
            assert record["providers"]["totalBytesIn"] > 0
            assert record["publishers"]["maxTotalConnections"] > 0
            assert record["createdTime"] == iso8601_ms(start)
        clock.advance(1)
        restarted_at = iso8601_ms(start + 120_000)
        for level, path in LEVELS.items():
            record = await stats(http, path)
            assert record["createdTime"] == restarted_at, level
            assert record["providers"]["totalBytesIn"] == 0, level
            assert record["publishers"]["totalBytesOut"] == 0, level
            assert record["publishers"]["maxTotalConnections"] == 0, level
            assert record["publishers"]["totalConnections"] == 0, level
        server = await stats(http, SERVER_V1)
        assert (server["createdTime"], server["totalBytesIn"], server["totalBytesOut"]) == (restarted_at, 0, 0)
        stream = simulator.world.find_stream("default", "app", "sports")
        assert stream is not None and stream.created_ms == start + 120_000
        assert stream.events.events == []  # accepted events do not survive a restart
        listing = (await http.get("/v1/vhosts/default/apps/app/streams")).json()["response"]
        assert "sports" in listing
        clock.advance(5)
        after = await stats(http, LEVELS["stream"])
        assert after["createdTime"] == restarted_at
        assert 0 < after["providers"]["totalBytesIn"] < before["stream"]["providers"]["totalBytesIn"]
        clock.advance(115)
        assert (await stats(http, LEVELS["app"]))["createdTime"] == iso8601_ms(start + 240_000)
        assert simulator.faults is not None and simulator.faults.counts()["restart"] == 2


async def test_vanished_streams_answer_404_leave_the_listing_and_return_as_new_streams() -> None:
    clock = ManualClock()
    async with faulty("vanish=every:60s:for:20s", clock) as (simulator, http):
        start = simulator.world.start_ms
        clock.advance(60)
        listing = (await http.get("/v1/vhosts/default/apps/app/streams")).json()["response"]
        assert listing == []
        gone = await http.get(LEVELS["stream"])
        assert gone.status_code == 404
        assert gone.json()["message"] == "[HTTP] Could not find the stream: [default/app/sports] (404)"
        clock.advance(20)
        back = await stats(http, LEVELS["stream"])
        assert back["createdTime"] == iso8601_ms(start + 80_000)
        assert back["providers"]["totalBytesIn"] == 0
        listing = (await http.get("/v1/vhosts/default/apps/app/streams")).json()["response"]
        assert set(listing) == {"stream", "news", "sports", "backup"}
        app = await stats(http, LEVELS["app"])
        assert app["createdTime"] == iso8601_ms(start)  # parents keep running: only the streams went away


def _vanishing_world(seed: int) -> tuple[World, ManualClock, WorldFaults]:
    clock = ManualClock()
    world = World(load_scenario("demo"), clock, seed)
    return world, clock, WorldFaults(world, parse_fault_spec("vanish=every:60s:for:20s:share:0.5"), seed)


def _live_names(world: World) -> set[str]:
    return {f"{s.app}/{s.name}" for s in world.live_streams()}


def test_a_share_of_streams_vanishes_chosen_by_the_seed_and_all_return() -> None:
    picks = []
    for seed in (3, 3, 4):
        world, clock, faults = _vanishing_world(seed)
        everyone = _live_names(world)
        clock.advance(60)
        world.advance()
        remaining = _live_names(world)
        assert len(everyone) - len(remaining) == round(len(everyone) / 2)
        assert faults.streams_away == len(everyone) - len(remaining)
        picks.append(everyone - remaining)
        clock.advance(20)
        world.advance()
        assert faults.streams_away == 0
        assert everyone - _live_names(world) <= {n for n in everyone if n.startswith("live/")}  # churn may rename
        assert faults.counts["return"] == faults.counts["vanish"]
    assert picks[0] == picks[1]
    assert picks[0] != picks[2]


def test_a_one_shot_restart_happens_once_even_when_ticks_are_caught_up_late() -> None:
    clock = ManualClock()
    world = World(load_scenario("demo"), clock, 1)
    faults = WorldFaults(world, parse_fault_spec("restart=at:30s"), 1)
    clock.advance(300)
    world.advance()
    assert faults.counts["restart"] == 1
    assert world.counters("server", 0)["created_ms"] == world.start_ms + 30_000

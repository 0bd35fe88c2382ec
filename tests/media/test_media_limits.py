"""The publisher's limits, seen from outside: viewers counted in the statistics cannot be inflated by
varying request headers, the counted connections are bounded per client address and in all (clients
past a limit are still served) and free themselves when clients close their connections, and the media kept in
memory stays within the cache budget however many streams are fetched, and is released when nobody
watches any more (measured with tracemalloc).

Limits are set through the publisher's `PublisherLimits`; the streams are watched by nobody else
(audience 0), so every connection the statistics show is one of these clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sim_support import api_client, running_simulator

import simulator
from simulator.http.publisher import PublisherLimits
from simulator.http.server import RunningSimulator
from simulator.media.asset import load_asset
from simulator.world.clock import ManualClock
from simulator.world.scenario import load_scenario

STREAMS = [f"s{index}" for index in range(8)]
MIB = 1024 * 1024


@pytest.fixture
def quiet_scenario(tmp_path: Path) -> str:
    """Eight permanent streams nobody watches."""
    streams = "".join(f'    [[vhosts.apps.streams]]\n    name = "{name}"\n    input = "rtmp"\n    bitrate_kbps = 1000\n'
                      f"    audience = 0\n    permanent = true\n" for name in STREAMS)
    path = tmp_path / "quiet.toml"
    path.write_text(f'[[vhosts]]\nname = "default"\n  [[vhosts.apps]]\n  name = "app"\n{streams}')
    load_scenario(str(path))  # fails here, not in the simulator, if the file is wrong
    return str(path)


@contextlib.asynccontextmanager
async def quiet_simulator(scenario: str, clock: ManualClock,
                          limits: PublisherLimits | None = None) -> AsyncIterator[RunningSimulator]:
    async with running_simulator(scenario, clock=clock, publisher_limits=limits) as sim:
        clock.advance(13.2)
        yield sim


def _client(sim: RunningSimulator, address: str = "127.0.0.1") -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=sim.publisher_url, timeout=10,
                             transport=httpx.AsyncHTTPTransport(local_address=address))


async def _viewers(sim: RunningSimulator) -> list[int]:
    """The llhls connections of every quiet stream, from the management API."""
    async with api_client(sim) as api:
        counts = []
        for name in STREAMS:
            body = (await api.get(f"/v2/stats/current/vhosts/default/apps/app/streams/{name}")).json()
            counts.append(body["response"]["publishers"]["connections"]["llhls"])
        return counts


async def _watch(client: httpx.AsyncClient, name: str) -> None:
    response = await client.get(f"/app/{name}/llhls.m3u8")
    assert response.status_code == 200


async def _settled_viewers(sim: RunningSimulator, expected: list[int]) -> list[int]:
    """The counts once the server has heard of closed connections (it does at once; the loop only waits for
    the close to travel through the event loop)."""
    for _ in range(2000):
        counts = await _viewers(sim)
        if counts == expected:
            return counts
        await asyncio.sleep(0.01)
    return counts


async def test_distinct_user_agents_on_one_connection_are_one_viewer(quiet_scenario: str, clock: ManualClock) -> None:
    async with quiet_simulator(quiet_scenario, clock) as sim:
        async with _client(sim) as client:
            for index in range(500):
                response = await client.get("/app/s0/llhls.m3u8", headers={"User-Agent": f"player/{index}"})
                assert response.status_code == 200
            assert await _viewers(sim) == [1, 0, 0, 0, 0, 0, 0, 0]
        assert await _settled_viewers(sim, [0] * 8) == [0] * 8  # its connection closed


async def test_counted_connections_are_bounded_per_address_and_in_all_and_free_themselves(
        quiet_scenario: str, clock: ManualClock) -> None:
    limits = PublisherLimits(max_sessions=4, max_sessions_per_address=2)
    async with quiet_simulator(quiet_scenario, clock, limits) as sim:
        async with _client(sim, "127.0.0.2") as a, _client(sim, "127.0.0.3") as b, _client(sim, "127.0.0.4") as c:
            for name in STREAMS[:3]:
                await _watch(a, name)  # the third is served but not counted: two per address
            assert await _viewers(sim) == [1, 1, 0, 0, 0, 0, 0, 0]
            for name in STREAMS[3:6]:
                await _watch(b, name)
            assert await _viewers(sim) == [1, 1, 0, 1, 1, 0, 0, 0]
            await _watch(c, STREAMS[6])  # the table is full: served, not counted
            assert await _viewers(sim) == [1, 1, 0, 1, 1, 0, 0, 0]
        assert await _settled_viewers(sim, [0] * 8) == [0] * 8  # every connection closed
        async with _client(sim, "127.0.0.4") as c:
            await _watch(c, STREAMS[6])
            assert await _viewers(sim) == [0, 0, 0, 0, 0, 0, 1, 0]


async def _fetch_everything(client: httpx.AsyncClient, name: str) -> int:
    """Every init, part and segment both chunklists of a stream list (not the hinted part, which does not
    exist yet); the bytes received."""
    received = 0
    master = (await client.get(f"/app/{name}/llhls.m3u8")).text
    for chunklist in (line for line in master.replace('"', "\n").splitlines() if line.startswith("chunklist_")):
        text = (await client.get(f"/app/{name}/{chunklist}")).text
        listed = "\n".join(line for line in text.splitlines() if not line.startswith("#EXT-X-PRELOAD-HINT"))
        for line in listed.replace('"', "\n").splitlines():
            if line.endswith(".m4s"):
                response = await client.get(f"/app/{name}/{line}")
                assert response.status_code == 200, line
                received += len(response.content)
    return received


SIMULATOR_CODE = f"{Path(simulator.__file__).parent}/*"


def _held_bytes() -> int:
    """Bytes the simulator's own code allocated and still holds: what another test left running in this
    process, and the test client's buffers, are not the publisher's and are not counted."""
    gc.collect()
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, SIMULATOR_CODE)])
    return sum(stat.size for stat in snapshot.statistics("filename"))


async def test_media_in_memory_stays_within_the_budget_and_goes_when_nobody_watches(
        quiet_scenario: str, clock: ManualClock) -> None:
    load_asset()  # the asset stays for the process's life: not part of what is measured
    budget = MIB
    async with quiet_simulator(quiet_scenario, clock, PublisherLimits(cache_bytes=budget)) as sim, \
            _client(sim) as client:
        clock.advance(60 - 13.2)  # full windows: ten segments and their parts per track
        await _viewers(sim)  # the API's own response cache exists before the measure starts
        tracemalloc.start()
        try:
            before = _held_bytes()
            received = sum([await _fetch_everything(client, name) for name in STREAMS])
            held = _held_bytes() - before
            clock.advance(30)  # every client stopped fetching; the sweeper runs on the world clock
            for _ in range(20):  # let the sweeper's wake-up run
                await _viewers(sim)
            released = _held_bytes() - before
        finally:
            tracemalloc.stop()
        assert received > 10 * budget  # without the budget, all of it would still be held
        assert held < budget + 2 * MIB, (held, received)  # streams' playlists and objects besides
        assert released < MIB // 2, released
        # the media went, but the client's keep-alive connection is open: it still counts on every stream it read
        assert await _viewers(sim) == [1] * 8

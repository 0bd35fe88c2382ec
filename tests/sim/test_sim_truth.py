"""The simulator's truth about bytes (World.watch_bytes / bytes_at / true_rate), checked against what the
statistics API shows at the same world times while a real client fetches the stream's playlists between
ticks, which moves totalBytesOut and lastUpdatedTime off the tick grid, as the real server's counters do."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest
from sim_support import api_client, running_simulator

from simulator.world.clock import ManualClock

PATH = "default/app/stream"
STATS = "/v2/stats/current/vhosts/default/apps/app/streams/stream"


def _ms(text: str) -> int:
    return round(datetime.fromisoformat(text).timestamp() * 1000)


async def test_the_truth_is_what_the_statistics_showed_at_each_moment_and_its_rate_is_exact() -> None:
    clock = ManualClock()
    async with running_simulator("demo", clock=clock) as simulator, api_client(simulator) as api, \
            httpx.AsyncClient(base_url=simulator.publisher_url, timeout=10) as player:
        world = simulator.world
        clock.advance(13.2)
        world.watch_bytes(PATH)
        world.watch_bytes("default/app")
        start = clock.now_ms()
        seen: list[tuple[int, int, int]] = []  # (world time, totalBytesOut, lastUpdatedTime)
        for step in range(40):
            clock.advance(0.25)
            if step % 3 == 0:  # a client between two ticks: its bytes count at once
                assert (await player.get("/app/stream/llhls.m3u8")).status_code == 200
            stats = (await api.get(STATS)).json()["response"]
            seen.append((clock.now_ms(), stats["publishers"]["totalBytesOut"], _ms(stats["lastUpdatedTime"])))
            assert world.bytes_at(PATH) == (stats["providers"]["totalBytesIn"], stats["publishers"]["totalBytesOut"])
        for time_ms, total_out, _ in seen:  # the past, exactly as it was shown then
            assert world.bytes_at(PATH, time_ms)[1] == total_out
        assert any(updated % 1000 != start % 1000 for _, _, updated in seen)  # moved off the tick grid
        (t0, out0, _), (t1, out1, _) = seen[0], seen[-1]
        window_s = (t1 - t0) / 1000
        assert world.true_rate(PATH, "out", window_s) == pytest.approx((out1 - out0) * 8 / window_s)
        app_in = world.true_rate("default/app", "in", 5)
        assert 0.8 * 16_000_000 < app_in < 1.2 * 16_000_000  # the app's four streams: 4.5+3+2.5+6 Mb/s
        assert world.true_rate(PATH, "in", 5) == pytest.approx(world.true_rate(PATH, "in", 5, clock.now_ms()))


async def test_unwatched_nodes_and_times_before_watching_are_refused_clearly() -> None:
    clock = ManualClock()
    async with running_simulator("demo", clock=clock) as simulator:
        world = simulator.world
        clock.advance(5)
        with pytest.raises(KeyError, match="call watch_bytes"):
            world.true_rate(PATH, "out", 1)
        with pytest.raises(KeyError, match="no node 'default/nope'"):
            world.watch_bytes("default/nope")
        world.watch_bytes("")
        with pytest.raises(ValueError, match="watched from"):
            world.bytes_at("", clock.now_ms() - 1000)
        clock.advance(3)
        server_in = world.true_rate("", "in", 3)
        assert server_in > 0

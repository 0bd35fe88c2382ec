"""The engine's controls and views, on a fake OME over loopback: interval changes at once, refresh while
paused, one budget shared by a fleet, ended streams, history for chart windows up to an hour, how often a
node was really sampled, and the garbage collector's freeze after the first listing."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import random
import tracemalloc
from collections.abc import AsyncIterator

from fake_clock import FakeClock
from fake_ome_server import IN_BYTES_PER_S, OUT_BYTES_PER_S, FakeOme

from omeconsole.api.client import DETECTION_REQUESTS
from omeconsole.core.polling.budget import TokenBucket
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine, PollSettings, Refresh
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath

S0 = NodePath("vh0", "app0", "s0")
S0_STATS = "/v2/stats/current/vhosts/vh0/apps/app0/streams/s0"


@contextlib.asynccontextmanager
async def running(fake: FakeOme, clock: FakeClock, **settings: float) -> AsyncIterator[PollingEngine]:
    """The engine's own loop on `fake`, stopped on exit."""
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(**settings), rng=random.Random(1))  # type: ignore[arg-type]
        task = asyncio.create_task(engine.run())
        try:
            yield engine
        finally:
            engine.stop()
            await asyncio.wait_for(task, 10)


async def step(clock: FakeClock, seconds: float, times: int = 1) -> None:
    for _ in range(times):
        clock.advance(seconds)
        await asyncio.wait_for(clock.parked(1), 10)


def polls(fake: FakeOme, since: float, path: str = S0_STATS) -> list[float]:
    return [at for at, asked in fake.requests if asked == path and at >= since]


async def test_interval_changes_take_effect_at_once_both_ways() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with running(fake, clock) as engine:
        engine.select(S0)
        await step(clock, 0.25, 8)
        for seconds in (2.0, 5.0, 10.0, 30.0, 60.0):  # `+` five times
            engine.interval = seconds
        slow_since = clock.monotonic()
        await step(clock, 0.25, 4 * 20)
        assert len(polls(fake, slow_since)) <= 1  # every 60 s now
        for seconds in (30.0, 10.0, 5.0, 2.0, 1.0):  # then `-` five times: every second, at once
            engine.interval = seconds
        fast_since = clock.monotonic()
        await step(clock, 0.25, 4 * 10)
        asked = polls(fake, fast_since)
        assert asked[0] - fast_since <= 0.5  # at once (the next step of this test), not at the old deadline
        assert len(asked) >= 10 and max(b - a for a, b in itertools.pairwise(asked)) <= 1.0
        assert engine.node(S0).state is NodeState.LIVE


async def test_refresh_says_what_it_does_and_polls_once_while_paused() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with running(fake, clock) as engine:
        engine.select(S0)
        await step(clock, 0.25, 8)
        engine.paused = True
        await step(clock, 0.5)
        paused_at = clock.monotonic()
        before = len(engine.node(S0).history)
        await step(clock, 1.0, 5)
        assert polls(fake, paused_at) == [] and len(engine.node(S0).history) == before
        assert engine.refresh_now() is Refresh.ONCE_WHILE_PAUSED
        await asyncio.wait_for(clock.parked(1), 10)
        await step(clock, 1.0, 5)
        assert len(polls(fake, paused_at)) == 1 and len(engine.node(S0).history) == before + 1
        engine.paused = False
        assert engine.refresh_now() is Refresh.POLLING
        await fake.stop_listening()
        await step(clock, 1.0, 3)
        assert engine.refresh_now() is Refresh.RECONNECTING
        assert Refresh.RECONNECTING.value == "not connected: trying the server now"


async def test_a_fleet_shares_one_budget_and_each_server_backs_off_on_its_own() -> None:
    clock = FakeClock()
    bucket = TokenBucket(clock, 10.0)
    fakes = [FakeOme(clock, vhosts=1, apps_per_vhost=5, streams_per_app=20) for _ in range(2)]
    visible = [NodePath("vh0", f"app{a}", f"s{s}") for a in range(5) for s in range(10)]
    async with contextlib.AsyncExitStack() as stack:
        engines = []
        for fake in fakes:
            await stack.enter_async_context(fake.serving())
            client = await stack.enter_async_context(fake.client())
            engine = PollingEngine(client, clock, PollSettings(request_budget=1000.0), rng=random.Random(1),
                                   bucket=bucket)
            engine.select(visible[0])
            engine.set_on_screen(visible)
            engines.append(engine)
        start = clock.monotonic()
        for _ in range(40):
            for engine in engines:
                await engine.poll_cycle()
            clock.advance(0.5)
        elapsed = clock.monotonic() - start
        total = sum(fake.count() for fake in fakes)
        assert total <= 10 * elapsed + 10  # one budget for both, not one each
        assert min(fake.count() for fake in fakes) >= 0.3 * total  # shared, not taken by one
        assert all(engine.node(visible[0]).state is NodeState.LIVE for engine in engines)
        await fakes[1].stop_listening()
        down_at = clock.monotonic()
        for _ in range(40):
            for engine in engines:
                await engine.poll_cycle()
            clock.advance(0.5)
        assert engines[1].connection.status == "unreachable"
        assert engines[0].connection.status == "connected" and engines[0].connection.failures == 0
        assert len(polls(fakes[0], down_at, "/v2/stats/current/vhosts/vh0/apps/app0/streams/s0")) >= 19
        assert fakes[0].count(down_at) >= 0.8 * 10 * 20  # the healthy server gets the budget the other frees


async def test_an_ended_stream_says_so_with_last_seen_peaks_and_totals_and_no_current_rate() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    path = NodePath("vh0", "app0", "s1")
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(ended_keep_seconds=30), rng=random.Random(1))
        engine.set_on_screen([path], [path.parent])  # type: ignore[list-item]
        for _ in range(6):
            await engine.poll_cycle()
            clock.advance(1.0)
        last_read = engine.node(path).latest
        assert last_read is not None and engine.node(path).rate_in_bps == IN_BYTES_PER_S * 8
        fake.remove("vh0", "app0", "s1")
        for _ in range(3):
            await engine.poll_cycle()
            clock.advance(1.0)
        view = engine.node(path)
        assert view.state is NodeState.ENDED and view.ended_at is not None
        assert view.rate_in_bps is None and view.rate_out_bps is None and view.viewers is None  # nothing current
        assert view.last_seen_at == last_read.at
        assert view.peak_rate_in_bps == IN_BYTES_PER_S * 8 and view.peak_rate_out_bps == OUT_BYTES_PER_S * 8
        assert view.peak_viewers == 5
        assert view.latest is last_read and last_read.stats.total_bytes_in == 5 * IN_BYTES_PER_S  # its totals
        assert engine.listing()["vh0"]["app0"].ended == ("s1",)
        for _ in range(31):
            await engine.poll_cycle()
            clock.advance(1.0)
        assert engine.listing()["vh0"]["app0"].ended == ()  # kept for `ended_keep_seconds`


async def test_history_serves_chart_windows_up_to_an_hour_in_bounded_memory_without_copying() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(interval=1.0, history_seconds=60, chart_seconds=120),
                               rng=random.Random(1))
        engine.select(S0)
        for _ in range(300):
            await engine.poll_cycle()
            clock.advance(1.0)
        view = engine.node(S0)
        now = clock.monotonic()
        assert len(view.history) == 60  # full readings: history_seconds / interval
        assert len(view.series) == 240  # chart points: chart_seconds at the fastest interval (0.5 s)
        minute = view.series.columns(since=now - 60)
        assert len(minute.at) == 60 and minute.at == sorted(minute.at) and minute.at[0] >= now - 60
        assert set(minute.rate_in_bps) == {IN_BYTES_PER_S * 8} and set(minute.viewers) == {5}
        assert len(view.series.columns(since=now - 3600).at) == 240  # as much as is kept
        assert view.series[-1].at == view.history[-1].at
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            views = [engine.node(S0) for _ in range(200)]
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
        assert grown / len(views) < 1500  # a view is a few small objects, not 60 readings and 240 points


async def test_the_readings_kept_for_export_give_the_garbage_collector_nothing_more_to_walk() -> None:
    """Ten minutes of full readings per node on screen must not lengthen every full collection (a pause the
    operator sees as a stalled screen): what a collection walks stays the same as the rings fill."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=4)
    on_screen = [NodePath("vh0", "app0", f"s{i}") for i in range(4)]
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(interval=1.0, history_seconds=300), rng=random.Random(1))
        engine.select(S0)
        engine.set_on_screen(on_screen)

        async def tracked_after(cycles: int) -> int:
            for _ in range(cycles):
                await engine.poll_cycle()
                clock.advance(1.0)
            assert fake.server is not None
            fake.server.requests.clear()  # the test server's own log of what it was asked
            gc.collect()
            return len(gc.get_objects())

        early = await tracked_after(100)  # the decoder's bounded caches of shared values are full by now
        full = await tracked_after(200)
        kept = [len(engine.node(path).history) for path in on_screen]
        assert min(kept) >= 290  # each node on screen holds its readings: they are all there to export
        assert engine.node(S0).history[-1] == engine.node(S0).latest
        # 800 more readings held (4 nodes x 200): as objects they were over 3,000 more for every collection.
        assert full - early < 100, f"{full - early} more objects tracked once the readings were kept"


async def test_each_node_says_how_often_it_was_really_sampled() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=2, streams_per_app=50)
    visible = [NodePath("vh0", "app0", f"s{i}") for i in range(40)]
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(request_budget=10.0), rng=random.Random(1))
        engine.select(visible[0])
        engine.set_on_screen(visible, [NodePath("vh0", "app0")])
        for _ in range(60):
            await engine.poll_cycle()
            clock.advance(1.0)
        assert engine.node(visible[0]).sampled_every == 1.0  # the selected node: every interval
        others = [engine.node(path).sampled_every for path in visible[1:]]
        assert all(every is not None and 3.0 <= every <= 6.0 for every in others), others  # 39 nodes, ~9/s
        assert all(engine.node(path).state is NodeState.LIVE for path in visible)  # stale follows that pace


async def test_the_batch_that_completes_the_first_listing_says_so_once() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=2, apps_per_vhost=3, streams_per_app=10)
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(request_budget=float(DETECTION_REQUESTS)),
                               rng=random.Random(1))
        updates: list[EngineUpdate] = []
        engine.add_listener(updates.append)
        await engine.poll_cycle()  # the budget allows the detection, not yet the apps' listings
        assert engine.listing() and not any(update.first_listing for update in updates)
        for _ in range(8):
            clock.advance(1.0)
            await engine.poll_cycle()
        assert [len(apps) for apps in engine.listing().values()] == [3, 3]
        assert sum(update.first_listing for update in updates) == 1


async def test_refresh_while_paused_reads_every_node_on_screen_once_not_only_as_many_as_run_at_a_time() -> None:
    """Eight streams on screen, four requests at a time: r while paused reads all eight, once each."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=8)
    streams = [NodePath("vh0", "app0", f"s{i}") for i in range(8)]
    async with running(fake, clock, max_concurrency=4) as engine:
        engine.select(streams[0])
        engine.set_on_screen(streams, {NodePath("vh0", "app0")})
        await step(clock, 0.25, 8)
        engine.paused = True
        await step(clock, 0.5)
        paused_at = clock.monotonic()
        await step(clock, 1.0, 5)
        assert all(polls(fake, paused_at, f"/v2/stats/current/vhosts/vh0/apps/app0/streams/s{i}") == []
                   for i in range(8))
        assert engine.refresh_now() is Refresh.ONCE_WHILE_PAUSED
        await asyncio.wait_for(clock.parked(1), 10)
        await step(clock, 1.0, 5)
        counts = [len(polls(fake, paused_at, f"/v2/stats/current/vhosts/vh0/apps/app0/streams/s{i}")) for i in range(8)]
        assert counts == [1] * 8, counts

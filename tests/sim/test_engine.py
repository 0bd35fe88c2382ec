"""The polling engine against a fake OME on loopback, on a fake clock: budget, freshness, history bounds,
resets, outages, ended streams."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

from fake_clock import FakeClock
from fake_ome_server import IN_BYTES_PER_S, OUT_BYTES_PER_S, FakeOme

from omeconsole.core.polling.engine import EngineUpdate, PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath


@contextlib.asynccontextmanager
async def engine_on(fake: FakeOme, clock: FakeClock, **settings: float) -> AsyncIterator[PollingEngine]:
    async with fake.serving(), fake.client() as client:
        yield PollingEngine(client, clock, PollSettings(**settings), rng=random.Random(1))  # type: ignore[arg-type]


async def run_cycles(engine: PollingEngine, clock: FakeClock, count: int, step: float = 1.0) -> None:
    for _ in range(count):
        await engine.poll_cycle()
        clock.advance(step)


def stream(v: int, a: int, s: int) -> NodePath:
    return NodePath(f"vh{v}", f"app{a}", f"s{s}")


def live_names(engine: PollingEngine) -> dict[str, dict[str, list[str]]]:
    return {v: {a: list(s.live) for a, s in apps.items()} for v, apps in engine.listing().items()}


async def test_budget_holds_with_ten_thousand_streams_and_fifty_on_screen() -> None:
    clock = FakeClock()
    fake = FakeOme(clock)
    async with engine_on(fake, clock, request_budget=20.0) as engine:
        visible = [stream(v, a, s) for v in range(2) for a in range(5) for s in range(5)]
        engine.select(visible[0])
        engine.set_on_screen(visible, {p.parent for p in visible if p.parent})
        start = clock.monotonic()
        await run_cycles(engine, clock, 60, step=0.25)  # 15 s in quarter-second cycles
        await run_cycles(engine, clock, 45, step=1.0)  # then 45 s in one-second cycles
        elapsed = clock.monotonic() - start
        total = fake.count()
        assert total <= 20 * elapsed + 20  # never more than the budget (plus one burst)
        assert total >= 0.8 * 20 * elapsed  # and the budget is actually used to keep the screen fresh
        for second in range(int(elapsed)):
            assert fake.count(start + second, start + second + 1) <= 40
        assert sum(len(s) for apps in live_names(engine).values() for s in apps.values()) == 10_000
        assert 5 <= fake.count(prefix="/v1/vhosts") - fake.count(prefix="/v1/vhosts/") <= 7  # root every 10 s
        selected_polls = fake.count(start + 15, prefix="/v2/stats/current/vhosts/vh0/apps/app0/streams/s0")
        assert selected_polls >= 44  # the selected stream: every interval
        for path in visible:
            view = engine.node(path)
            assert view.state is NodeState.LIVE
            assert view.age(clock.monotonic()) is not None and view.age(clock.monotonic()) <= 8  # type: ignore[operator]
        assert engine.requests_sent == total


async def test_listings_cost_what_is_on_screen_not_the_whole_server() -> None:
    """After the first pass, only the root, the vhosts and the expanded apps are listed every 10 s; the
    other 90 apps every 60 s. The budget they free goes to the visible streams."""
    clock = FakeClock()
    fake = FakeOme(clock)
    async with engine_on(fake, clock, request_budget=20.0) as engine:
        visible = [stream(0, a, s) for a in range(10) for s in range(5)]
        engine.select(visible[0])
        engine.set_on_screen(visible, {p.parent for p in visible if p.parent})
        await run_cycles(engine, clock, 30)  # the first complete listing, and then some
        steady = clock.monotonic()
        await run_cycles(engine, clock, 120)
        listings = fake.count(steady, prefix="/v1/vhosts")
        expanded_app = fake.count(steady, prefix="/v1/vhosts/vh0/apps/app3/streams")
        hidden_app = fake.count(steady, prefix="/v1/vhosts/vh2/apps/app7/streams")
        assert 11 <= expanded_app <= 13  # every 10 s
        assert 2 <= hidden_app <= 3  # every 60 s
        assert listings / 120 <= 1 + 5 / 10 + 10 / 10 + 90 / 60 + 0.2  # was 105 requests every 10 s
        stats = fake.count(steady, prefix="/v2/stats")
        assert stats >= 0.8 * (20 * 120 - listings)  # the rest of the budget goes to the screen
        assert all(engine.node(p).state is NodeState.LIVE for p in visible)


async def test_history_stays_bounded_while_the_operator_scrolls() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=2, streams_per_app=100)
    async with engine_on(fake, clock, request_budget=50.0, history_seconds=20, keep_recent_histories=4) as engine:
        for screen in range(20):
            engine.set_on_screen([stream(0, screen % 2, s) for s in range(screen * 5 % 100, screen * 5 % 100 + 5)])
            engine.select(stream(0, 0, screen))
            await run_cycles(engine, clock, 10)
            rings = 6 + 4  # watched now, plus the recently watched ones
            assert engine.history_samples <= rings * 20
        selected = engine.node(stream(0, 0, 19))
        assert len(selected.history) == 10 and len(selected.series) == 10
        assert engine.node(stream(0, 0, 0)).history == ()  # watched long ago: only the latest sample stays
        assert engine.node(stream(0, 0, 0)).latest is not None


async def test_rates_come_from_byte_totals_and_a_counter_reset_gives_a_gap_not_a_spike() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    async with engine_on(fake, clock) as engine:
        path = stream(0, 0, 1)
        engine.select(path)
        await run_cycles(engine, clock, 5)
        fake.restart("vh0", "app0", "s1")
        await run_cycles(engine, clock, 5)
        history = list(engine.node(path).history)
        assert len(history) == 10
        assert history[0].rate_in_bps is None  # nothing to compare the first reading with
        reset_index = next(i for i in range(1, len(history))
                           if history[i].stats.total_bytes_in < history[i - 1].stats.total_bytes_in)  # type: ignore[operator]
        reset = history[reset_index]
        assert (reset.rate_in_bps, reset.rate_out_bps) == (None, None)  # a gap, not a negative or huge rate
        for sample in history[1:reset_index] + history[reset_index + 1:]:
            assert sample.rate_in_bps == IN_BYTES_PER_S * 8
            assert sample.rate_out_bps == OUT_BYTES_PER_S * 8
            assert sample.window_s is not None and 1 <= sample.window_s <= 5


async def test_an_unreachable_server_backs_off_and_recovers_by_itself() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    async with engine_on(fake, clock, backoff_base=1.0, backoff_cap=16.0) as engine:
        updates: list[EngineUpdate] = []
        engine.add_listener(updates.append)
        path = stream(0, 0, 0)
        engine.select(path)
        engine.set_on_screen([NodePath("vh0"), NodePath("vh0", "app0"), stream(0, 0, 1), stream(0, 0, 2)])
        await run_cycles(engine, clock, 3)
        assert engine.connection.status == "connected"
        await fake.stop_listening()
        down_at = clock.monotonic()
        await run_cycles(engine, clock, 60)
        assert engine.connection.status == "unreachable"
        assert "refused" in engine.connection.message or "cannot connect" in engine.connection.message
        assert engine.connection.next_retry_at is not None
        assert engine.connection.errors_per_minute >= 30 and engine.connection.last_error is not None
        # Once the first cycle has found the link down: one probe (the selected node) per interval at most,
        # no listings, no other node.
        selected_stats = "/v2/stats/current/vhosts/vh0/apps/app0/streams/s0"
        assert fake.count(down_at + 1) == fake.count(down_at + 1, prefix=selected_stats) == 0  # nobody listens
        assert engine.node(path).state is NodeState.STALE
        assert any(u.connection_changed for u in updates)
        await fake.listen()
        await run_cycles(engine, clock, 2)  # the probe notices within two intervals, however long the outage
        assert engine.connection.status == "connected"
        view = engine.node(path)
        assert view.state is NodeState.LIVE and view.error is None
        assert view.age(clock.monotonic()) is not None and view.age(clock.monotonic()) <= 1.0  # type: ignore[operator]
        assert fake.count(prefix="/v1/vhosts/vh0/apps/app0/streams") >= 2  # listings resume with the link


async def test_a_server_that_is_down_at_start_is_retried() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=1)
    async with engine_on(fake, clock) as engine:
        await fake.stop_listening()
        await run_cycles(engine, clock, 5)
        assert engine.connection.status == "unreachable" and engine.server is None
        await fake.listen()
        await run_cycles(engine, clock, 10)
        assert engine.connection.status == "connected" and engine.server is not None
        assert live_names(engine) == {"vh0": {"app0": ["s0"]}}


async def test_a_vanished_stream_is_ended_and_keeps_its_history() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    async with engine_on(fake, clock, listing_interval=5.0) as engine:
        path = stream(0, 0, 2)
        engine.select(path)
        engine.set_on_screen([path], [path.parent])  # type: ignore[list-item]
        updates: list[EngineUpdate] = []
        engine.add_listener(updates.append)
        await run_cycles(engine, clock, 6)
        kept = len(engine.node(path).history)
        assert kept == 6
        fake.remove("vh0", "app0", "s2")
        await run_cycles(engine, clock, 12)
        view = engine.node(path)
        assert view.state is NodeState.ENDED
        assert len(view.history) == kept and view.latest == view.history[-1]
        assert engine.listing()["vh0"]["app0"].live == ("s0", "s1")
        assert engine.listing()["vh0"]["app0"].ended == ("s2",)
        assert any(u.tree_changed for u in updates)
        s2_stats = "/v2/stats/current/vhosts/vh0/apps/app0/streams/s2"
        assert fake.count(clock.monotonic() - 5, prefix=s2_stats) <= 5  # selected: one cheap probe per interval
        engine.select(stream(0, 0, 0))
        engine.set_on_screen([stream(0, 0, 0)])
        deselected_at = clock.monotonic()
        await run_cycles(engine, clock, 12)
        assert fake.count(deselected_at, prefix=s2_stats) == 0  # an ended stream nobody selects is not polled
        assert engine.node(path).state is NodeState.ENDED


async def test_a_selected_stream_that_answers_again_is_live_with_its_history() -> None:
    """It vanishes and comes back between two listing passes: no pass sees it gone, its own poll does."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    async with engine_on(fake, clock, listing_interval=60.0, background_listing_interval=60.0) as engine:
        path = stream(0, 0, 2)
        engine.select(path)
        await run_cycles(engine, clock, 4)
        fake.remove("vh0", "app0", "s2")
        await run_cycles(engine, clock, 3)
        assert engine.node(path).state is NodeState.ENDED
        before = list(engine.node(path).history)
        fake.tree["vh0"]["app0"].append("s2")
        fake.restart("vh0", "app0", "s2")
        await run_cycles(engine, clock, 2)
        view = engine.node(path)
        assert view.state is NodeState.LIVE and view.error is None
        assert list(view.history)[:len(before)] == before  # the history from before is kept
        reborn = list(view.history)[len(before):]
        assert reborn and reborn[0].rate_in_bps is None  # a gap where the counters restarted, not a spike


async def test_paused_engine_sends_nothing_and_the_data_ages() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with engine_on(fake, clock) as engine:
        path = stream(0, 0, 0)
        engine.select(path)
        await run_cycles(engine, clock, 3)
        engine.paused = True
        before = fake.count()
        await run_cycles(engine, clock, 30)
        assert fake.count() == before
        view = engine.node(path)
        assert view.state is NodeState.STALE and view.age(clock.monotonic()) >= 29  # type: ignore[operator]


async def test_run_loop_follows_the_fake_clock_and_refresh_now_wakes_it() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with engine_on(fake, clock) as engine:
        path = stream(0, 0, 1)
        engine.select(path)
        arrived = asyncio.Event()
        engine.add_listener(lambda update: arrived.set() if path in update.changed else None)
        task = asyncio.create_task(engine.run())
        try:
            await asyncio.wait_for(arrived.wait(), 10)
            await asyncio.wait_for(clock.parked(1), 10)
            first = fake.count(prefix="/v2/stats/current/vhosts/vh0/apps/app0/streams/s1")
            arrived.clear()
            engine.refresh_now()  # no clock movement needed: the loop wakes up
            await asyncio.wait_for(arrived.wait(), 10)
            assert fake.count(prefix="/v2/stats/current/vhosts/vh0/apps/app0/streams/s1") == first + 1
            for _ in range(3):  # and normal polling follows the clock
                await asyncio.wait_for(clock.parked(1), 10)
                arrived.clear()
                clock.advance(1.0)
                await asyncio.wait_for(arrived.wait(), 10)
            assert len(engine.node(path).history) >= 5
        finally:
            engine.stop()
            await asyncio.wait_for(task, 10)


async def test_a_refused_token_shows_as_unauthorized_and_recovers_when_accepted() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=2)
    async with engine_on(fake, clock) as engine:
        engine.select(stream(0, 0, 0))
        await run_cycles(engine, clock, 3)
        fake.refuse_auth = True
        await run_cycles(engine, clock, 5)
        assert engine.connection.status == "unauthorized"
        assert "Invalid credential" in engine.connection.message and fake.token not in engine.connection.message
        fake.refuse_auth = False
        await run_cycles(engine, clock, 2)
        assert engine.connection.status == "connected"


async def test_one_broken_node_is_stale_and_backs_off_while_the_others_stay_fresh() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    broken, healthy = stream(0, 0, 1), stream(0, 0, 2)
    fake.broken.add("/v2/stats/current/vhosts/vh0/apps/app0/streams/s1")
    async with engine_on(fake, clock) as engine:
        engine.set_on_screen([broken, healthy])
        await run_cycles(engine, clock, 60, step=0.5)
        view = engine.node(broken)
        assert view.state is NodeState.STALE and view.error is not None and "HTML" in view.error
        asked = [at for at, path in fake.requests if path == "/v2/stats/current/vhosts/vh0/apps/app0/streams/s1"]
        assert len(asked) <= 9  # backed off: 30 s of a failing node
        assert asked[-1] - asked[-2] >= 4 * (asked[2] - asked[1])  # the waits grow
        assert engine.node(healthy).state is NodeState.LIVE
        assert engine.connection.status == "connected"
        fake.broken.clear()
        await run_cycles(engine, clock, 40)
        assert engine.node(broken).state is NodeState.LIVE and engine.node(broken).error is None


async def test_a_watched_stream_ended_by_its_poll_is_live_again_when_a_listing_still_shows_it() -> None:
    """Not selected, so not probed while ended: its 404 has its app listed at once (it is gone there too),
    and the next listing that lists it again brings it back, with its history."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    async with engine_on(fake, clock, listing_interval=10.0) as engine:
        watched = stream(0, 0, 1)
        engine.select(stream(0, 0, 0))
        engine.set_on_screen([watched], [watched.parent])  # type: ignore[list-item]
        await run_cycles(engine, clock, 4)
        fake.remove("vh0", "app0", "s1")
        await run_cycles(engine, clock, 2)
        assert engine.node(watched).state is NodeState.ENDED
        fake.tree["vh0"]["app0"].insert(1, "s1")
        before = list(engine.node(watched).history)
        await run_cycles(engine, clock, 12)  # past the next listing
        view = engine.node(watched)
        assert view.state is NodeState.LIVE and list(view.history)[:len(before)] == before

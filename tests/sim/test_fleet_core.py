"""A fleet of real simulators on free ports, each with its own token and edition, driven on one fake clock:
health per server, one dead server never slowing the others, one request budget that follows what each
server has to poll, and the sums of a stream across an origin and its edges."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from fake_clock import FakeClock
from fleet_support import SERVERS, fleet_settings, outbound, server_record, simulators

from omeconsole.core.clock import SystemClock
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.model.audience import PLAYBACK
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from simulator.http.fleet import start_fleet
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import SystemClock as WorldClock

STREAM = NodePath("default", "app", "stream")


async def cycles(fleet: Fleet, clock: FakeClock, count: int, step: float = 1.0) -> None:
    for _ in range(count):
        clock.advance(step)
        await fleet.poll_cycle()


@contextlib.asynccontextmanager
async def three_servers(clock: FakeClock) -> AsyncIterator[tuple[list[RunningSimulator], Fleet]]:
    """The standard three simulators (own tokens and editions) as one fleet watching STREAM."""
    async with simulators(clock) as sims:
        fleet = Fleet.connect(fleet_settings("lab", [(p, s) for (p, _, _), s in zip(SERVERS, sims, strict=True)]),
                              clock, rng=random.Random(3))
        fleet.select(STREAM)
        try:
            yield sims, fleet
        finally:
            await fleet.aclose()


async def test_three_servers_with_their_own_tokens_and_editions_are_one_fleet() -> None:
    clock = FakeClock()
    async with three_servers(clock) as (sims, fleet):
        await cycles(fleet, clock, 4)
        health = fleet.health()
        assert [h.profile for h in health] == ["origin", "edge-1", "edge-2"]
        assert all(h.reachable and h.errors_per_minute == 0 for h in health), health
        assert [h.edition for h in health] == ["enterprise", "oss", "enterprise"]
        assert health[1].version is not None and health[1].version.startswith("0.21")
        assert health[0].version is not None and health[0].version.startswith("0.20")
        assert [h.host for h in health] == [urlsplit(s.api_url).netloc for s in sims]
        assert all(h.latency.samples >= 4 for h in health)  # detection and every read since, timed

        view = fleet.view(STREAM)
        assert view.present == ("origin", "edge-1", "edge-2") and view.complete
        own = [outbound(await server_record(sim, str(STREAM))) for sim in sims]
        for part, counts in zip(view.servers, own, strict=True):
            assert part.viewers == sum(n for name, n in counts.items() if name in PLAYBACK)
            assert {k: v for k, v in part.by_protocol.items() if v} == {k: v for k, v in counts.items() if v}
        assert view.viewers == sum(sum(n for name, n in c.items() if name in PLAYBACK) for c in own) > 0


async def test_a_stopped_server_backs_off_alone_and_is_back_when_it_restarts() -> None:
    clock = FakeClock()
    async with three_servers(clock) as (sims, fleet):
        await cycles(fleet, clock, 3)
        assert all(h.reachable for h in fleet.health())
        down = sims[1]
        api, publisher = urlsplit(down.api_url).port, urlsplit(down.publisher_url).port
        await down.stop()
        alive = [fleet.member("origin"), fleet.member("edge-2")]
        for _ in range(8):
            sent = [member.engine.requests_sent for member in alive]
            await cycles(fleet, clock, 1)
            for member, before in zip(alive, sent, strict=True):
                view = member.engine.node(STREAM)
                assert view.state is NodeState.LIVE and view.age(clock.monotonic()) == 0.0  # read this second
                assert member.engine.requests_sent > before
        dead = fleet.member("edge-1").health()
        assert dead.status == "unreachable" and dead.errors_per_minute >= 1 and dead.since_success_s == 8.0
        assert fleet.view(STREAM).failed == ("edge-1",) and not fleet.view(STREAM).complete

        _, token, edition = SERVERS[1]
        assert api is not None and publisher is not None
        sims[1] = await start_simulator("demo", api_port=api, publisher_port=publisher, access_token=token,
                                        seed=8, edition=edition, clock=clock)
        await cycles(fleet, clock, 3)  # the probe's back-off never exceeds one interval
        back = fleet.member("edge-1")
        assert back.health().reachable
        assert back.engine.node(STREAM).age(clock.monotonic()) == 0.0
        assert fleet.view(STREAM).complete


async def test_the_budget_goes_to_the_server_with_more_to_poll() -> None:
    """Two servers under 10 requests/s: one watches one stream, the other every node it has. An even split
    would give the busy one 5/s; the fleet's budget gives it what the quiet one leaves, and never more than
    the whole."""
    clock = FakeClock()
    async with simulators(clock, SERVERS[:2]) as sims:
        fleet = Fleet.connect(fleet_settings("lab", [("quiet", sims[0]), ("busy", sims[1])], request_budget=10.0),
                              clock, rng=random.Random(1))
        try:
            quiet, busy = fleet.member("quiet").engine, fleet.member("busy").engine
            quiet.select(STREAM)
            apps = [NodePath("default", "app"), NodePath("default", "live")]
            streams = [NodePath(s.vhost, s.app, s.name) for s in sims[1].world.live_streams()]
            busy.set_on_screen([NodePath("default"), *apps, *streams], expanded=apps)
            await cycles(fleet, clock, 10, 0.5)
            before = quiet.requests_sent, busy.requests_sent
            await cycles(fleet, clock, 40, 0.5)  # 20 s
            used_quiet, used_busy = quiet.requests_sent - before[0], busy.requests_sent - before[1]
            assert used_quiet >= 20  # its stream every second (and its listings)
            assert used_busy >= 130  # far more than an even 100
            assert used_quiet + used_busy <= 10 * 20 + 10  # the rate over 20 s, plus one burst
            part_quiet, part_busy = fleet.budget.part(quiet), fleet.budget.part(busy)
            assert part_quiet is not None and part_busy is not None and part_busy > 3 * part_quiet
        finally:
            await fleet.aclose()


async def test_an_origin_and_its_edges_a_streams_ingest_viewers_and_sums() -> None:
    clock = FakeClock()
    running = await start_fleet("demo", edges=2, access_tokens=[token for _, token, _ in SERVERS],
                                editions=[edition for _, _, edition in SERVERS], seed=3, clock=clock)
    fleet = Fleet.connect(fleet_settings("live", [(p, s) for (p, _, _), s in zip(SERVERS, running.servers,
                                                                                   strict=True)]),
                          clock, rng=random.Random(3))
    try:
        fleet.select(STREAM)
        for member in fleet:
            member.engine.set_on_screen([NodePath("default"), STREAM])
        await cycles(fleet, clock, 6)
        await fleet.poll_cycle()  # once more at this instant: what the servers say now
        view = fleet.view(STREAM)
        assert view.origins == ("origin",) and view.edges == ("edge-1", "edge-2")
        origin, edge_one, edge_two = view.servers
        assert origin.inputs == ("rtmp",) and edge_one.inputs == edge_two.inputs == ("ovt",)  # the oss edge: info
        assert origin.relays == 2 and origin.viewers == 0  # each edge pulls once; nobody watches the origin
        own = [outbound(await server_record(server, str(STREAM))) for server in running.servers]
        assert view.viewers == sum(n for counts in own for name, n in counts.items() if name in PLAYBACK) > 0
        assert view.relays == sum(counts.get("ovt", 0) for counts in own) == 2
        for name in ("llhls", "hlsv3", "webrtc"):
            assert view.by_protocol.get(name, 0) == sum(counts.get(name, 0) for counts in own)
        assert view.ingest_bps == origin.rate_in_bps and view.ingest_bps is not None and view.ingest_bps > 0
        assert view.rate_out_bps == sum(p.rate_out_bps or 0 for p in view.servers)

        # The world's tick at this instant and the engines' reads race over real sockets: read the servers until
        # a poll cycle leaves them as they were, then the fleet's sum is of the same state.
        for _ in range(5):
            vhosts = [await _vhost_outbound(server) for server in running.servers]
            await fleet.poll_cycle()
            if vhosts == [await _vhost_outbound(server) for server in running.servers]:
                break
        else:
            raise AssertionError("the servers' counts kept changing at one instant of the world's clock")
        totals = fleet.totals()
        assert totals.complete and [p.role for p in totals.servers] == ["origin", None, "edge"]  # v1: no inputs
        assert totals.viewers == sum(n for counts in vhosts for name, n in counts.items() if name in PLAYBACK)
    finally:
        await fleet.aclose()
        await running.stop()


async def _vhost_outbound(server: object) -> dict[str, int]:
    import httpx

    from simulator.http.auth import basic_header
    from simulator.http.server import RunningSimulator

    assert isinstance(server, RunningSimulator)
    async with httpx.AsyncClient(base_url=server.api_url, timeout=10,
                                 headers={"Authorization": basic_header(server.access_token)}) as http:
        reply = await http.get("/v2/stats/current/vhosts/default")
        if reply.status_code == 404:
            reply = await http.get("/v1/stats/current/vhosts/default")
    return outbound(reply.json()["response"])


async def test_latency_is_each_servers_own() -> None:
    """On the real clock: a server 200 ms slow to answer shows it, and the other does not."""
    world_clock = WorldClock()
    async with simulators(world_clock, SERVERS[:1], faults="latency=200ms") as slow, \
            simulators(world_clock, SERVERS[1:2]) as fast:
        fleet = Fleet.connect(fleet_settings("lab", [("slow", slow[0]), ("fast", fast[0])]), SystemClock())
        try:
            await fleet.settle(timeout=20)
            by_name = {h.profile: h for h in fleet.health()}
            slow_ms, fast_ms = by_name["slow"].latency.median_s, by_name["fast"].latency.median_s
            assert by_name["slow"].reachable and by_name["fast"].reachable
            assert slow_ms is not None and fast_ms is not None
            assert slow_ms >= 0.2 > fast_ms
        finally:
            await fleet.aclose()

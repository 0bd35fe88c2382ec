"""Counter invariants over simulated hours, read through the API as a console would read them.

A ManualClock moves the world in ten-minute steps (every one-second tick runs). At every step each
record the API serves is checked against the real server's semantics (DECISIONS.md "Statistics
semantics") and against the previous step: totals never go down, peaks hold, times stay in order and
in the wire format, parents count at least what their live children count, ended streams answer 404.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import pytest

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.scenario import parse_scenario

SimulatorFactory = Callable[..., AbstractAsyncContextManager[RunningSimulator]]
ClientFactory = Callable[..., httpx.AsyncClient]

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$")
STEP_SECONDS = 600

CHURN_SCENARIO = """
[traffic]
tick_seconds = 1.0
churn_per_hour = 240
churn_apps = ["events"]

[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "events"
    [[vhosts.apps.streams]]
    name = "cam"
    input = "srt"
    audience = 30
    [[vhosts.apps.streams]]
    name = "cam-1"
    input = "rtmp"
    audience = 10
    [[vhosts.apps.streams]]
    name = "cam-2"
    input = "webrtc"
    audience = 50
    [[vhosts.apps.streams]]
    name = "stage"
    input = "ovt"
    audience = 5
  [[vhosts.apps]]
  name = "quiet"
    [[vhosts.apps.streams]]
    name = "idle"
    input = "mpegts"
    audience = 0
[[vhosts]]
name = "second"
  [[vhosts.apps]]
  name = "events"
    [[vhosts.apps.streams]]
    name = "cam"
    input = "rtsppull"
    audience = 20
"""


def millis(stamp: str) -> int:
    assert TIMESTAMP.match(stamp), stamp
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """A v2 record's fields in one dict (providers and publishers keys do not overlap)."""
    flat = {k: v for k, v in record.items() if k not in ("providers", "publishers")}
    flat |= {k: v for k, v in record["providers"].items() if k != "connections"}
    flat |= {k: v for k, v in record["publishers"].items() if k != "connections"}
    flat["providerConnections"] = record["providers"]["connections"]
    flat["publisherConnections"] = record["publishers"]["connections"]
    return flat


@dataclass
class Observer:
    """Reads every record each step and checks it alone, against its parent, and against its past."""

    http: httpx.AsyncClient
    clock: ManualClock
    previous: dict[str, dict[str, Any]] = field(default_factory=dict)
    live: dict[str, set[str]] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    started: set[str] = field(default_factory=set)
    unwatched_seen: int = 0

    async def get(self, path: str) -> dict[str, Any]:
        response = await self.http.get(path)
        assert response.status_code == 200, (path, response.content)
        body: dict[str, Any] = response.json()["response"]
        return body

    async def record(self, path: str) -> dict[str, Any]:
        flat = flatten(await self.get(path))
        self.check_alone(path, flat)
        before = self.previous.get(path)
        if before is not None:
            self.check_against_past(path, before, flat)
        self.previous[path] = flat
        return flat

    def check_alone(self, path: str, r: dict[str, Any]) -> None:
        now = self.clock.now_ms()
        created = millis(r["createdTime"])
        for key in ("lastUpdatedTime", "lastRecvTime", "lastSentTime", "maxTotalConnectionTime"):
            assert created <= millis(r[key]) <= now, (path, key, r[key])
        assert r["totalConnections"] == sum(r["publisherConnections"].values()), path
        assert r["maxTotalConnections"] >= r["totalConnections"], path
        assert r["maxThroughputIn"] >= r["avgThroughputIn"] >= 0, path
        assert r["maxThroughputOut"] >= r["avgThroughputOut"] >= 0, path
        assert all(v >= 0 for v in r["publisherConnections"].values()), path

    def check_against_past(self, path: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        assert after["createdTime"] == before["createdTime"], path
        for key in ("totalBytesIn", "totalBytesOut", "maxTotalConnections", "maxThroughputIn", "maxThroughputOut"):
            assert after[key] >= before[key], (path, key, before[key], after[key])
        for key in ("lastUpdatedTime", "lastRecvTime", "lastSentTime", "maxTotalConnectionTime"):
            assert millis(after[key]) >= millis(before[key]), (path, key)
        if after["maxTotalConnections"] > before["maxTotalConnections"]:
            assert millis(after["maxTotalConnectionTime"]) > millis(before["maxTotalConnectionTime"]), path

    async def step(self) -> None:
        vhost_sum = {"totalBytesIn": 0, "totalBytesOut": 0}
        for vhost in await self.get("/v1/vhosts"):
            vhost_record = await self.record(f"/v2/stats/current/vhosts/{vhost}")
            app_sum = {"totalBytesIn": 0, "totalBytesOut": 0, "totalConnections": 0}
            for app in await self.get(f"/v1/vhosts/{vhost}/apps"):
                await self.step_app(vhost, app, app_sum)
            for key in vhost_sum:
                vhost_sum[key] += vhost_record[key]
            assert vhost_record["totalBytesIn"] >= app_sum["totalBytesIn"]
            assert vhost_record["totalBytesOut"] >= app_sum["totalBytesOut"]
            assert vhost_record["totalConnections"] == app_sum["totalConnections"]
        server_record = (await self.http.get("/v1/stats/current")).json()["response"]
        assert server_record["totalBytesIn"] >= vhost_sum["totalBytesIn"]
        assert server_record["totalBytesOut"] >= vhost_sum["totalBytesOut"]

    async def step_app(self, vhost: str, app: str, app_sum: dict[str, int]) -> None:
        base = f"/v2/stats/current/vhosts/{vhost}/apps/{app}"
        app_record = await self.record(base)
        names = set(await self.get(f"/v1/vhosts/{vhost}/apps/{app}/streams"))
        key = f"{vhost}/{app}"
        gone = self.live.get(key, names) - names
        self.started |= {f"{key}/{n}" for n in names - self.live.get(key, names)}
        self.live[key] = names
        for name in gone:
            response = await self.http.get(f"{base}/streams/{name}")
            assert (response.status_code, response.content) == (404, (
                '{"message":"[HTTP] Could not find the stream: [' + f"{key}/{name}" + '] (404)","statusCode":404}'
            ).encode())
            self.ended.add(f"{key}/{name}")
        children = {"totalBytesIn": 0, "totalBytesOut": 0, "totalConnections": 0}
        inputs = {k: 0 for k in app_record["providerConnections"]}
        for name in names:
            stream = await self.record(f"{base}/streams/{name}")
            for field_name in children:
                children[field_name] += stream[field_name]
            for protocol, count in stream["providerConnections"].items():
                inputs[protocol] += count
            assert sum(stream["providerConnections"].values()) == 1  # one input per live stream
            if self.clock.now_ms() - millis(stream["createdTime"]) >= 2000:
                self.check_throughput(stream)
            if stream["totalBytesIn"] > 0 and all(v == 0 for v in stream["publisherConnections"].values()) \
                    and stream["totalBytesOut"] == 0 and stream["maxTotalConnections"] == 0:
                self.unwatched_seen += 1
        assert app_record["totalBytesIn"] >= children["totalBytesIn"], key
        assert app_record["totalBytesOut"] >= children["totalBytesOut"], key
        assert app_record["totalConnections"] == children["totalConnections"], key
        assert app_record["providerConnections"] == inputs, key
        for field_name in app_sum:
            app_sum[field_name] += app_record[field_name]

    def check_throughput(self, stream: dict[str, Any]) -> None:
        # One-second windows: avg is bits per second of the window and last is its byte count.
        assert stream["avgThroughputIn"] == stream["lastThroughputIn"] * 8
        assert stream["avgThroughputIn"] > 0
        assert millis(stream["lastRecvTime"]) == self.clock.now_ms() - self.clock.now_ms() % 1000


async def observe(http: httpx.AsyncClient, clock: ManualClock, hours: float) -> Observer:
    observer = Observer(http, clock)
    await observer.step()
    for _ in range(int(hours * 3600 / STEP_SECONDS)):
        clock.advance(STEP_SECONDS)
        await observer.step()
    return observer


async def test_demo_counters_hold_their_invariants_over_two_hours(
    simulator_factory: SimulatorFactory, client_factory: ClientFactory
) -> None:
    clock = ManualClock()
    async with simulator_factory("demo", clock=clock, seed=11) as running, client_factory(running) as http:
        observer = await observe(http, clock, hours=2)
        assert observer.ended, "demo streams end now and then"
        assert observer.started
        assert all(name.startswith("default/live/") for name in observer.ended)  # app's streams are permanent
        # app/backup: live, bytes in, nobody watching (seed rule 2), at every step after the first.
        assert observer.unwatched_seen >= 2 * 3600 // STEP_SECONDS
        backup = flatten(await observer.get("/v2/stats/current/vhosts/default/apps/app/streams/backup"))
        assert backup["providerConnections"]["mpegts"] == 1 and backup["totalBytesIn"] > 6_000_000 // 8 * 7000
        assert backup["totalBytesOut"] == 0 and backup["maxThroughputOut"] == 0


async def test_churn_heavy_scenario_keeps_every_stream_reachable(
    simulator_factory: SimulatorFactory, client_factory: ClientFactory
) -> None:
    clock = ManualClock()
    scenario = parse_scenario(CHURN_SCENARIO, "churn")
    async with simulator_factory(scenario, clock=clock, seed=5) as running, client_factory(running) as http:
        observer = await observe(http, clock, hours=1)
        assert len(observer.ended) >= 20  # those seen live at one step and gone at the next
        assert sum(1 for s in running.world.streams_by_row if not s.live) >= 180  # about 240 an hour
        # Every churn ends one stream and starts one: the listing never loses a live stream.
        assert len(observer.live["default/events"]) == 4
        assert observer.live["default/quiet"] == {"idle"}
        assert len(observer.live["second/events"]) == 1  # churn_apps names apps in every virtual host
        assert sum(1 for _ in running.world.live_streams()) == 6


async def test_ended_stream_keeps_its_bytes_in_the_parents(
    simulator_factory: SimulatorFactory, client_factory: ClientFactory
) -> None:
    clock = ManualClock()
    async with simulator_factory("demo", clock=clock) as running, client_factory(running) as http:
        clock.advance(120)
        app = "/v2/stats/current/vhosts/default/apps/live"
        before = (await http.get(app)).json()["response"]
        stream = running.world.find_stream("default", "live", "concert")
        assert stream is not None
        stream_bytes = (await http.get(f"{app}/streams/concert")).json()["response"]["providers"]["totalBytesIn"]
        running.world.end_stream(stream)
        after = (await http.get(app)).json()["response"]
        assert after["providers"]["totalBytesIn"] == before["providers"]["totalBytesIn"]
        assert after["providers"]["connections"]["ovt"] == before["providers"]["connections"]["ovt"] - 1
        assert (await http.get(f"{app}/streams/concert")).status_code == 404
        assert (await http.get("/v1/vhosts/default/apps/live/streams/concert")).status_code == 404
        assert "concert" not in (await http.get("/v1/vhosts/default/apps/live/streams")).json()["response"]
        live_sum = 0
        for name in (await http.get("/v1/vhosts/default/apps/live/streams")).json()["response"]:
            live_sum += (await http.get(f"{app}/streams/{name}")).json()["response"]["providers"]["totalBytesIn"]
        assert after["providers"]["totalBytesIn"] >= live_sum + stream_bytes


async def snapshot_bodies(http: httpx.AsyncClient) -> list[bytes]:
    paths = ["/v1/stats/current", "/v1/vhosts", "/v2/stats/current/vhosts/default"]
    for app in ("app", "live"):
        paths.append(f"/v2/stats/current/vhosts/default/apps/{app}")
        paths.append(f"/v1/stats/current/vhosts/default/apps/{app}")
        listing = (await http.get(f"/v1/vhosts/default/apps/{app}/streams")).json()["response"]
        paths += [f"/v2/stats/current/vhosts/default/apps/{app}/streams/{name}" for name in listing]
        paths.append(f"/v1/vhosts/default/apps/{app}/streams")
    return [(await http.get(path)).content for path in paths]


async def run_for(seed: int, simulator_factory: SimulatorFactory, client_factory: ClientFactory) -> list[bytes]:
    clock = ManualClock()
    async with simulator_factory("demo", clock=clock, seed=seed) as running, client_factory(running) as http:
        bodies = await snapshot_bodies(http)
        for seconds in (1, 59, 900):
            clock.advance(seconds)
            bodies += await snapshot_bodies(http)
        return bodies


async def test_a_seed_makes_a_run_repeatable(
    simulator_factory: SimulatorFactory, client_factory: ClientFactory
) -> None:
    first = await run_for(21, simulator_factory, client_factory)
    second = await run_for(21, simulator_factory, client_factory)
    other = await run_for(22, simulator_factory, client_factory)
    assert first == second
    assert first != other


@pytest.mark.parametrize("scenario", ["demo", "empty", "scale"])
def test_builtin_scenarios_load_with_their_documented_shape(scenario: str) -> None:
    from simulator.world.scenario import load_scenario

    loaded = load_scenario(scenario)
    expected = {"demo": 8, "empty": 0, "scale": 10_000}[scenario]
    assert loaded.stream_count == expected
    if scenario == "demo":
        inputs = {s.input for v in loaded.vhosts for a in v.apps for s in a.streams}
        assert inputs == {"rtmp", "srt", "webrtc", "mpegts", "ovt"}
        assert [a.name for a in loaded.vhosts[0].apps] == ["app", "live"]


def test_churn_while_catching_up_stamps_each_change_with_its_tick() -> None:
    from simulator.world.world import World

    clock = ManualClock()
    world = World(parse_scenario(CHURN_SCENARIO, "churn"), clock, seed=9)
    clock.advance(900)
    world.advance()  # 900 ticks in one go, as after a long pause between reads
    ended = [s for s in world.streams_by_row if not s.live]
    started = {s.created_ms for s in world.streams_by_row if s.created_ms > world.start_ms}
    assert len(ended) >= 30
    for stream in ended:
        assert stream.ended_ms is not None and stream.ended_ms % 1000 == 0
        assert stream.ended_ms in started  # its replacement started at the same tick
    assert max(s.ended_ms or 0 for s in ended) < clock.now_ms() or len(ended) == 1


def test_scale_world_ticks_with_consistent_parents() -> None:
    from simulator.world.scenario import load_scenario
    from simulator.world.world import World

    clock = ManualClock()
    world = World(load_scenario("scale"), clock, seed=2)
    clock.advance(3)
    world.advance()
    streams = world.stream_table
    apps = world.app_table
    n = streams.size
    app_rows = [s.app_row for s in world.streams_by_row]
    for column in ("bytes_in", "bytes_out"):
        per_app = [0] * apps.size
        for row in range(n):
            per_app[app_rows[row]] += int(streams.columns[column][row])
        assert per_app == [int(v) for v in apps.columns[column][: apps.size]]
    assert int(world.server.publisher_conn[0].sum()) == int(streams.publisher_conn[:n].sum())
    assert int(world.server.provider_conn[0].sum()) == 10_000

"""HTTP faults in front of the real management API, over real sockets: what a client receives for each kind.

The simulator runs in-process on free ports with a ManualClock; latency and stalls last world time,
so the tests move the clock instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from simulator.http.auth import basic_header
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import ManualClock

TOKEN = "fault-test-token"
CUE_OUT = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
SEND_EVENT = "/v1/vhosts/default/apps/app/streams/stream:sendEvent"
STATS = "/v2/stats/current/vhosts/default/apps/app/streams/stream"


@contextlib.asynccontextmanager
async def faulty(spec: str, clock: ManualClock | None = None, seed: int = 7) -> AsyncIterator[RunningSimulator]:
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=seed,
                                      clock=clock or ManualClock(), faults=spec)
    try:
        yield simulator
    finally:
        await simulator.stop()


def client(simulator: RunningSimulator, timeout: float = 10.0) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=simulator.api_url, headers={"Authorization": basic_header(TOKEN)},
                             timeout=timeout)


async def until(condition: Callable[[], bool]) -> None:
    """Wait for something the server does in the background (bounded, never a timing assertion)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never became true")


def events_of(simulator: RunningSimulator) -> int:
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None
    return len(stream.events.events)


async def test_5xx_replies_are_in_the_envelope_and_never_reach_the_server() -> None:
    async with faulty("5xx=1") as simulator, client(simulator) as http:
        statuses = set()
        for _ in range(12):
            reply = await http.post(SEND_EVENT, json=CUE_OUT)
            assert reply.status_code in (500, 502, 503)
            assert reply.headers["content-type"] == "application/json;charset=UTF-8"
            body = reply.json()
            assert body["statusCode"] == reply.status_code
            assert body["message"].startswith("[HTTP] ") and body["message"].endswith(f"({reply.status_code})")
            statuses.add(reply.status_code)
        assert len(statuses) > 1
        assert events_of(simulator) == 0
        assert simulator.faults is not None
        assert simulator.faults.counts()["POST"] == 12


async def test_an_html_page_comes_back_with_200_and_is_not_json() -> None:
    async with faulty("html=1") as simulator, client(simulator) as http:
        reply = await http.get(STATS)
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/html")
        with pytest.raises(json.JSONDecodeError):
            json.loads(reply.content)


async def test_a_reset_closes_the_connection_without_a_response_after_the_post_was_applied() -> None:
    async with faulty("reset=1") as simulator, client(simulator) as http:
        with pytest.raises(httpx.TransportError):
            await http.get(STATS)
        with pytest.raises(httpx.TransportError):
            await http.post(SEND_EVENT, json=CUE_OUT)
        assert events_of(simulator) == 1  # applied once: the reply was lost, not the request
        assert simulator.faults is not None
        counts = simulator.faults.counts()
        assert (counts["GET"], counts["POST"], counts["reset"]) == (1, 1, 2)


async def test_a_stall_outlasts_the_client_timeout_and_the_server_lets_go_when_the_client_leaves(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = ManualClock()
    server_log = logging.getLogger("uvicorn.error")  # after start: uvicorn's logging setup drops handlers
    async with faulty("stall=1:30s", clock) as simulator, client(simulator, timeout=0.3) as http:
        server_log.addHandler(caplog.handler)
        try:
            for _ in range(3):
                with pytest.raises(httpx.ReadTimeout):
                    await http.post(SEND_EVENT, json=CUE_OUT)
                await until(lambda: simulator.faults is not None and simulator.faults.http.held == 0)
            assert events_of(simulator) == 3
            assert clock.now_ms() == simulator.world.start_ms  # released by the client leaving, not by time
            await http.aclose()
            await asyncio.sleep(0.1)  # let the server finish closing the abandoned requests
        finally:
            server_log.removeHandler(caplog.handler)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # no "Exception in ASGI application"


async def test_a_stall_ends_with_a_dropped_connection_when_its_time_has_passed() -> None:
    clock = ManualClock()
    async with faulty("stall=1:30s", clock) as simulator, client(simulator) as http:
        request = asyncio.create_task(http.get(STATS))
        await until(lambda: simulator.faults is not None and simulator.faults.http.held == 1)
        clock.advance(29)
        await asyncio.sleep(0.05)
        assert not request.done()
        clock.advance(1)
        with pytest.raises(httpx.TransportError):
            await request


async def test_stopping_the_simulator_releases_a_stalled_request() -> None:
    clock = ManualClock()
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=7,
                                      clock=clock, faults="stall=1:1h")
    async with client(simulator) as http:
        request = asyncio.create_task(http.get(STATS))
        await until(lambda: simulator.faults is not None and simulator.faults.http.held == 1)
        await asyncio.wait_for(simulator.stop(), 20)
        with pytest.raises(httpx.TransportError):
            await request


async def test_truncated_json_is_a_strict_prefix_of_the_real_reply() -> None:
    async with faulty("truncate=1") as simulator, client(simulator) as http:
        assert simulator.faults is not None
        for _ in range(10):
            broken = await http.get("/v1/vhosts/default/apps")
            simulator.faults.http.active = False
            whole = await http.get("/v1/vhosts/default/apps")
            simulator.faults.http.active = True
            assert broken.status_code == 200
            assert 0 < len(broken.content) < len(whole.content)
            assert whole.content.startswith(broken.content)
            with pytest.raises(json.JSONDecodeError):
                json.loads(broken.content)


async def test_wrong_types_keep_the_shape_but_not_the_types() -> None:
    async with faulty("types=1") as simulator, client(simulator) as http:
        body = (await http.get(STATS)).json()
        assert body["statusCode"] == "200"
        assert isinstance(body["message"], int)
        assert isinstance(body["response"]["publishers"]["totalBytesOut"], str)
        ok = (await http.post(SEND_EVENT, json=CUE_OUT)).json()
        assert ok == {"message": 2, "statusCode": "200"}
        assert events_of(simulator) == 1


async def test_latency_holds_every_request_for_world_time() -> None:
    clock = ManualClock()
    async with faulty("latency=200ms", clock) as simulator, client(simulator) as http:
        request = asyncio.create_task(http.get("/v1/vhosts"))
        await until(lambda: simulator.faults is not None and simulator.faults.http.held == 1)
        clock.advance(0.199)
        await asyncio.sleep(0.05)
        assert not request.done()
        clock.advance(0.001)
        reply = await request
        assert reply.json() == {"message": "OK", "response": ["default"], "statusCode": 200}


async def _outcomes(seed: int, count: int) -> list[str]:
    outcomes = []
    async with faulty("5xx=0.3,reset=0.2,html=0.1", seed=seed) as simulator, client(simulator) as http:
        for _ in range(count):
            try:
                reply = await http.get("/v1/vhosts")
            except httpx.TransportError:
                outcomes.append("reset")
                continue
            outcomes.append(f"{reply.status_code} {reply.headers['content-type'].split('/')[0]}")
    return outcomes


async def test_the_same_seed_gives_the_same_faults_in_the_same_order() -> None:
    first, again, other = await _outcomes(1, 60), await _outcomes(1, 60), await _outcomes(2, 60)
    assert first == again
    assert first != other
    assert {"reset", "200 text", "200 application"} <= set(first)
    assert any(outcome[0] == "5" for outcome in first)


async def test_shares_are_honoured_over_many_requests() -> None:
    async with faulty("5xx=0.25") as simulator, client(simulator) as http:
        replies = [await http.get("/v1/vhosts") for _ in range(200)]
    errors = sum(1 for r in replies if r.status_code >= 500)
    assert 30 <= errors <= 70  # 50 expected; seeded, so the same count every run
    assert all(r.status_code == 200 for r in replies if r.status_code < 500)


async def test_faults_apply_only_inside_their_window_and_paths() -> None:
    clock = ManualClock()
    async with faulty("5xx=1,during=10s..20s,paths=/v2/stats", clock) as simulator, client(simulator) as http:
        assert (await http.get(STATS)).status_code == 200
        clock.advance(10)
        assert (await http.get(STATS)).status_code >= 500
        assert (await http.get("/v1/vhosts")).status_code == 200
        clock.advance(10)
        assert (await http.get(STATS)).status_code == 200


async def test_a_scenario_faults_table_is_applied_without_a_spec_argument(tmp_path: object) -> None:
    from pathlib import Path

    scenario = Path(str(tmp_path)) / "flaky.toml"
    scenario.write_text('[faults]\n5xx = 1\n[[vhosts]]\nname = "default"\n', "utf-8")
    simulator = await start_simulator(str(scenario), api_port=0, publisher_port=0, access_token=TOKEN,
                                      clock=ManualClock())
    try:
        async with client(simulator) as http:
            assert (await http.get("/v1/vhosts")).status_code >= 500
    finally:
        await simulator.stop()

"""Security of the simulator's management API: authentication on every route, limits on bodies, loopback by
default, and the access token kept out of logs, reprs and the command line's output."""

from __future__ import annotations

import base64
import contextlib
import logging
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from simulator.http.cli import build_parser
from simulator.http.management import MAX_BODY_BYTES
from simulator.http.openapi import openapi_document
from simulator.http.server import DEFAULT_HOST, RunningSimulator, start_simulator
from simulator.world.clock import ManualClock

TOKEN = "s3cret-Token-for-security-tests"
TOKEN_B64 = base64.b64encode(TOKEN.encode()).decode()
REALM = 'Basic realm="OvenMediaEngine"'
NAMES = {"vhost": "default", "app": "app", "stream": "stream"}
UNKNOWN_PATHS = ["/", "/v1", "/v2", "/v3/stats", "/v1/nope", "/v2/stats/current", "/v1/vhosts/default/apps/app/"
                 "streams/stream:deleteAll", "/v1/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/v1/openapi.yaml"]


def documented_routes() -> Iterator[tuple[str, str]]:
    """Every (method, path) of the OpenAPI document of both editions, with real names filled in."""
    seen = set()
    for edition in ("enterprise", "oss"):
        for template, operations in openapi_document(edition)["paths"].items():
            path = re.sub(r"\{(\w+)\}", lambda m: NAMES[m.group(1)], template)
            for method in operations:
                if (method, path) not in seen:
                    seen.add((method, path))
                    yield method.upper(), path


ROUTES = sorted(documented_routes())


@pytest.fixture
async def simulator() -> AsyncIterator[RunningSimulator]:
    running = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=3,
                                    clock=ManualClock())
    yield running
    await running.stop()


def test_the_document_lists_the_routes_a_client_uses() -> None:
    paths = {path for _, path in ROUTES}
    assert len(ROUTES) >= 12
    assert "/v2/stats/current/vhosts/default/apps/app/streams/stream" in paths
    assert ("POST", "/v1/vhosts/default/apps/app/streams/stream:sendEvents") in ROUTES


@pytest.mark.parametrize("credentials", [None, "Basic " + base64.b64encode(b"wrong").decode(), f"Bearer {TOKEN}",
                                         "Basic", "Basic !!!notbase64", f"Basic {TOKEN_B64} extra"])
async def test_every_route_and_unknown_path_refuses_missing_or_wrong_credentials(
    simulator: RunningSimulator, credentials: str | None
) -> None:
    headers = {"Authorization": credentials} if credentials else {}
    requests = [*ROUTES, *((method, path) for path in UNKNOWN_PATHS for method in ("GET", "POST", "PUT", "DELETE"))]
    async with httpx.AsyncClient(base_url=simulator.api_url, headers=headers, timeout=10) as http:
        for method, path in requests:
            body = b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'
            reply = await http.request(method, path, content=body if method != "GET" else None)
            assert reply.status_code == 401, (method, path, reply.text)
            assert reply.headers["www-authenticate"] == REALM
            assert reply.json()["statusCode"] == 401
            assert reply.json()["message"].startswith("[HTTP] ")
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None and stream.events.events == []  # nothing an anonymous POST sent was applied


async def test_the_right_token_opens_every_documented_route(simulator: RunningSimulator) -> None:
    async with httpx.AsyncClient(base_url=simulator.api_url, headers={"Authorization": f"Basic {TOKEN_B64}"},
                                 timeout=10) as http:
        for method, path in ROUTES:
            body = {"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": "k", "data": "v"}]}
            reply = await http.request(method, path, json=[body] if path.endswith("sendEvents") else
                                       (body if method == "POST" else None))
            assert reply.status_code == 200, (method, path, reply.text)


async def test_a_body_over_the_limit_is_refused_with_413_whether_declared_or_streamed(
    simulator: RunningSimulator,
) -> None:
    too_big = b"[" + b" " * MAX_BODY_BYTES + b"]"

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(too_big), 65536):
            yield too_big[start:start + 65536]

    async with httpx.AsyncClient(base_url=simulator.api_url, headers={"Authorization": f"Basic {TOKEN_B64}"},
                                 timeout=30) as http:
        path = "/v1/vhosts/default/apps/app/streams/stream:sendEvents"
        declared = await http.post(path, content=too_big)
        streamed = await http.post(path, content=chunks())
    for reply in (declared, streamed):
        assert reply.status_code == 413
        assert reply.json() == {"message": f"[HTTP] Request body is too large (limit {MAX_BODY_BYTES} bytes) (413)",
                                "statusCode": 413}



@pytest.mark.parametrize("depth", [65, 1000, 200_000])
async def test_deeply_nested_json_is_a_400_not_a_crash(simulator: RunningSimulator, depth: int) -> None:
    body = b"[" * depth + b"]" * depth
    if len(body) > MAX_BODY_BYTES:
        body = b"[" * depth  # unterminated: the parser must still refuse it cleanly
    async with httpx.AsyncClient(base_url=simulator.api_url, headers={"Authorization": f"Basic {TOKEN_B64}"},
                                 timeout=30) as http:
        reply = await http.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", content=body)
        assert reply.status_code in (400, 413)
        assert reply.json()["message"].startswith("[HTTP] ")
        assert (await http.get("/v1/vhosts")).status_code == 200  # still serving


async def test_the_token_never_reaches_logs_even_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=3,
                                      clock=ManualClock(), faults="5xx=0.3,reset=0.2,truncate=0.1")
    try:
        for headers in ({"Authorization": f"Basic {TOKEN_B64}"}, {"Authorization": f"Bearer {TOKEN}"}, {}):
            async with httpx.AsyncClient(base_url=simulator.api_url, headers=headers, timeout=10) as http:
                for _ in range(10):
                    for call in (http.get("/v2/stats/current/vhosts/default"),
                                 http.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
                                           json={"eventFormat": "cue", "events": [{"cueType": "out",
                                                                                      "duration": 30000}]}),
                                 http.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", content=b"{")):
                        with contextlib.suppress(httpx.TransportError):
                            await call
        text = repr(simulator) + repr(simulator.api) + repr(simulator.faults)
    finally:
        await simulator.stop()
    logged = caplog.text + text
    assert caplog.records  # the test saw the simulator's logging
    assert TOKEN not in logged
    assert TOKEN_B64 not in logged


def test_the_default_bind_is_loopback() -> None:
    assert DEFAULT_HOST == "127.0.0.1"
    assert build_parser().parse_args([]).host == "127.0.0.1"


async def test_an_in_process_simulator_listens_on_loopback_only() -> None:
    simulator = await start_simulator("empty", api_port=0, publisher_port=0, clock=ManualClock())
    try:
        assert simulator.api_url.startswith("http://127.0.0.1:")
        assert simulator.publisher_url.startswith("http://127.0.0.1:")
    finally:
        await simulator.stop()


def test_help_never_shows_the_token_from_the_environment() -> None:
    env = {**os.environ, "OME_ACCESS_TOKEN": TOKEN}
    result = subprocess.run([sys.executable, "-m", "simulator", "--help"], capture_output=True, text=True,
                            env=env, timeout=60, check=False)
    assert result.returncode == 0
    assert TOKEN not in result.stdout + result.stderr


def test_the_start_banner_shows_no_custom_token() -> None:
    env = {**os.environ, "OME_ACCESS_TOKEN": TOKEN}
    process = subprocess.Popen([sys.executable, "-m", "simulator", "--api-port", "0", "--publisher-port", "0",
                                "--scenario", "empty", "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Press Ctrl+C"):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    everything = "".join(lines) + out + err
    assert "Basic base64(<your access token>)" in everything
    assert TOKEN not in everything and TOKEN_B64 not in everything


"""The limits of both ports against hostile clients, on real sockets: a 64 MB header, 500 half-sent requests,
a slow body, an over-long request line, idle keep-alive, and more connections than allowed while every one
is busy. Each test waits on what the server does (a reply, a closed connection), never on a sleep; the
deadlines are short here so that they pass quickly.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import tracemalloc
from collections.abc import AsyncIterator

import pytest
from sim_support import api_client, running_simulator

from simulator.http.cli import build_parser, http_limits_from_args
from simulator.http.limits import HttpLimits
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

MIB = 1024 * 1024
FAST = HttpLimits(max_request_line=2048, max_head_bytes=8192, request_timeout=1.0, keep_alive_timeout=0.5,
                  max_connections=100)
WAIT = 15.0
"""Upper bound for anything the server must do by itself (far above the deadlines, never reached when it works)."""


@contextlib.asynccontextmanager
async def limited(limits: HttpLimits = FAST) -> AsyncIterator[RunningSimulator]:
    clock = ManualClock()
    async with running_simulator("demo", clock=clock, http_limits=limits) as simulator:
        clock.advance(13.2)  # media exists: the publisher serves parts
        yield simulator


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


async def reply_of(reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes], bytes]:
    """Status, headers and body of the one response the server sends before closing."""
    raw = await asyncio.wait_for(reader.read(), WAIT)
    head, _, body = raw.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines)}
    return int(status.split(b" ")[1]), headers, body


@pytest.mark.parametrize("port", ["api", "publisher"])
async def test_a_64_mb_header_is_refused_early_and_costs_no_memory(port: str) -> None:
    async with limited() as simulator:
        url = simulator.api_url if port == "api" else simulator.publisher_url
        reader, writer = await asyncio.open_connection(*address(url))
        tracemalloc.start()
        try:
            reply = asyncio.create_task(reply_of(reader))  # read while sending, as a client does
            writer.write(b"GET /v1/vhosts HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            sent = 0
            with contextlib.suppress(ConnectionError):
                while sent < 64 * MIB and not reply.done():
                    writer.write(b"a" * MIB)
                    await writer.drain()
                    sent += MIB
            status, headers, body = await reply
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            writer.close()
        assert status == 431
        assert headers[b"connection"] == b"close"
        assert peak < 4 * MIB  # the header was never buffered (64 MB of it was offered)
        assert sent < 8 * MIB  # the server stopped reading soon after the limit
        if port == "api":
            assert body == b'{"message":"[HTTP] Request header is too large (limit 8192 bytes) (431)","statusCode":431}'
            assert headers[b"content-type"] == b"application/json;charset=UTF-8"
        else:
            assert headers[b"access-control-allow-origin"] == b"*"
        async with api_client(simulator) as http:
            assert (await http.get("/v1/vhosts")).status_code == 200


async def test_500_half_sent_requests_neither_hold_the_server_nor_lock_out_a_client() -> None:
    limits = dataclasses.replace(FAST, request_timeout=3.0)
    async with limited(limits) as simulator:
        connections = []
        for _ in range(500):
            reader, writer = await asyncio.open_connection(*address(simulator.api_url))
            writer.write(b"GET /v1/vhosts HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")  # and never the rest
            await writer.drain()
            connections.append((reader, writer))
        try:
            async with api_client(simulator) as http:  # at once, not after the deadline
                reply = await asyncio.wait_for(http.get("/v2/stats/current/vhosts/default"), limits.request_timeout)
            assert reply.status_code == 200
            replies = await asyncio.gather(*(reply_of(reader) for reader, _ in connections))
        finally:
            for _, writer in connections:
                writer.close()
        statuses = [status for status, _, _ in replies]
        assert statuses == [408] * 500  # each one told, by the deadline or to make room
        assert replies[0][2] == b'{"message":"[HTTP] Request not received in time (3 s) (408)","statusCode":408}'


async def test_at_most_the_cap_of_half_sent_requests_wait_at_once() -> None:
    async with limited(dataclasses.replace(FAST, request_timeout=60.0)) as simulator:
        connections = []
        for _ in range(300):
            reader, writer = await asyncio.open_connection(*address(simulator.api_url))
            writer.write(b"GET /v1/vhosts HTTP/1.1\r\n")
            await writer.drain()
            connections.append((reader, writer))
        try:
            # The first 200 made room for the last 100 while the deadline was still far off.
            early = await asyncio.gather(*(reply_of(reader) for reader, _ in connections[:200]))
            assert [status for status, _, _ in early] == [408] * 200
            assert not any(reader.at_eof() for reader, _ in connections[200:])
        finally:
            for _, writer in connections:
                writer.close()


async def test_a_body_that_stops_arriving_is_dropped_and_never_applied() -> None:
    async with limited() as simulator:
        reader, writer = await asyncio.open_connection(*address(simulator.api_url))
        path = b"/v1/vhosts/default/apps/app/streams/stream:sendEvent"
        writer.write(b"POST " + path + b" HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic dGVzdC10b2tlbg==\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"eventFormat\":")
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), WAIT) == b""  # closed, no reply: the body never came
        writer.close()
        stream = simulator.world.find_stream("default", "app", "stream")
        assert stream is not None and stream.events.events == []


@pytest.mark.parametrize("port", ["api", "publisher"])
async def test_an_over_long_request_line_is_414(port: str) -> None:
    async with limited() as simulator:
        url = simulator.api_url if port == "api" else simulator.publisher_url
        reader, writer = await asyncio.open_connection(*address(url))
        writer.write(b"GET /" + b"a" * 3000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
        await writer.drain()
        status, headers, body = await reply_of(reader)
        writer.close()
        assert status == 414
        assert b"Request line is too long (limit 2048 bytes)" in body
        if port == "publisher":
            assert headers[b"access-control-allow-origin"] == b"*"


async def test_an_idle_keep_alive_connection_is_closed_and_an_active_one_is_not() -> None:
    async with limited() as simulator:
        reader, writer = await asyncio.open_connection(*address(simulator.publisher_url))
        request = b"GET /app/stream/llhls.m3u8 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        for _ in range(3):  # requests closer together than the idle limit keep the connection
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
            length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
                         .split(b":")[1])
            await reader.readexactly(length)
        assert await asyncio.wait_for(reader.read(), WAIT) == b""  # then idle: closed by the server
        writer.close()


async def test_when_every_connection_is_busy_a_new_one_is_told_503() -> None:
    clock = ManualClock()
    limits = HttpLimits(max_connections=3, request_timeout=5.0)
    async with running_simulator("demo", clock=clock, http_limits=limits) as simulator:
        clock.advance(13.2)
        reader, writer = await asyncio.open_connection(*address(simulator.publisher_url))
        writer.write(b"GET /app/stream/llhls.m3u8 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        _, _, master = await reply_of(reader)  # the server closes this connection itself
        writer.close()
        chunklist = next(line for line in master.decode().replace('"', "\n").splitlines()
                         if line.startswith("chunklist_0_video"))
        held = []
        for _ in range(3):  # blocking reloads of a part far ahead: held until the world clock moves
            reader, writer = await asyncio.open_connection(*address(simulator.publisher_url))
            writer.write(f"GET /app/stream/{chunklist}?_HLS_msn=2&_HLS_part=7 HTTP/1.1\r\nHost: h\r\n\r\n".encode())
            await writer.drain()
            held.append((reader, writer))
        reader, writer = await asyncio.open_connection(*address(simulator.publisher_url))
        writer.write(b"GET /app/stream/llhls.m3u8 HTTP/1.1\r\nHost: h\r\n\r\n")
        status, headers, body = await reply_of(reader)
        writer.close()
        assert status == 503 and body == b"Too many connections (limit 3)"
        assert headers[b"access-control-allow-origin"] == b"*"
        clock.advance(10)  # the part exists: the held requests are answered
        for reader, writer in held:
            assert (await asyncio.wait_for(reader.readuntil(b"\r\n"), WAIT)).startswith(b"HTTP/1.1 200")
            writer.close()


def test_the_limits_are_flags_with_the_documented_defaults() -> None:
    assert http_limits_from_args(build_parser().parse_args([])) == HttpLimits()
    assert HttpLimits() == HttpLimits(max_request_line=8192, max_head_bytes=32768, request_timeout=10.0,
                                      keep_alive_timeout=30.0, max_connections=1000)
    args = build_parser().parse_args(["--max-request-line", "4096", "--max-header-size", "16384",
                                      "--request-timeout", "5", "--keep-alive-timeout", "2",
                                      "--max-connections", "50"])
    assert http_limits_from_args(args) == HttpLimits(4096, 16384, 5.0, 2.0, 50)

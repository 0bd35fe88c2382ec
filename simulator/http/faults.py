"""Fault injection in front of the management API: what a flaky network, proxy or server does to a client.

An ASGI wrapper, seeded, timed by the world clock. Per request it may add latency, then draws one
fault from the spec's shares:

- `5xx`, `html`: answered here, the server never sees the request (a POST is not applied);
- `reset`, `stall`, `truncate`, `types`: the server handles the request first (a POST *is* applied),
  then its reply is lost (reset: the connection is closed with a TCP RST; stall: held until the
  stall ends or the client gives up, then closed) or garbled (truncated JSON, values of the wrong
  JSON types). These are the cases where a client cannot know what happened and must not retry.

Every request is counted by method before any fault, so tests can prove a client sent a POST once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import socket
import struct
from collections import Counter
from dataclasses import dataclass
from typing import Any

from simulator.http.asgi import ASGIApp, Message, Receive, Scope, Send, send_bytes
from simulator.http.wire_json import JSON_CONTENT_TYPE, encode, error_body
from simulator.world.clock import Clock
from simulator.world.fault_spec import HTTP_SHARE_KINDS, FaultSpec
from simulator.world.faults import WorldFaults
from simulator.world.world import World

log = logging.getLogger("simulator.faults")

_SERVER_ERRORS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
_HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body><h1>Please sign in</h1>"
    b"<p>This network requires you to sign in before you can use it.</p></body></html>\n"
)


class InjectedReset(ConnectionResetError):
    """Raised when a reset is injected under a server that gives no access to its socket."""


class HttpFaults:
    """The ASGI wrapper. `active` switches every HTTP fault off and on at run time (tests, demos)."""

    def __init__(self, app: ASGIApp, spec: FaultSpec, clock: Clock, start_ms: int, seed: int = 0) -> None:
        self.app = app
        self.spec = spec
        self.clock = clock
        self.start_ms = start_ms
        self.active = True
        self.counts: Counter[str] = Counter()
        """Requests by method (`GET`, `POST`, ...) and faults by kind (`latency`, `5xx`, `reset`, ...)."""
        self.held = 0
        """Requests currently delayed by latency or a stall (tests wait on it before moving the clock)."""
        self._rng = random.Random(f"omesim-http-faults-{seed}")
        self._closing = asyncio.Event()

    def close(self) -> None:
        """Let every held request go, so that the server can stop at once."""
        self._closing.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.counts[scope["method"]] += 1
        if not self._applies(scope["path"]):
            await self.app(scope, receive, send)
            return
        low, high = self.spec.latency_ms
        if high > 0:
            self.counts["latency"] += 1
            await self._hold(self._rng.uniform(low, high) / 1000, receive=None)
        kind = self._draw()
        if kind is None:
            await self.app(scope, receive, send)
            return
        self.counts[kind] += 1
        log.info("fault: %s on %s %s", kind, scope["method"], scope["path"])
        if kind == "5xx":
            status = self._rng.choice(sorted(_SERVER_ERRORS))
            await send_bytes(send, status, error_body(status, _SERVER_ERRORS[status]),
                             [(b"content-type", JSON_CONTENT_TYPE)])
        elif kind == "html":
            await send_bytes(send, 200, _HTML_PAGE, [(b"content-type", b"text/html; charset=utf-8")])
        else:
            reply = await _Reply.capture(self.app, scope, receive)
            if kind == "stall":
                await self._hold(self.spec.stall_ms / 1000, receive=receive)
                await _reset(send)
            elif kind == "reset":
                await _reset(send)
            elif kind == "truncate":
                cut = self._rng.randint(1, max(1, len(reply.body) - 1))
                await send_bytes(send, reply.status, reply.body[:cut], reply.headers)
            else:
                await send_bytes(send, reply.status, _wrong_types(reply.body), reply.headers)

    def _applies(self, path: str) -> bool:
        if not self.active or not self.spec.has_http_faults:
            return False
        if self.spec.paths and not path.startswith(self.spec.paths):
            return False
        start, end = self.spec.during_ms
        elapsed = self.clock.now_ms() - self.start_ms
        return start <= elapsed and (end is None or elapsed < end)

    def _draw(self) -> str | None:
        point = self._rng.random()
        for kind in HTTP_SHARE_KINDS:
            share = self.spec.shares.get(kind, 0.0)
            if point < share:
                return kind
            point -= share
        return None

    async def _hold(self, seconds: float, receive: Receive | None) -> None:
        """Wait `seconds` of world time, or less if the server stops or (with `receive`) the client leaves."""
        waits = [asyncio.ensure_future(self.clock.sleep(seconds)), asyncio.ensure_future(self._closing.wait())]
        if receive is not None:
            waits.append(asyncio.ensure_future(_disconnected(receive)))
        self.held += 1
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.held -= 1
            for wait in waits:
                wait.cancel()


@dataclass
class _Reply:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    @classmethod
    async def capture(cls, app: ASGIApp, scope: Scope, receive: Receive) -> _Reply:
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            messages.append(message)

        await app(scope, receive, keep)
        start = messages[0]
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        body = b"".join(m.get("body", b"") for m in messages[1:])
        return cls(int(start["status"]), headers, body)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _reset(send: Send) -> None:
    """Close the connection with a TCP RST and no response (uvicorn's cycle owns the transport)."""
    cycle: Any = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if cycle is None or transport is None:
        raise InjectedReset("fault injection: connection reset")
    if getattr(cycle, "disconnected", False) or transport.is_closing():
        return  # the client already left (a stall outlasted its timeout)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    cycle.disconnected = True  # uvicorn then neither answers 500 nor logs a missing response


def _wrong_types(body: bytes) -> bytes:
    """The same document with every value of another JSON type (numbers as strings, and so on)."""
    try:
        value = json.loads(body)
    except ValueError:
        return b"[]"
    return encode(_retype(value))


def _retype(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return {str(i): _retype(v) for i, v in enumerate(value)}
    if isinstance(value, dict):
        return {k: _retype(v) for k, v in value.items()}
    return []


@dataclass
class FaultInjector:
    """Everything injected into one running simulator: the HTTP wrapper and the world's faults."""

    spec: FaultSpec
    http: HttpFaults
    world: WorldFaults

    @property
    def app(self) -> ASGIApp:
        return self.http

    def counts(self) -> Counter[str]:
        return self.http.counts + self.world.counts

    def close(self) -> None:
        self.http.close()


def install_faults(world: World, app: ASGIApp, spec: FaultSpec, seed: int = 0) -> FaultInjector:
    """Wrap the management API and hook the world; serve `injector.app` in place of `app`."""
    return FaultInjector(spec, HttpFaults(app, spec, world.clock, world.start_ms, seed),
                         WorldFaults(world, spec, seed))

"""A small OME on loopback for engine tests: real HTTP (uvicorn), data on the test's FakeClock.

It does on demand what the real simulator will not: list 10,000 streams without start-up cost, restart
a stream's counters, drop a stream, stop listening altogether (connections refused), refuse the token,
answer a path with a proxy's HTML page, and serve hostile data: any names in the listings (with `/`,
empty, lone surrogates, control characters: put them in `tree`) and any value in a statistics record
(`overrides`: 10**400 totals, negative counts, wrong types, absurd timestamps). Every request is logged
with the fake time it arrived, so tests can check the request budget.

    async with FakeOme(clock).serving() as fake, fake.client() as client: ...
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import uvicorn

from omeconsole.api.client import OmeClient
from omeconsole.core.clock import FakeClock

IN_BYTES_PER_S = 500_000  # 4 Mbit/s of ingest per stream
OUT_BYTES_PER_S = 2_000_000  # 16 Mbit/s to viewers

Scope = MutableMapping[str, Any]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Reply = tuple[int, str, bytes]


def _iso(value: datetime) -> str:
    return value.isoformat(timespec="milliseconds")


class _QuietServer(uvicorn.Server):
    """No signal handlers: the test process owns its signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class FakeOme:
    clock: FakeClock
    vhosts: int = 4
    apps_per_vhost: int = 25
    streams_per_app: int = 100
    token: str = "fake-token"
    refuse_auth: bool = False
    broken: set[str] = field(default_factory=set)
    """URL paths answered with a proxy's HTML error page."""
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    """"vhost/app/stream" (or "vhost", "vhost/app") -> fields replaced in its statistics record; a key
    "providers.totalBytesIn" replaces inside the nested object."""
    hold: asyncio.Event | None = None
    """While set to an unset event, every request waits for it (a server that does not answer)."""
    requests: list[tuple[float, str]] = field(default_factory=list)
    started: dict[tuple[str, str, str], float] = field(default_factory=dict)
    url: str = ""

    def __post_init__(self) -> None:
        self.tree: dict[str, dict[str, list[str]]] = {
            f"vh{v}": {f"app{a}": [f"s{s}" for s in range(self.streams_per_app)] for a in range(self.apps_per_vhost)}
            for v in range(self.vhosts)
        }
        self._boot = self.clock.monotonic()
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._port = 0

    # -- serving ------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[FakeOme]:
        await self.listen()
        try:
            yield self
        finally:
            await self.stop_listening()

    async def listen(self) -> None:
        """Starts answering on 127.0.0.1 (the same port again after `stop_listening`)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", self._port))
        sock.listen(128)
        sock.setblocking(False)
        self._port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self._port}"
        config = uvicorn.Config(self._asgi, interface="asgi3", lifespan="off", log_level="warning", access_log=False,
                                loop="none",
                                timeout_keep_alive=30)
        self._server = _QuietServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
            await asyncio.sleep(0.001)

    async def stop_listening(self) -> None:
        """Closes the port and every connection: clients see "connection refused" until `listen()`."""
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            await self._task
            self._server = self._task = None

    def client(self, timeout: float = 5.0) -> OmeClient:
        assert self.url, "serve the fake first: async with fake.serving()"
        return OmeClient(self.url, self.token, timeout=timeout)

    # -- changing the data ----------------------------------------------------------------------------

    def restart(self, vhost: str, app: str, stream: str) -> None:
        """The stream's input reconnects: new createdTime, byte counters back to zero."""
        self.started[(vhost, app, stream)] = self.clock.monotonic()

    def remove(self, vhost: str, app: str, stream: str) -> None:
        self.tree[vhost][app].remove(stream)

    def count(self, since: float = float("-inf"), until: float = float("inf"), prefix: str = "/") -> int:
        return sum(1 for at, path in self.requests if since <= at < until and path.startswith(prefix))

    # -- answering --------------------------------------------------------------------------------------

    async def _asgi(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Send) -> None:
        if scope["type"] != "http":
            return
        status, content_type, body = self.answer(scope["path"])
        if self.hold is not None:
            await self.hold.wait()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", content_type.encode()),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    def answer(self, path: str) -> Reply:
        self.requests.append((self.clock.monotonic(), path))
        if self.refuse_auth:
            return 401, "application/json", b'{"message":"[HTTP] Invalid credential (401)","statusCode":401}'
        if path in self.broken:
            return 502, "text/html", b"<html><body>Bad Gateway</body></html>"
        parts = path.strip("/").split("/")  # uvicorn has percent-decoded the path once, as a server does
        if parts == ["v1", "version"]:
            return self._ok({"gitVersion": "v0.20.5.0-1", "version": "0.20.5.0-1"})
        if parts[:3] == ["v2", "stats", "current"]:
            return self._stats(parts[3:])
        if parts[:2] == ["v1", "vhosts"]:
            return self._listing(parts[2:])
        return self._missing("Controller not found")

    @staticmethod
    def _ok(response: object) -> Reply:
        return 200, "application/json", json.dumps({"message": "OK", "response": response, "statusCode": 200}).encode()

    @staticmethod
    def _missing(text: str) -> Reply:
        return 404, "application/json", json.dumps({"message": f"[HTTP] {text} (404)", "statusCode": 404}).encode()

    def _wall(self, monotonic: float) -> datetime:
        return self.clock.wall() - timedelta(seconds=self.clock.monotonic() - monotonic)

    def _record(self, key: str, start: float, streams: int) -> dict[str, Any]:
        now = self.clock.monotonic()
        alive = now - start
        bytes_in, bytes_out = int(alive * IN_BYTES_PER_S * streams), int(alive * OUT_BYTES_PER_S * streams)
        created, updated = _iso(self._wall(start)), _iso(self._wall(now))
        record: dict[str, Any] = {
            "createdTime": created, "lastUpdatedTime": updated,
            "providers": {"avgThroughputIn": IN_BYTES_PER_S * 8 * streams, "connections": {"rtmp": 1},
                          "lastRecvTime": updated, "lastThroughputIn": IN_BYTES_PER_S * streams,
                          "maxThroughputIn": IN_BYTES_PER_S * 8 * streams, "totalBytesIn": bytes_in},
            "publishers": {"avgThroughputOut": OUT_BYTES_PER_S * 8 * streams, "connections": {"llhls": 5},
                           "lastSentTime": updated, "lastThroughputOut": OUT_BYTES_PER_S * streams,
                           "maxThroughputOut": OUT_BYTES_PER_S * 8 * streams, "maxTotalConnectionTime": created,
                           "maxTotalConnections": 5, "totalBytesOut": bytes_out, "totalConnections": 5},
        }
        for name, value in self.overrides.get(key, {}).items():
            target = record
            *outer, leaf = name.split(".")
            for part in outer:
                target = target[part]
            target[leaf] = value
        return record

    def _listing(self, rest: list[str]) -> Reply:
        if not rest:
            return self._ok(list(self.tree))
        vhost = self.tree.get(rest[0])
        if vhost is None:
            return self._missing(f"Could not find the virtual host: [{rest[0]}]")
        if rest[1:] == ["apps"]:
            return self._ok(list(vhost))
        if len(rest) == 4 and rest[1] == "apps" and rest[3] == "streams":
            if rest[2] not in vhost:
                return self._missing(f"Could not find the application: [{rest[0]}/{rest[2]}]")
            return self._ok(list(vhost[rest[2]]))
        if len(rest) == 5 and rest[1] == "apps" and rest[3] == "streams":
            if rest[2] not in vhost or rest[4] not in vhost[rest[2]]:
                return self._missing(f"Could not find the stream: [{rest[0]}/{rest[2]}/{rest[4]}]")
            created = _iso(self._wall(self.started.get((rest[0], rest[2], rest[4]), self._boot)))
            return self._ok({"name": rest[4], "input": {"createdTime": created, "sourceType": "Rtmp", "tracks": [
                {"id": 0, "type": "Video", "video": {"codec": "H264", "width": 1280, "height": 720,
                                                    "framerate": 30.0, "bitrate": 4000000}}]}})
        return self._missing("Controller not found")

    def _stats(self, rest: list[str]) -> Reply:
        names = rest[1::2]
        vhost = self.tree.get(names[0]) if names else None
        if vhost is None:
            return self._missing(f"Could not find the virtual host: [{'/'.join(names[:1])}]")
        key = "/".join(names)
        if len(names) == 1:
            return self._ok(self._record(key, self._boot, sum(len(s) for s in vhost.values())))
        if names[1] not in vhost:
            return self._missing(f"Could not find the application: [{names[0]}/{names[1]}]")
        if len(names) == 2:
            return self._ok(self._record(key, self._boot, len(vhost[names[1]])))
        if names[2] not in vhost[names[1]]:
            return self._missing(f"Could not find the stream: [{key}]")
        return self._ok(self._record(key, self.started.get((names[0], names[1], names[2]), self._boot), 1))

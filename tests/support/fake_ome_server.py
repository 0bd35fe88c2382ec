"""A tiny in-memory OME on a real loopback port, on the test's FakeClock, for engine and client tests.

It can be made to do what the real simulator will not on demand: list 10,000 streams without
start-up cost, restart a stream's counters, drop a stream, stop listening altogether (`down`,
`stop_listening()`), refuse the token, never answer (`stall`), answer a path with a proxy's HTML page,
or answer any path with any behaviour of `loopback_server` (`replies`: a gzip bomb, a trickle,
garbage). Names in `tree` are data and may be anything (a `/`, empty, a lone surrogate); any value of
a statistics record can be replaced (`overrides`: 10**400 totals, negative counts, wrong types, absurd
timestamps). Every request is logged with the fake time it arrived, so tests can check the budget.

    async with FakeOme(clock).serving() as fake, fake.client() as client: ...
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

from fake_clock import FakeClock
from loopback_server import Answer, Behaviour, LoopbackServer, Request, Stall

from omeconsole.api.client import OmeClient

IN_BYTES_PER_S = 500_000  # 4 Mbit/s of ingest per stream
OUT_BYTES_PER_S = 2_000_000  # 16 Mbit/s to viewers


def _iso(value: datetime) -> str:
    return value.isoformat(timespec="milliseconds")


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
    stall: bool = False
    """True: every request is held open and never answered (a server that hangs)."""
    requests: list[tuple[float, str]] = field(default_factory=list)
    started: dict[tuple[str, str, str], float] = field(default_factory=dict)
    replies: dict[str, Behaviour] = field(default_factory=dict)
    """URL paths (as sent, percent-encoded) answered with this behaviour instead of the API's."""
    server: LoopbackServer | None = None

    def __post_init__(self) -> None:
        self.tree: dict[str, dict[str, list[str]]] = {
            f"vh{v}": {f"app{a}": [f"s{s}" for s in range(self.streams_per_app)] for a in range(self.apps_per_vhost)}
            for v in range(self.vhosts)
        }
        self._boot = self.clock.monotonic()
        self._down = False

    @property
    def url(self) -> str:
        """The API's base URL; the server starts listening on first use."""
        if self.server is None:
            self.server = LoopbackServer(self.handle).start()
            if self._down:
                self.server.stop()
        return self.server.url

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[FakeOme]:
        """Listening for the block, stopped after it."""
        assert self.url
        try:
            yield self
        finally:
            await self.aclose()

    async def listen(self) -> None:
        """Answering again (on the same port) after `stop_listening()`."""
        self.down = False

    async def stop_listening(self) -> None:
        """Closes the port and every connection: clients see "connection refused" until `listen()`."""
        self.down = True

    def client(self, timeout: float = 5.0, **options: Any) -> OmeClient:
        return OmeClient(self.url, self.token, timeout=timeout, **options)

    @property
    def down(self) -> bool:
        """True: the port refuses connections and open ones are dropped; False: listening again."""
        return self._down

    @down.setter
    def down(self, value: bool) -> None:
        self._down = value
        if self.server is None:
            return
        if value:
            self.server.stop()
        else:
            self.server.start()

    async def aclose(self) -> None:
        """Stop the server now (else it stops when this fake is garbage)."""
        if self.server is not None:
            await self.server.aclose()

    def restart(self, vhost: str, app: str, stream: str) -> None:
        """The stream's input reconnects: new createdTime, byte counters back to zero."""
        self.started[(vhost, app, stream)] = self.clock.monotonic()

    def remove(self, vhost: str, app: str, stream: str) -> None:
        self.tree[vhost][app].remove(stream)

    def count(self, since: float = float("-inf"), until: float = float("inf"), prefix: str = "/") -> int:
        return sum(1 for at, path in self.requests if since <= at < until and path.startswith(prefix))

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

    @staticmethod
    def _ok(response: object) -> Answer:
        return Answer.json({"message": "OK", "response": response, "statusCode": 200})

    @staticmethod
    def _missing(text: str) -> Answer:
        return Answer.json({"message": f"[HTTP] {text} (404)", "statusCode": 404}, 404)

    async def handle(self, request: Request) -> Behaviour:
        path = request.path
        self.requests.append((self.clock.monotonic(), unquote(path)))
        if path in self.replies:
            return self.replies[path]
        if self.stall:
            return Stall()
        if self.refuse_auth:
            return Answer.json({"message": "[HTTP] Invalid credential (401)", "statusCode": 401}, 401,
                               headers={"WWW-Authenticate": 'Basic realm="OvenMediaEngine"'})
        if path in self.broken:
            return Answer(502, b"<html><body>Bad Gateway</body></html>", {"Content-Type": "text/html"})
        parts = [unquote(part, errors="surrogateescape") for part in path.strip("/").split("/")]
        if parts == ["v1", "version"]:
            return self._ok({"gitVersion": "v0.20.5.0-1", "version": "0.20.5.0-1"})
        if parts[:3] == ["v2", "stats", "current"]:
            return self._stats(parts[3:])
        if parts[:2] == ["v1", "vhosts"]:
            return self._listing(parts[2:])
        return self._missing("Controller not found")

    def _listing(self, rest: list[str]) -> Answer:
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

    def _stats(self, rest: list[str]) -> Answer:
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

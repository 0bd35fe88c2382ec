"""The real OvenMediaEngine 0.19.0 played back from its captures (`tests/support/fixtures/ome-0.19.0/`), on loopback.

Two ports, as the real server has: the management API and the publisher. Every answer is a captured one,
byte for byte (status, reason phrase, headers in wire order with the server's capitalisation, body),
chosen by rules read from the captures, never by request-specific code:

- **API**: a request is answered by the capture with the same method, target and body (JSON bodies compared
  as parsed JSON, so spacing does not matter) and the same kind of `Authorization` (none, the token, another
  Basic credential, Bearer). A request that carries no valid credential and has no capture of its own gets the
  captured 401 of its kind (the real server checks credentials before it routes). The stream's statistics are
  the captured once-a-second series (`stats_stream_series_*.json`) played forward on the test's clock from the
  replay's start (the last reading stays once the series ends), in the headers of the single capture of that
  request with `Content-Length` set to the reading's length.
- **Publisher**: playlists are the marker sequence (`markers/`): the "before cue-out" texts until the
  captured cue-out request (`api/30`) is answered, then every captured version (`markers/versions/`) in turn
  as the clock passes its offset after the cue-out. Their headers are the captured ones of the same path
  (`Content-Length` set to the body's length); a blocking reload (`_HLS_msn`/`_HLS_part`) gets the headers of
  the captured blocking reload (`Cache-Control: max-age=60`) and is held, as the real server holds it, until a
  version lists the part asked for (never answered when none does). The masters (`llhls.m3u8`,
  `ts:playlist.m3u8`) are those read at the cue-out (they supersede the earlier `playlists/` reads of the same
  targets); other captured targets (the TS packaging's masters, a missing stream) are answered as captured.
- **`:sendEvents`** whose every set was captured alone through `:sendEvent` with 200 is answered 200 with the
  array of those answers in the head of the captured `:sendEvents` 200 (`api/33` shows that shape): the
  console sends ID3 that way, and the captures sent it through `:sendEvent`.
- **ID3**: after a send holding the captured ID3 set (`markers/id3_emsg_part.json`'s `request_body`) the video chunklist
  lists the captured part (`found_after_s` later on the clock) and the publisher serves its bytes. That part's
  `#EXT-X-PART` line and the part's own headers (`Content-Type: video/mp4`, its length) are the only texts here
  that were not captured: the capture kept the part, not the playlist that named it.
- **Viewers**: the real server counts a playlist reader as an `llhls` connection exactly while its TCP
  connection is open (README, `stats_stream_series_keepalive_20s.json`). With `count_open_readers` (default)
  each open publisher connection adds one to the statistics' `totalConnections` and `connections.llhls` (and to
  `maxTotalConnections` when it passes it). With `count_bytes_sent` (default) every byte of every 200 the
  publisher sent (status line, headers and body, as the real server counts them: `totalBytesOut` +752 for the
  captured 410-byte playlist) is added to the readings' `totalBytesOut` from then on. With neither, and no
  publisher connection ever opened, the readings are the captured bytes.

A path under one that was answered "Controller not found" gets that answer too (the real server has no
controller there, so none below it: `/v2/...` on 0.19.0). Anything else is answered `501 Not In Captures`
(text naming the request) and listed in `unmatched`, so a test sees what the console asked that the real
server was never asked (parts other than the ID3 one, for instance: the captures kept no other part).
Requests are bounded (64 KiB of head, 1 MiB of body); the server runs on the test's event loop and waits
only on the test's clock.

    async with OmeReplay(clock) as replay: ... replay.api_url, replay.publisher_url, replay.token
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import contextlib
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import parse_qsl, urlsplit

FIXTURES = Path(__file__).parent / "fixtures" / "ome-0.19.0"
MAX_HEAD = 64 * 1024
MAX_BODY = 1 << 20
STATS_PATH = "/v1/stats/current/vhosts/default/apps/app/streams/stream"
SERIES = {"60s": "stats_stream_series_60s.json", "keepalive": "stats_stream_series_keepalive_20s.json"}
TIMELINE_TRIGGER = "api/30_sendEvent_cue_out.json"
"""The request the marker sequence started with (the README: "30 and 31 belong to the marker sequence")."""
BLOCKING_RELOAD = "playlists/50_llhls_blocking_reload_hinted_part.json"
EPSILON = 1e-6
"""Offsets are in milliseconds at best; a clock advanced by a sum of them lands within this of the total."""
Role = Literal["api", "publisher"]
AuthKind = Literal["none", "token", "basic-other", "bearer", "other"]


class ReplayClock(Protocol):
    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Reply:
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def wire(self) -> bytes:
        head = f"HTTP/1.1 {self.status} {self.reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in self.headers)
        return head.encode("latin-1") + b"\r\n" + self.body

    def sized(self, body: bytes) -> Reply:
        """The same head with another body and its Content-Length."""
        headers = tuple((k, str(len(body)) if k.lower() == "content-length" else v) for k, v in self.headers)
        return Reply(self.status, self.reason, headers, body)


@dataclass(frozen=True)
class Seen:
    """A request as it arrived: when (the replay's clock), on which port, what."""

    at: float
    role: Role
    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    status: int | None = None

    @property
    def path(self) -> str:
        return urlsplit(self.target).path


def _reply(raw: dict[str, Any]) -> Reply:
    return Reply(raw["status"], raw["reason"], tuple((k, v) for k, v in raw["headers"]),
                 (raw.get("body") or "").encode())


def _body_key(body: bytes | str | None) -> str:
    """JSON bodies compared as parsed JSON; anything else as its text."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else (body or "")
    try:
        return "json:" + json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return "text:" + text


def _event_sets(body: bytes) -> list[Any]:
    """The event sets a send's body holds (one object or an array of them); none when it is not JSON."""
    try:
        value = json.loads(body)
    except ValueError:
        return []
    return value if isinstance(value, list) else [value]


def _captured_auth(headers: list[list[str]]) -> AuthKind:
    value = next((v for k, v in headers if k.lower() == "authorization"), None)
    if value is None:
        return "none"
    if value == "Basic <token>":
        return "token"
    return "bearer" if value.startswith("Bearer ") else "basic-other"


def _last_part(text: str) -> tuple[int, int]:
    """(msn, part index) of the last part a media playlist lists, by the HLS numbering rule; (-1, -1) for none."""
    msn, last = 0, (-1, -1)
    part = 0
    for line in text.splitlines():
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            msn = int(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-PART:"):
            last = (msn, part)
            part += 1
        elif line and not line.startswith("#"):
            msn, part = msn + 1, 0
    return last


def _satisfies(text: str, query: dict[str, str]) -> bool:
    try:
        wanted = (int(query["_HLS_msn"]), int(query.get("_HLS_part", "0")))
    except ValueError:
        return True
    return _last_part(text) >= wanted


@dataclass
class _Rendition:
    path: str
    head: Reply
    before: bytes
    versions: list[tuple[float, bytes]]

    def at(self, since_cue: float | None) -> bytes:
        if since_cue is None:
            return self.before
        index = bisect.bisect_right([offset for offset, _ in self.versions], since_cue + EPSILON) - 1
        return self.versions[index][1] if index >= 0 else self.before

    def next_change(self, since_cue: float) -> float | None:
        return next((offset for offset, _ in self.versions if offset > since_cue + EPSILON), None)


@dataclass
class Captures:
    """The fixtures, read once: what each request is answered with and the timelines."""

    root: Path = FIXTURES
    api: dict[tuple[str, str, str, AuthKind], Reply] = field(default_factory=dict)
    unauthorized: dict[AuthKind, Reply] = field(default_factory=dict)
    publisher: dict[str, Reply] = field(default_factory=dict)
    renditions: dict[str, _Rendition] = field(default_factory=dict)
    trigger: tuple[str, str, str] = ("", "", "")
    blocking_head: Reply | None = None
    id3_set: str = ""
    id3_part: tuple[str, bytes, float] = ("", b"", 0.0)
    stats_head: Reply | None = None
    send_events_head: Reply | None = None

    def __post_init__(self) -> None:
        for file in sorted((self.root / "api").glob("*.json")):
            exchange = json.loads(file.read_text())
            request, reply = exchange["request"], _reply(exchange["response"])
            auth = _captured_auth(request["headers"])
            key = (request["method"], request["path"], _body_key(request["body"]), auth)
            self.api[key] = reply
            if reply.status == 401:
                self.unauthorized.setdefault(auth, reply)
            if request["path"].endswith(":sendEvents") and reply.status == 200 and auth == "token":
                self.send_events_head = reply
            if file.relative_to(self.root).as_posix() == TIMELINE_TRIGGER:
                self.trigger = key[:3]
        self.stats_head = self.api[("GET", STATS_PATH, _body_key(None), "token")]
        for file in sorted((self.root / "playlists").glob("[0-9]*.json")):
            exchange = json.loads(file.read_text())
            self.publisher[exchange["request"]["path"]] = _reply(exchange["response"])
        self.blocking_head = self.publisher.pop(
            json.loads((self.root / BLOCKING_RELOAD).read_text())["request"]["path"])
        self._marker_sequence()

    def _marker_sequence(self) -> None:
        markers = self.root / "markers"
        urls: dict[str, str] = json.loads((self.root / "playlists" / "urls.json").read_text())
        heads = {}
        for meta in markers.glob("*.http.json"):
            exchange = json.loads(meta.read_text())
            heads[exchange["request"]["path"]] = (_reply(exchange["response"]), meta.name.removesuffix(".http.json"))
        for path, (head, name) in heads.items():
            if name.endswith("_before_cue_out.m3u8") and path not in urls.values():
                self.publisher[path] = head.sized((markers / name).read_bytes())
        for rendition, path in urls.items():
            head, name = heads[path]
            versions = sorted((float(version.stem.rsplit("_", 1)[1]), version.read_bytes())
                              for version in (markers / "versions").glob(f"{rendition}_*.m3u8"))
            self.renditions[path] = _Rendition(path, head, (markers / name.replace(
                "_end_of_sequence", "_before_cue_out")).read_bytes(), versions)
        id3 = json.loads((markers / "id3_emsg_part.json").read_text())
        self.id3_set = _body_key(id3["request_body"])
        part_file = next(markers.glob(f"id3_emsg_{id3['part']}"))
        self.id3_part = (id3["part"], part_file.read_bytes(), float(id3["found_after_s"]))

    def composed(self, method: str, target: str, body: bytes) -> Reply | None:
        """`:sendEvents` with sets that were each captured alone through `:sendEvent` with 200: the array of
        their answers, in the head of the captured `:sendEvents` 200 (api/33 is that shape)."""
        if method != "POST" or not target.endswith(":sendEvents") or self.send_events_head is None:
            return None
        sets = _event_sets(body)
        if not sets or not isinstance(json.loads(body), list):
            return None
        single = target.removesuffix("s")
        answers = [self.api.get((method, single, _body_key(json.dumps(one)), "token")) for one in sets]
        if not all(answer is not None and answer.status == 200 for answer in answers):
            return None
        return self.send_events_head.sized(b"[" + b",".join(a.body for a in answers if a is not None) + b"]")

    def no_controller_under(self, method: str, path: str) -> Reply | None:
        """The captured "Controller not found" of a path that `path` lies under: no controller there, none below."""
        for (captured_method, captured_path, _, auth), reply in self.api.items():
            if (auth == "token" and captured_method == method and reply.status == 404
                    and b"Controller not found" in reply.body and path.startswith(captured_path.rstrip("/") + "/")):
                return reply
        return None

    def series(self, name: str) -> list[tuple[float, bytes]]:
        readings = json.loads((self.root / SERIES[name]).read_text())
        first = readings[0]["t_wall"]
        return [(reading["t_wall"] - first, reading["body"].encode()) for reading in readings]


class OmeReplay:
    """The replay on two loopback ports of the running event loop, driven by `clock` (a FakeClock in tests)."""

    def __init__(self, clock: ReplayClock, *, series: str = "60s", token: str = "replay-token",
                 count_open_readers: bool = True, count_bytes_sent: bool = True,
                 captures: Captures | None = None) -> None:
        self.clock = clock
        self.token = token
        self.count_open_readers = count_open_readers
        self.count_bytes_sent = count_bytes_sent
        self.bytes_sent = 0
        """Bytes of the publisher's 200s, on the wire, since the replay started."""
        self.captures = captures or Captures()
        self.series = self.captures.series(series)
        self.requests: list[Seen] = []
        self.unmatched: list[Seen] = []
        self.cue_out_at: float | None = None
        self.id3_at: float | None = None
        self.started_at = clock.monotonic()
        self.open_readers = 0
        self._peak_readers = 0
        self._servers: dict[Role, asyncio.Server] = {}
        self._ports: dict[Role, int] = {}
        self._changed = asyncio.Event()
        self._readers_changed = asyncio.Event()
        self._arrived = asyncio.Condition()
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self._ports['api']}"

    @property
    def publisher_url(self) -> str:
        return f"http://127.0.0.1:{self._ports['publisher']}"

    @property
    def authorization(self) -> str:
        return "Basic " + base64.b64encode(self.token.encode()).decode()

    async def __aenter__(self) -> OmeReplay:
        roles: tuple[Role, ...] = ("api", "publisher")
        for role in roles:
            server = await asyncio.start_server(functools.partial(self._connection, role=role), "127.0.0.1", 0,
                                                limit=MAX_HEAD)
            self._servers[role] = server
            self._ports[role] = server.sockets[0].getsockname()[1]
        self.started_at = self.clock.monotonic()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for server in self._servers.values():
            server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._handlers):  # a held blocking reload waits on the clock: end it here
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        for server in self._servers.values():
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self._servers.clear()

    async def received(self, matches: Callable[[Seen], bool]) -> Seen:
        """The first request (already in or still to come) that `matches`: wait on the server's own events."""
        async with self._arrived:
            while True:
                found = next((seen for seen in self.requests if matches(seen)), None)
                if found is not None:
                    return found
                await self._arrived.wait()

    def since_cue_out(self) -> float | None:
        return None if self.cue_out_at is None else self.clock.monotonic() - self.cue_out_at

    # -- the wire ------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, role: Role) -> None:
        self._writers.add(writer)
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        if role == "publisher":
            self._open_reader(+1)
        try:
            while True:
                request = await _read_request(reader, role, self.clock.monotonic())
                if request is None:
                    return
                reply = await (self._api(request) if role == "api" else self._publish(request, reader))
                seen = Seen(request.at, role, request.method, request.target, request.headers, request.body,
                            reply.status)
                if reply.reason == "Not In Captures":
                    self.unmatched.append(seen)
                async with self._arrived:
                    self.requests.append(seen)
                    self._arrived.notify_all()
                wire = reply.wire()
                if role == "publisher" and reply.status == 200:
                    self.bytes_sent += len(wire)
                writer.write(wire)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            return
        except asyncio.CancelledError:
            return
        finally:
            if role == "publisher":
                self._open_reader(-1)
            self._writers.discard(writer)
            if task is not None:
                self._handlers.discard(task)
            writer.close()

    def _open_reader(self, change: int) -> None:
        self.open_readers += change
        self._peak_readers = max(self._peak_readers, self.open_readers)
        self._readers_changed.set()

    async def readers(self, count: int) -> None:
        """Returns once exactly `count` publisher connections are open."""
        while self.open_readers != count:
            self._readers_changed.clear()
            await self._readers_changed.wait()

    # -- the API -------------------------------------------------------------------------------------------

    def _auth(self, request: Seen) -> AuthKind:
        value = next((v for k, v in request.headers if k.lower() == "authorization"), None)
        if value is None:
            return "none"
        scheme = value.partition(" ")[0]
        if scheme == "Basic":
            return "token" if value == self.authorization else "basic-other"
        return "bearer" if scheme == "Bearer" else "other"

    async def _api(self, request: Seen) -> Reply:
        auth = self._auth(request)
        key = (request.method, request.target, _body_key(request.body))
        reply = self.captures.api.get((*key, auth))
        if reply is None and auth != "token":
            reply = self.captures.unauthorized.get(auth)
        if reply is None and auth == "token":
            reply = self.captures.composed(request.method, request.target, request.body)
        if reply is None:
            reply = self.captures.no_controller_under(request.method, request.path)
        if reply is None:
            return _not_captured(request)
        if reply.status == 200 and auth == "token":
            self._events(key, request.body)
            if request.method == "GET" and request.target == STATS_PATH:
                return self._reading(reply)
        return reply

    def _events(self, key: tuple[str, str, str], body: bytes) -> None:
        if key == self.captures.trigger and self.cue_out_at is None:
            self.cue_out_at = self.clock.monotonic()
            self._changed.set()
        sets = _event_sets(body) if key[0] == "POST" else []
        if self.id3_at is None and any(_body_key(json.dumps(one)) == self.captures.id3_set for one in sets):
            self.id3_at = self.clock.monotonic()
            self._changed.set()

    def _reading(self, head: Reply) -> Reply:
        elapsed = self.clock.monotonic() - self.started_at
        index = max(0, bisect.bisect_right([offset for offset, _ in self.series], elapsed + EPSILON) - 1)
        body = self.series[index][1]
        readers = self.open_readers if self.count_open_readers else 0
        sent = self.bytes_sent if self.count_bytes_sent else 0
        if readers or sent or (self.count_open_readers and self._peak_readers):
            body = _with_readers(body, readers, self._peak_readers if self.count_open_readers else 0, sent)
        return head.sized(body)

    # -- the publisher -------------------------------------------------------------------------------------

    async def _publish(self, request: Seen, reader: asyncio.StreamReader) -> Reply:
        if request.method != "GET":
            return _not_captured(request)
        parts = urlsplit(request.target)
        query = dict(parse_qsl(parts.query))
        rendition = self.captures.renditions.get(parts.path)
        if rendition is not None:
            return await self._chunklist(rendition, query, reader)
        part_name, part_bytes, _ = self.captures.id3_part
        if parts.path.endswith("/" + part_name) and self._id3_listed():
            return Reply(200, "OK", (("Content-Length", str(len(part_bytes))), ("Content-Type", "video/mp4"),
                                     ("Server", "OvenMediaEngine")), part_bytes)
        reply = self.captures.publisher.get(request.target)
        return reply if reply is not None else _not_captured(request)

    async def _chunklist(self, rendition: _Rendition, query: dict[str, str], reader: asyncio.StreamReader) -> Reply:
        blocking = "_HLS_msn" in query
        while True:
            text = self._listing(rendition)
            if not blocking or _satisfies(text.decode(), query):
                head = self.captures.blocking_head if blocking and self.captures.blocking_head else rendition.head
                return head.sized(text)
            await self._until_change(rendition, reader)

    def _listing(self, rendition: _Rendition) -> bytes:
        text = rendition.at(self.since_cue_out())
        if "_video_" in rendition.path and self._id3_listed():
            line = f'#EXT-X-PART:DURATION=0.500000,URI="{self.captures.id3_part[0]}",INDEPENDENT=YES\n'.encode()
            hint = text.rfind(b"#EXT-X-PRELOAD-HINT")
            text = text + line if hint < 0 else text[:hint] + line + text[hint:]
        return text

    def _id3_listed(self) -> bool:
        return self.id3_at is not None and self.clock.monotonic() - self.id3_at >= self.captures.id3_part[2] - EPSILON

    async def _until_change(self, rendition: _Rendition, reader: asyncio.StreamReader) -> None:
        """Until the next version on the clock, a cue-out, or the ID3 part's time: whichever comes first.
        A client that closes (or sends anything) while it waits ends the connection, as it ends a real reader's."""
        waits: list[float] = []
        since = self.since_cue_out()
        if since is not None and (step := rendition.next_change(since)) is not None:
            waits.append(step - since)
        if self.id3_at is not None and not self._id3_listed():
            waits.append(self.id3_at + self.captures.id3_part[2] - self.clock.monotonic())
        self._changed.clear()
        changed: asyncio.Future[object] = asyncio.ensure_future(self._changed.wait())
        gone: asyncio.Future[object] = asyncio.ensure_future(reader.read(1))
        pending = {changed, gone}
        if waits:
            pending.add(asyncio.ensure_future(self._sleep(max(0.0, min(waits)))))
        try:
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)  # the read is over before the next one
        if gone.done() and not gone.cancelled():
            raise ConnectionResetError("the reader left while its reload was held")


    async def _sleep(self, seconds: float) -> object:
        await self.clock.sleep(seconds)
        return None


def _with_readers(body: bytes, readers: int, peak: int, sent: int) -> bytes:
    """The reading with the open publisher connections (llhls), their peak and the bytes sent to them counted
    as the real server counts them."""
    reading = json.loads(body)
    record = reading["response"]
    record["totalConnections"] += readers
    record["connections"]["llhls"] += readers
    record["totalBytesOut"] += sent
    if peak > record["maxTotalConnections"]:
        record["maxTotalConnections"] = peak
    return json.dumps(reading, separators=(",", ":")).encode()


def _not_captured(request: Seen) -> Reply:
    body = f"not in the captures: {request.method} {request.target}".encode()
    return Reply(501, "Not In Captures", (("Content-Length", str(len(body))), ("Content-Type", "text/plain")), body)


async def _read_request(reader: asyncio.StreamReader, role: Role, at: float) -> Seen | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = tuple((name.strip(), value.strip()) for name, _, value in
                    (line.partition(":") for line in lines[1:] if ":" in line))
    length = int(next((v for k, v in headers if k.lower() == "content-length"), "0"))
    if not 0 <= length <= MAX_BODY:
        raise ValueError("request body out of bounds")
    body = await reader.readexactly(length)
    return Seen(at, role, method, target, headers, body)


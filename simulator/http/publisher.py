"""The publisher port: LL-HLS and HLS (MPEG-TS) of every live stream, built from the world's clock.

Paths are `/{app}/{stream}/{file}` on the virtual host named by the Host header (else `default`, else
the first). Every answer comes from memory: file names are matched in full against the stream's
names, so nothing is ever read from disk whatever the path. Blocking reloads and hinted parts wait on
the world clock (a ManualClock in tests), at most 3 x the target duration, then 503.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

from simulator.http.asgi import Receive, Scope, Send
from simulator.media.hls_playlist import parse_media_playlist_name, parse_segment_file_name
from simulator.media.live import Body, LiveMedia
from simulator.media.llhls_playlist import FileRef, parse_name
from simulator.media.mpegts import TS_CONTENT_TYPE
from simulator.media.timeline import Layout
from simulator.world.topology import Stream
from simulator.world.world import World

PLAYLIST_TYPE = b"application/vnd.apple.mpegurl"
MP4_TYPE = b"video/mp4"
_TS_PLAYLISTS = ("ts:playlist.m3u8", "ts:master.m3u8")


class HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class ClientGone(Exception):
    """The client closed its connection while its request was held."""


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


@dataclass
class _Session:
    stream: Stream
    protocol: str
    last_seen_ms: int


class PublisherApp:
    """The ASGI app of the publisher port; one LiveMedia per watched stream, shared by its clients."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.layout = Layout.from_settings(world.scenario.media)
        self._media: dict[int, tuple[Stream, LiveMedia]] = {}
        self._sessions: dict[tuple[str, ...], _Session] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._swept_ms = 0

    @property
    def idle_ms(self) -> int:
        """A client that fetched nothing for this long has stopped watching."""
        return max(10_000, 3 * self.layout.target_duration * 1000)

    @property
    def hold_ms(self) -> int:
        return 3 * self.layout.target_duration * 1000

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        head = scope["method"] == "HEAD"
        try:
            if scope["method"] not in ("GET", "HEAD"):
                raise HttpError(405, "Method Not Allowed")
            stream, file, protocol = self._route(scope)
            media = self._live_media(stream)
            body, content_type = await self._answer(scope, receive, stream, media, file)
        except ClientGone:
            return
        except HttpError as error:
            await _send(send, error.status, error.text.encode(), b"text/plain", head=head)
            return
        gzipped = body.gzipped is not None and b"gzip" in _header(scope, b"accept-encoding")
        data = body.gzipped if gzipped and body.gzipped is not None else body.data
        self._count(scope, stream, protocol, 0 if head else len(data))
        await _send(send, 200, data, content_type, head=head, gzipped=gzipped,
                    cache=b"no-cache" if content_type == PLAYLIST_TYPE else b"max-age=60")

    # -- routing ---------------------------------------------------------------------------------

    def _route(self, scope: Scope) -> tuple[Stream, str, str]:
        pieces = scope["path"].split("/")
        if len(pieces) != 4 or pieces[0] or not all(pieces[1:]):
            raise HttpError(404, "Not Found")
        _, app, name, file = pieces
        stream = self.world.find_stream(self._vhost(scope), app, name)
        if stream is None or not stream.live:
            raise HttpError(404, "Not Found")
        is_ts = file in _TS_PLAYLISTS or file.endswith("_hls.ts") or file.endswith("_hls.m3u8") or (
            file == "playlist.m3u8")
        return stream, file, "hlsv3" if is_ts else "llhls"

    def _vhost(self, scope: Scope) -> str:
        host = _header(scope, b"host").decode("latin-1").rsplit(":", 1)[0].strip("[]")
        if self.world.find_vhost(host) is not None:
            return host
        return "default" if "default" in self.world.vhosts else next(iter(self.world.vhosts), "")

    def _live_media(self, stream: Stream) -> LiveMedia:
        """The stream's media, made on its first request; dropped by `sweep` once the stream ends."""
        found = self._media.get(id(stream))
        if found is not None and found[0] is stream:
            return found[1]
        media = LiveMedia(self.layout, stream.vhost, stream.app, stream.name, stream.created_ms, stream.events)
        self._media[id(stream)] = (stream, media)
        return media

    async def _answer(
        self, scope: Scope, receive: Receive, stream: Stream, media: LiveMedia, file: str
    ) -> tuple[Body, bytes]:
        raw_query = scope.get("query_string", b"")
        query = parse_qs(raw_query.decode("latin-1")) if raw_query else {}
        now = self.world.clock.now_ms()
        if file == "llhls.m3u8":
            return media.llhls_multivariant(), PLAYLIST_TYPE
        if file in _TS_PLAYLISTS or (file == "playlist.m3u8" and query.get("format") == ["ts"]):
            return media.ts_multivariant(), PLAYLIST_TYPE
        variant = parse_media_playlist_name(file)
        if variant is not None:
            if variant != media.key:
                raise HttpError(404, "Not Found")
            return media.ts_media_playlist(now), PLAYLIST_TYPE
        ts = parse_segment_file_name(file)
        if ts is not None:
            if ts[0] != media.key:
                raise HttpError(404, "Not Found")
            self._check_complete_segment(media, ts[1], now)
            return Body(media.ts_segment(ts[1])), TS_CONTENT_TYPE.encode()
        ref = parse_name(file)
        if ref is None or ref.key != media.key:
            raise HttpError(404, "Not Found")
        return await self._llhls_file(stream, media, ref, query, receive), (
            PLAYLIST_TYPE if ref.kind == "chunklist" else MP4_TYPE)

    async def _llhls_file(
        self, stream: Stream, media: LiveMedia, ref: FileRef, query: dict[str, list[str]], receive: Receive
    ) -> Body:
        now = self.world.clock.now_ms()
        if ref.kind == "chunklist":
            await self._block(stream, media, query, receive)
            return media.chunklist(ref.track, self.world.clock.now_ms())
        if ref.kind == "init":
            return Body(media.init(ref.track))
        if ref.kind == "seg":
            self._check_complete_segment(media, ref.msn, now)
            return Body(media.segment(ref.track, ref.msn))
        ready = media.part_ready_ms(ref.msn, ref.index)
        if ready is None or ref.msn < media.oldest_served_msn(now):
            raise HttpError(404, "Not Found")
        if ready > now:
            horizon = (media.layout.advance_part_limit + 1) * media.layout.part_target * 1000
            if ready - now > horizon:
                raise HttpError(404, "Not Found")
            await self._wait(stream, lambda: media.part_ready_ms(ref.msn, ref.index), receive)
        return Body(media.part(ref.track, ref.msn, ref.index))

    def _check_complete_segment(self, media: LiveMedia, msn: int, now: int) -> None:
        if media.segment_ready_ms(msn) > now or msn < media.oldest_served_msn(now):
            raise HttpError(404, "Not Found")

    # -- blocking reload -------------------------------------------------------------------------

    async def _block(
        self, stream: Stream, media: LiveMedia, query: dict[str, list[str]], receive: Receive
    ) -> None:
        """Hold a chunklist request until the part it asks for exists (HLS spec 6.2.5.2)."""
        msn = _directive(query, "_HLS_msn")
        part = _directive(query, "_HLS_part")
        if part is not None and msn is None:
            raise HttpError(400, "_HLS_part requires _HLS_msn")
        snapshot = media.snapshot(self.world.clock.now_ms())
        if msn is None:
            if snapshot.last_msn >= 0:
                return
            msn, part = 0, 0
        if msn > snapshot.last_msn + 2:
            raise HttpError(400, f"_HLS_msn {msn} is beyond the last segment {snapshot.last_msn} + 2")
        wanted = (msn, part or 0)
        if part is not None:
            layout, timeline = media.layout, media.timeline
            ahead = timeline.part_end(*wanted) - timeline.ticks_at(self.world.clock.now_ms())
            if ahead > layout.advance_part_limit * layout.part_ticks:
                raise HttpError(400, f"_HLS_part {part} of segment {msn} is beyond the advance part limit")
        await self._wait(stream, lambda: media.timeline.wall_ms(media.timeline.part_end(*wanted)), receive)

    async def _wait(self, stream: Stream, ready_ms: Callable[[], int | None], receive: Receive) -> None:
        """Sleep on the world clock until `ready_ms()` is reached; 503 after 3 x the target duration or
        if the stream ends meanwhile. A client that hangs up is let go at once (ClientGone), so held
        requests never outlive their connections."""
        clock = self.world.clock
        deadline = clock.now_ms() + self.hold_ms
        hang_up = asyncio.ensure_future(_disconnected(receive))
        try:
            while True:
                now = clock.now_ms()
                ready = ready_ms()
                if not stream.live or ready is None:
                    raise HttpError(503, "Service Unavailable")
                if now >= ready:
                    return
                if now >= deadline:
                    raise HttpError(503, "Service Unavailable")
                nap = asyncio.ensure_future(clock.sleep((min(ready, deadline) - now) / 1000))
                await asyncio.wait((nap, hang_up), return_when=asyncio.FIRST_COMPLETED)
                if hang_up.done():
                    nap.cancel()
                    raise ClientGone
        finally:
            hang_up.cancel()

    # -- real viewers ----------------------------------------------------------------------------

    def _count(self, scope: Scope, stream: Stream, protocol: str, nbytes: int) -> None:
        """Count the client as a publisher connection of the stream while it keeps fetching."""
        now = self.world.clock.now_ms()
        client = scope.get("client") or ("", 0)
        key = (str(client[0]), _header(scope, b"user-agent").decode("latin-1"), *stream.key,
               str(stream.created_ms), protocol)
        session = self._sessions.get(key)
        if session is None:
            self._sessions[key] = _Session(stream, protocol, now)
            self.world.open_session(stream, protocol)
            self._start_sweeper()
        else:
            session.last_seen_ms = now
        self.world.add_bytes_out(stream, nbytes)
        if now - self._swept_ms >= 1000:
            self.sweep(now)

    def sweep(self, now: int) -> None:
        """Close the sessions of clients that stopped fetching (or whose stream ended)."""
        self._swept_ms = now
        for ended in [key for key, (stream, _) in self._media.items() if not stream.live]:
            del self._media[ended]
        for client, session in list(self._sessions.items()):
            if not session.stream.live or now - session.last_seen_ms > self.idle_ms:
                del self._sessions[client]
                if session.stream.live:
                    self.world.close_session(session.stream, session.protocol)

    async def close(self) -> None:
        """Stop the sweeper task: the simulator's `stop()` calls this once its listeners are closed, so
        nothing of the publisher outlives the simulator on the caller's event loop."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            await asyncio.gather(sweeper, return_exceptions=True)

    def _start_sweeper(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(), name="publisher-sweeper")

    async def _sweep_forever(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while self._sessions:
                await self.world.clock.sleep(self.idle_ms / 1000)
                self.sweep(self.world.clock.now_ms())


def _directive(query: dict[str, list[str]], name: str) -> int | None:
    values = query.get(name)
    if values is None:
        return None
    if len(values) != 1 or not values[0].isdigit() or len(values[0]) > 12:
        raise HttpError(400, f"{name} must be one non-negative integer")
    return int(values[0])


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return bytes(value)
    return b""


async def _send(send: Send, status: int, body: bytes, content_type: bytes, *, head: bool, gzipped: bool = False,
                cache: bytes = b"no-cache") -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
               (b"access-control-allow-origin", b"*"), (b"cache-control", cache)]
    if gzipped:
        headers += [(b"content-encoding", b"gzip"), (b"vary", b"accept-encoding")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})

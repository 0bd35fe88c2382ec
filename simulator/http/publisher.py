"""The publisher port: LL-HLS and HLS (MPEG-TS) of every live stream, built from the world's clock.

Paths are `/{app}/{stream}/{file}` on the virtual host named by the Host header (else `default`, else
the first). Every answer comes from memory: file names are matched in full against the stream's
names, so nothing is ever read from disk whatever the path. Blocking reloads and hinted parts wait on
the world clock (holding.py).

Replies are the real server's (captures/ome-0.19.0 `playlists/*.json`): its headers in its order
(`reply_headers`), `Cache-Control: no-cache, no-store` on playlists and `max-age=60` on blocking
reloads; every failure, a POST included, is 404 with an empty `text/html` body and no CORS headers;
`OPTIONS` answers the preflight (cors.py). A reader counts as an `llhls` / `hlsv3` connection while its
TCP connection is open (sessions.py), and the bytes it is sent count with their header block.

Limits a public server has (PublisherLimits): the media bytes of every stream share one cache budget,
a stream's media is dropped once nobody has fetched it for `idle_ms`, the counted connections are
bounded (sessions.py), and a held request is given up after `max_hold_s` (holding.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from simulator.http.asgi import Receive, Scope, Send
from simulator.http.connection import connection_of
from simulator.http.cors import CORS_HEADERS, preflight_headers
from simulator.http.hls_requests import ClientGone, HttpError, parse_query
from simulator.http.holding import Unanswered, blocking_reload, hold
from simulator.http.memory import give_back
from simulator.http.reply import error_headers, head_bytes, reply_headers
from simulator.http.sessions import DEFAULT_MAX_COUNTED, DEFAULT_MAX_PER_ADDRESS, PublisherConnections
from simulator.http.thumbnails import thumbnail, thumbnail_format
from simulator.media.cache import DEFAULT_BUDGET_BYTES, ByteCache
from simulator.media.hls_playlist import parse_media_playlist_name, parse_segment_file_name
from simulator.media.layout import Layout
from simulator.media.live import Body, LiveMedia
from simulator.media.llhls_playlist import FileRef, parse_name
from simulator.media.model import TrackKind
from simulator.media.mpegts import TS_CONTENT_TYPE
from simulator.world.topology import Stream
from simulator.world.world import World

log = logging.getLogger("simulator.publisher")

PLAYLIST_TYPE = b"application/vnd.apple.mpegurl"
MP4_TYPE = b"video/mp4"
_TS_PLAYLISTS = ("ts:playlist.m3u8", "ts:master.m3u8")
_SWEEPS_PER_IDLE = 4


@dataclass(frozen=True)
class PublisherLimits:
    cache_bytes: int = DEFAULT_BUDGET_BYTES
    """Media bytes kept for all streams together (least recently used out first)."""
    max_sessions: int = DEFAULT_MAX_COUNTED
    """Open connections counted as `llhls` / `hlsv3` connections, in all."""
    max_sessions_per_address: int = DEFAULT_MAX_PER_ADDRESS
    """Open connections of one client address counted."""
    max_hold_s: float = 60.0
    """A held request (blocking reload, hinted part) whose part does not exist by then is given up: its
    connection is closed without a reply, as a client of the real server would have seen had it waited."""


@dataclass
class _Watched:
    stream: Stream
    media: LiveMedia
    last_request_ms: int


class PublisherApp:
    """The ASGI app of the publisher port; one LiveMedia per watched stream, shared by its clients."""

    def __init__(self, world: World, limits: PublisherLimits | None = None) -> None:
        self.world = world
        self.limits = limits or PublisherLimits()
        self.layout = Layout.from_settings(world.scenario.media,
                                           audio_parts_cross_target=world.profile.captured_playlists)
        self.cache = ByteCache(self.limits.cache_bytes)
        self.connections = PublisherConnections(world, max_counted=self.limits.max_sessions,
                                                max_per_address=self.limits.max_sessions_per_address)
        self._media: dict[int, _Watched] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._swept_ms = 0

    @property
    def idle_ms(self) -> int:
        """A client that fetched nothing for this long has stopped watching."""
        return max(10_000, 3 * self.layout.target_duration * 1000)

    @staticmethod
    def refusal_reply(status: int, text: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
        """A request refused by the port's limits (simulator/http/limits.py): plain text, CORS as on every reply."""
        return [(b"content-type", b"text/plain"), *CORS_HEADERS], text.encode()

    @property
    def max_hold_ms(self) -> int:
        return round(self.limits.max_hold_s * 1000)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            await self._handle(scope, receive, send)
        except ClientGone:
            return
        except Unanswered:
            await _close_unanswered(scope, receive, send)
        except HttpError as error:
            await _send_error(send, error.status)
        except Exception:  # a bug must still answer, and be logged once
            log.exception("publisher: %r %r failed", scope["method"], scope["path"][:200])  # repr: hostile text
            await _send_error(send, 500)

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        if method == "OPTIONS":
            headers = preflight_headers(_header(scope, b"access-control-request-headers"))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        if method not in ("GET", "HEAD"):
            raise HttpError(404, "method not allowed")
        stream, file, protocol = self._route(scope)
        image_format = thumbnail_format(file)
        if image_format is not None:
            await self._send_thumbnail(send, stream, image_format, head=method == "HEAD")
            return
        watched = self._watch(stream)
        now = self.world.clock.now_ms()
        connection = connection_of(scope)
        if connection is not None:  # counted from the request on: a held blocking reload counts meanwhile
            client = scope.get("client") or ("", 0)
            self.connections.read(connection, str(client[0]), stream, protocol, now)
        body, content_type, blocking = await self._answer(scope, receive, stream, watched.media, file)
        gzipped = body.gzipped is not None and b"gzip" in _header(scope, b"accept-encoding")
        data = body.gzipped if gzipped and body.gzipped is not None else body.data
        head = method == "HEAD"
        now = self.world.clock.now_ms()
        watched.last_request_ms = now  # again: a request held for a while keeps its stream's media meanwhile
        is_playlist = content_type == PLAYLIST_TYPE
        cache = None if protocol == "hlsv3" else (
            b"no-cache, no-store" if is_playlist and not blocking else b"max-age=60")
        encoding = b"gzip" if gzipped else (None if protocol == "hlsv3" else b"identity")
        headers = reply_headers(content_type, len(data), cache=cache, encoding=encoding)
        self.world.add_bytes_out(stream, head_bytes(200, headers) + (0 if head else len(data)))
        if now - self._swept_ms >= 1000:
            self.sweep(now)
        self._start_sweeper()
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else data})

    async def _send_thumbnail(self, send: Send, stream: Stream, image_format: str, *, head: bool) -> None:
        """The thumbnail publisher's answer (thumbnails.py): GET only, as the real server registers it."""
        if head:
            raise HttpError(404, "the thumbnail publisher answers GET only")
        data, content_type = thumbnail(self.world, stream, image_format)
        headers = reply_headers(content_type, len(data), cache=None, encoding=None)
        self.world.add_bytes_out(stream, head_bytes(200, headers) + len(data))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    # -- routing ---------------------------------------------------------------------------------

    def _route(self, scope: Scope) -> tuple[Stream, str, str]:
        pieces = scope["path"].split("/")
        if len(pieces) != 4 or pieces[0] or not all(pieces[1:]):
            raise HttpError(404, "no such path")
        _, app, name, file = pieces
        stream = self.world.find_stream(self._vhost(scope), app, name)
        if stream is None or not stream.live:
            raise HttpError(404, "no such stream")
        is_ts = file in _TS_PLAYLISTS or file.endswith("_hls.ts") or file.endswith("_hls.m3u8") or (
            file in ("playlist.m3u8", "master.m3u8"))
        return stream, file, "hlsv3" if is_ts else "llhls"

    def _vhost(self, scope: Scope) -> str:
        host = _header(scope, b"host").decode("latin-1").rsplit(":", 1)[0].strip("[]")
        if self.world.find_vhost(host) is not None:
            return host
        return "default" if "default" in self.world.vhosts else next(iter(self.world.vhosts), "")

    def _watch(self, stream: Stream) -> _Watched:
        """The stream's media, made on its first request; dropped by `sweep` once nobody fetches it."""
        now = self.world.clock.now_ms()
        found = self._media.get(id(stream))
        if found is not None and found.stream is stream:
            found.last_request_ms = now
            return found
        if found is not None:  # another stream object took the same id: the old one is gone
            self.cache.release(found.media.identity)
        media = LiveMedia(self.layout, stream.vhost, stream.app, stream.name, stream.created_ms, stream.events,
                          self.cache, self.world.profile, stream.bitrate_kbps * 1000)
        watched = self._media[id(stream)] = _Watched(stream, media, now)
        return watched

    async def _answer(
        self, scope: Scope, receive: Receive, stream: Stream, media: LiveMedia, file: str
    ) -> tuple[Body, bytes, bool]:
        """The file's body, its content type, and whether the request was a blocking reload."""
        query = parse_query(scope.get("query_string", b""))
        now = self.world.clock.now_ms()
        if file == "llhls.m3u8":
            return media.llhls_multivariant(), PLAYLIST_TYPE, False
        if file in _TS_PLAYLISTS or (file in ("playlist.m3u8", "master.m3u8") and query.get("format") == ["ts"]):
            return media.ts_multivariant(), PLAYLIST_TYPE, False
        variant = parse_media_playlist_name(file)
        if variant is not None:
            if variant != media.key:
                raise HttpError(404, "another life's media playlist")
            return media.ts_media_playlist(now), PLAYLIST_TYPE, False
        ts = parse_segment_file_name(file)
        if ts is not None:
            if ts[0] != media.key:
                raise HttpError(404, "another life's segment")
            if media.ts_segment_ready_ms(ts[1]) > now or ts[1] < media.ts_oldest_served_msn(now):
                raise HttpError(404, "no such TS segment")
            return Body(media.ts_segment(ts[1])), TS_CONTENT_TYPE.encode(), False
        ref = parse_name(file)
        if ref is None or ref.key != media.key:
            raise HttpError(404, "no such file")
        if ref.kind == "chunklist":
            blocking = await blocking_reload(self.world.clock, stream, media, ref.track, query, receive,
                                             self.max_hold_ms)
            return media.chunklist(ref.track, self.world.clock.now_ms()), PLAYLIST_TYPE, blocking
        return await self._media_file(stream, media, ref, receive), MP4_TYPE, False

    async def _media_file(self, stream: Stream, media: LiveMedia, ref: FileRef, receive: Receive) -> Body:
        clock = self.world.clock
        now = clock.now_ms()
        if ref.kind == "init":
            return Body(media.init(ref.track))
        if ref.kind == "seg":
            self._check_complete_segment(media, ref.track, ref.msn, now)
            return Body(media.segment(ref.track, ref.msn))
        ready = media.part_ready_ms(ref.track, ref.msn, ref.index)
        if ready is None or ref.msn < media.oldest_served_msn(now):
            raise HttpError(404, "no such part")
        if ready > now:
            horizon = (media.layout.advance_part_limit + 1) * media.layout.part_target * 1000
            if ready - now > horizon:
                raise HttpError(404, "a part far beyond the preload hint")
            await hold(clock, stream, lambda: media.part_ready_ms(ref.track, ref.msn, ref.index), receive,
                       self.max_hold_ms)
        return Body(media.part(ref.track, ref.msn, ref.index))

    def _check_complete_segment(self, media: LiveMedia, track: TrackKind, msn: int, now: int) -> None:
        if media.segment_ready_ms(track, msn) > now or msn < media.oldest_served_msn(now):
            raise HttpError(404, "no such segment")

    # -- what nobody watches any more ------------------------------------------------------------

    def sweep(self, now: int) -> None:
        """Drop the media (and its cached bytes) of streams that ended or that nobody fetched for `idle_ms`."""
        self._swept_ms = now
        held = self.cache.size
        for key, watched in list(self._media.items()):
            if not watched.stream.live or now - watched.last_request_ms > self.idle_ms:
                del self._media[key]
                self.cache.release(watched.media.identity)
        give_back(held - self.cache.size)

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
        """Runs while anything is watched, so memory is released without requests."""
        with contextlib.suppress(asyncio.CancelledError):
            while self._media:
                await self.world.clock.sleep(self.idle_ms / _SWEEPS_PER_IDLE / 1000)
                self.sweep(self.world.clock.now_ms())


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return bytes(value)
    return b""


async def _send_error(send: Send, status: int) -> None:
    await send({"type": "http.response.start", "status": status, "headers": error_headers()})
    await send({"type": "http.response.body", "body": b""})


async def _close_unanswered(scope: Scope, receive: Receive, send: Send) -> None:
    """Close the request's connection without a reply, and return once it is gone (so that the server
    does not answer in our place); behind another server (no connection at hand) answer 404."""
    connection = connection_of(scope)
    if connection is None:
        await _send_error(send, 404)
        return
    connection.close()
    while (await receive())["type"] != "http.disconnect":
        pass

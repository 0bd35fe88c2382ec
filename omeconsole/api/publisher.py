"""Reading one stream's LL-HLS from the publisher port: playlists and parts, as the server serves them.

Only I/O and parsing into `hls` types live here; what the console does with a playlist (confirming a
send) is in the core. Every failure is a `PlaylistUnreadable` whose message says why in plain words,
because then the console must say it relies on the API answer alone. Reads go through the same
transport as the API (api/http.py): each has a deadline, playlists and parts have size caps, and a
large playlist is parsed off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from urllib.parse import quote, urlencode, urljoin, urlsplit, urlunsplit

from omeconsole.api.errors import OmeError
from omeconsole.api.hls import (
    MediaPlaylist,
    PlaylistError,
    audio_rendition_uri,
    choose_video_variant,
    is_multivariant,
    parse_media_playlist,
    parse_multivariant,
    parsed_off_loop,
)
from omeconsole.api.http import Cap, HttpTransport, MiB, Reply, Timeouts, Transport
from omeconsole.api.own_reads import OwnReads

DEFAULT_PUBLISHER_PORT = 3333
DEFAULT_MAX_PLAYLIST_BYTES = 4 * MiB
"""A live LL-HLS chunklist is tens of kB; a long DVR window a few hundred."""
DEFAULT_MAX_THUMBNAIL_BYTES = 4 * MiB
"""A 1280x720 JPEG is ~100 kB, a PNG under 2 MB (core/thumbnails/decode.py checks it again)."""
THUMBNAIL_FORMATS = ("jpg", "png", "webp")
"""What the thumbnail publisher serves (`thumb.<format>`), in the order the console asks for them."""
DEFAULT_MAX_PART_BYTES = 16 * MiB
"""A 0.5 s part at 20 Mbit/s is 1.25 MB; a whole 6 s segment at that rate 15 MB."""

_MAX_HEAD_BYTES = 64 * 1024
"""The most a reply's status line and headers are taken to be, bounding a read still open."""
_PATH_SAFE = "/:@!$&'()*+,;=%~"
"""In a path or query from a playlist, these and existing escapes stay; spaces, controls, brackets and
non-ASCII are escaped."""
_T = TypeVar("_T")


class PlaylistUnreadable(Exception):
    """The playlist or part could not be read; the message says why."""


def default_publisher_url(api_url: str) -> str:
    """The API's host on port 3333, the server's default publisher port."""
    parts = urlsplit(api_url)
    host = parts.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return urlunsplit(("https" if parts.scheme == "https" else "http", f"{host}:{DEFAULT_PUBLISHER_PORT}", "", "", ""))


def playlist_url(publisher_url: str, app: str, stream: str) -> str:
    return f"{publisher_url.rstrip('/')}/{_segment(app)}/{_segment(stream)}/llhls.m3u8"


class PublisherReader:
    """One stream's LL-HLS: the video chunklist (found through the multivariant playlist), the first
    audio rendition, and parts. Blocking reload is asked for by the caller with `block`.

    `timeout`: seconds to connect and for each read; `deadline`: the whole request (default `timeout`);
    every read method also takes its own `deadline`. `max_playlist_bytes` / `max_part_bytes`: the most a
    decoded playlist / part may be."""

    def __init__(self, publisher_url: str, app: str, stream: str, *, timeout: float = 10.0, verify: bool = True,
                 transport: Transport | None = None, deadline: float | None = None,
                 max_playlist_bytes: int = DEFAULT_MAX_PLAYLIST_BYTES,
                 max_part_bytes: int = DEFAULT_MAX_PART_BYTES, own: OwnReads | None = None,
                 vhost: str = "default") -> None:
        """`own`: the session's ledger of the console's own publisher reads, `vhost` the virtual host the
        stream is on (each read is entered while its connection is open, with the bytes it took, so the
        statistics can leave it out of the viewers and the bytes out)."""
        self.url = playlist_url(publisher_url, app, stream)
        self._vhost, self._app, self._stream = vhost, app, stream
        self._own = own
        self.timeouts = Timeouts(connect=timeout, read=timeout, total=deadline if deadline is not None else timeout)
        self._playlist_cap = Cap(max_playlist_bytes, "max_playlist_bytes")
        self._part_cap = Cap(max_part_bytes, "max_part_bytes")
        self._thumbnail_cap = Cap(DEFAULT_MAX_THUMBNAIL_BYTES, "max_thumbnail_bytes")
        self._http: Transport = transport if transport is not None else HttpTransport(
            timeouts=self.timeouts, verify=verify, follow_redirects=True, fresh_reads=True)
        self._chunklist_url: str | None = None
        self._audio_url: str | None = None

    def __repr__(self) -> str:
        return f"PublisherReader(url={self.url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    def forget_chunklist(self) -> None:
        """Start over from the multivariant playlist next time (the stream may have restarted)."""
        self._chunklist_url = None

    async def chunklist(self, block: dict[str, str] | None = None, *,
                        deadline: float | None = None) -> tuple[MediaPlaylist, str]:
        """The video chunklist and its URL; `block` holds `_HLS_msn` / `_HLS_part` for a blocking reload."""
        if self._chunklist_url is None:
            text = await self._text(self.url, {}, deadline)
            if not is_multivariant(text):
                self._chunklist_url = self.url
                return await _checked(parse_media_playlist, text), self.url
            variant = await _checked(lambda t: choose_video_variant(parse_multivariant(t)), text)
            self._chunklist_url = _join(self.url, variant.uri)
            audio = audio_rendition_uri(text)
            self._audio_url = _join(self.url, audio) if audio else None
            block = None
        text = await self._text(self._chunklist_url, block or {}, deadline)
        return await _checked(parse_media_playlist, text), self._chunklist_url

    async def audio_chunklist(self, *, deadline: float | None = None) -> tuple[MediaPlaylist, str] | None:
        """The first audio rendition's chunklist (where audio-only ID3 goes); None when there is none."""
        if self._audio_url is None:
            return None
        text = await self._text(self._audio_url, {}, deadline)
        return await _checked(parse_media_playlist, text), self._audio_url

    async def part(self, base_url: str, uri: str, *, deadline: float | None = None) -> bytes | None:
        """A part's bytes; None when it cannot be had (it scrolled out, the server failed, it is over
        `max_part_bytes`)."""
        try:
            reply = await self._get(_join(base_url, uri), self._part_cap, deadline)
        except (OmeError, PlaylistUnreadable):
            return None
        return reply.body if reply.status == 200 else None

    async def thumbnail(self, image_format: str, *, deadline: float | None = None) -> bytes | None:
        """The stream's latest thumbnail (`/{app}/{stream}/thumb.{image_format}`, served when the application's
        output profile has an image encode of that format); None on a 404 (no such encode, or no stream).
        Raises PlaylistUnreadable when it cannot be read (the message says why).

        Entered in the ledger of own reads for its bytes only: the thumbnail publisher counts no connection
        for a reader (OvenMediaEngine's ThumbnailPublisher only adds the bytes it sent), so taking it off the
        viewers would show one viewer too few; its bytes are the console's own bytes out all the same."""
        base = self.url.rsplit("/", 1)[0]
        try:
            reply = await self._get(f"{base}/thumb.{image_format}", self._thumbnail_cap, deadline, connection=False)
        except OmeError as error:
            raise PlaylistUnreadable(error.message) from None
        if reply.status == 404:
            return None
        if reply.status != 200:
            raise PlaylistUnreadable(f"{_path(reply.url)} answered HTTP {reply.status}")
        return reply.body

    async def _get(self, url: str, cap: Cap, deadline: float | None, *, connection: bool = True) -> Reply:
        """One GET, entered in the ledger of the console's own reads while its connection is open (`connection`:
        whether the server counts the reader as a connection; its bytes it always counts)."""
        own = self._own
        if own is None:
            return await self._http.request("GET", url, cap=cap, timeouts=self._timeouts(deadline))
        kind = url.partition("?")[0]  # a blocking reload's size is its chunklist's, whatever part it asks for
        ticket = own.opened(self._vhost, self._app, self._stream, url=kind, cap=cap.limit + _MAX_HEAD_BYTES,
                            connection=connection)
        wire_bytes = 0
        try:
            reply = await self._http.request("GET", url, cap=cap, timeouts=self._timeouts(deadline))
            wire_bytes = reply.wire_bytes
            return reply
        finally:
            own.closed(ticket, wire_bytes, url=kind)

    def _timeouts(self, deadline: float | None) -> Timeouts:
        if deadline is None:
            return self.timeouts
        return Timeouts(connect=min(self.timeouts.connect, deadline), read=min(self.timeouts.read, deadline),
                        total=deadline)

    async def _text(self, url: str, params: dict[str, str], deadline: float | None) -> str:
        try:
            reply = await self._get(_with_query(url, params), self._playlist_cap, deadline)
        except OmeError as error:
            raise PlaylistUnreadable(error.message) from None
        if reply.status == 404:
            raise PlaylistUnreadable(f"{_path(url)} not found (404); the server may not publish LL-HLS for it")
        if reply.status != 200:
            raise PlaylistUnreadable(f"{_path(url)} answered HTTP {reply.status}")
        return reply.body.decode("utf-8", "replace")


async def _checked(parse: Callable[[str], _T], text: str) -> _T:
    try:
        return await parsed_off_loop(parse, text)
    except PlaylistError as exc:
        raise PlaylistUnreadable(str(exc)) from None


def _segment(name: str) -> str:
    return quote(name, safe="", errors="backslashreplace")


def _join(base: str, uri: str) -> str:
    """`uri` (from a playlist: any text) resolved against `base`, as a URL that can be sent."""
    try:
        parts = urlsplit(urljoin(base, uri.strip()))
        return urlunsplit((parts.scheme, parts.netloc, quote(parts.path, safe=_PATH_SAFE),
                           quote(parts.query, safe=_PATH_SAFE + "?"), ""))
    except (UnicodeEncodeError, ValueError):
        raise PlaylistUnreadable(f"the playlist names a URI that is not a URL: {uri[:100]!r}") from None


def _with_query(url: str, params: dict[str, str]) -> str:
    if not params:
        return url
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _path(url: str) -> str:
    return urlsplit(url).path

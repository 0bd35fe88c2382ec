"""Reading one stream's LL-HLS from the publisher port: playlists and parts, as the server serves them.

Only I/O and parsing into `hls` types live here; what the console does with a playlist (confirming a
send) is in the core. Every failure is a `PlaylistUnreadable` whose message says why in plain words,
because then the console must say it relies on the API answer alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from omeconsole.api.hls import (
    MediaPlaylist,
    PlaylistError,
    audio_rendition_uri,
    choose_video_variant,
    is_multivariant,
    parse_media_playlist,
    parse_multivariant,
)

DEFAULT_PUBLISHER_PORT = 3333
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
    return f"{publisher_url.rstrip('/')}/{quote(app, safe='')}/{quote(stream, safe='')}/llhls.m3u8"


class PublisherReader:
    """One stream's LL-HLS: the video chunklist (found through the multivariant playlist), the first
    audio rendition, and parts. Blocking reload is asked for by the caller with `block`."""

    def __init__(self, publisher_url: str, app: str, stream: str, *, timeout: float = 10.0, verify: bool = True,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.url = playlist_url(publisher_url, app, stream)
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout, verify=verify, follow_redirects=True)
        self._chunklist_url: str | None = None
        self._audio_url: str | None = None

    def __repr__(self) -> str:
        return f"PublisherReader(url={self.url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    def forget_chunklist(self) -> None:
        """Start over from the multivariant playlist next time (the stream may have restarted)."""
        self._chunklist_url = None

    async def chunklist(self, block: dict[str, str] | None = None) -> tuple[MediaPlaylist, str]:
        """The video chunklist and its URL; `block` holds `_HLS_msn` / `_HLS_part` for a blocking reload."""
        if self._chunklist_url is None:
            text = await self._text(self.url, {})
            if not is_multivariant(text):
                self._chunklist_url = self.url
                return _checked(parse_media_playlist, text), self.url
            variant = choose_video_variant(_checked(parse_multivariant, text))
            self._chunklist_url = str(httpx.URL(self.url).join(variant.uri))
            audio = audio_rendition_uri(text)
            self._audio_url = str(httpx.URL(self.url).join(audio)) if audio else None
            block = None
        text = await self._text(self._chunklist_url, block or {})
        return _checked(parse_media_playlist, text), self._chunklist_url

    async def audio_chunklist(self) -> tuple[MediaPlaylist, str] | None:
        """The first audio rendition's chunklist (where audio-only ID3 goes); None when there is none."""
        if self._audio_url is None:
            return None
        return _checked(parse_media_playlist, await self._text(self._audio_url, {})), self._audio_url

    async def part(self, base_url: str, uri: str) -> bytes | None:
        """A part's bytes; None when it cannot be had (it scrolled out, the server failed)."""
        try:
            response = await self._http.get(str(httpx.URL(base_url).join(uri)))
        except httpx.HTTPError:
            return None
        return response.content if response.status_code == 200 else None

    async def _text(self, url: str, params: dict[str, str]) -> str:
        try:
            response = await self._http.get(url, params=params or None)
        except httpx.TimeoutException as exc:
            raise PlaylistUnreadable(f"no answer from {_host(url)} in time") from exc
        except httpx.HTTPError as exc:
            raise PlaylistUnreadable(f"{_host(url)} unreachable ({type(exc).__name__})") from exc
        if response.status_code == 404:
            raise PlaylistUnreadable(f"{_path(url)} not found (404); the server may not publish LL-HLS for it")
        if response.status_code != 200:
            raise PlaylistUnreadable(f"{_path(url)} answered HTTP {response.status_code}")
        return response.text


def _checked(parse: Callable[[str], _T], text: str) -> _T:
    try:
        return parse(text)
    except PlaylistError as exc:
        raise PlaylistUnreadable(str(exc)) from exc


def _host(url: str) -> str:
    return urlsplit(url).netloc.rpartition("@")[2]


def _path(url: str) -> str:
    return urlsplit(url).path

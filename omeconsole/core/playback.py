"""Where a stream can be watched: its playback URLs, built from the profile's publisher URL, the stream's path,
the stream information's playlists and the application's configuration (reference `ome-api.md` §3 and §6,
captures ome-0.19.0 api/20 and api/22, OvenMediaEngine's documentation of each publisher).

From the stream info's playlists (`outputs[].playlists[]`), which the server lists as it publishes them:
- a playlist of the LL-HLS publisher: `<publisher>/<app>/<output>/<file name>.m3u8` (`llhls.m3u8` is the
  default one, `master.m3u8` a configured one);
- the HLS (MPEG-TS) publisher's default playlist (`hls_default`), and any playlist with `enableTsPackaging`:
  `<publisher>/<app>/<output>/ts:<file name>.m3u8`.
From the application's configuration (`AppConfig`), which says which publishers run:
- the TS playlists only with the HLS publisher; LL-HLS playlists only with the LL-HLS publisher;
- the thumbnails only with the thumbnail publisher and an image encode: `<publisher>/<app>/<output of the
  image's profile>/thumb.<jpg|png|webp>`;
- WebRTC signalling only with the WebRTC publisher: `ws(s)://<publisher host:port>/<app>/<output>`;
- SRT only with the SRT publisher: `srt://<publisher host>:9998?streamid=<vhost>/<app>/<stream>/master` (and
  one per configured TS playlist, as OvenMediaEngine documents SRT playback).
The API says no port but the profile's publisher URL (the LL-HLS one): every other publisher's URL is marked
assumed, with the reason. When the configuration could not be read, the URLs are those the console offered
before it read any (a TS playlist, the thumbnail and WebRTC, all assumed, said why).

Every name from the server reaches a URL percent-encoded (a control character as `%0A`, never raw), and a
file name that is not a plain file name (`[A-Za-z0-9_.-]`) is left out: a URL here is safe to print and to
send to the terminal's clipboard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from omeconsole.model.app_config import AppConfig
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import StreamInfo

HLS_DEFAULT = "hls_default"
"""The HLS (MPEG-TS) publisher's own playlist (`CreateDefaultPlaylist`): served only as `ts:`."""
SRT_PORT = 9998
"""The SRT publisher's port in OvenMediaEngine's documentation and sample configuration."""
SRT_PLAYLIST = "master"
"""The playlist the SRT publisher makes by itself."""
PORT_NOT_IN_API = "its port is not in the API: the publisher URL's (LL-HLS) port is taken"
SRT_PORT_NOT_IN_API = f"its port is not in the API: {SRT_PORT} is the documented default"
NOT_CONFIRMED = "the application's configuration was not read: this publisher may not run"
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True, slots=True)
class PlaybackUrl:
    label: str
    """What it is: `LL-HLS llhls`, `HLS (TS) playlist`, `thumbnail jpg`, `WebRTC`, `SRT master`."""
    url: str
    assumed: str | None = None
    """Why the URL may be wrong (the API does not say that part); None when the server said all of it."""

    @property
    def described(self) -> str:
        """The label, with `(assumed)` when it is."""
        return self.label + (" (assumed)" if self.assumed else "")


def encoded_path(path: NodePath) -> str:
    """`default/app/news`, each segment percent-encoded: what the path key copies."""
    return "/".join(_segment(part) for part in path.segments)


def playback_urls(publisher_url: str, path: NodePath, info: StreamInfo | None,
                  app: AppConfig | None = None) -> list[PlaybackUrl]:
    """The stream's playback URLs, each once: the playlists first, then the other publishers'.

    `app`: the application's configuration; None when it could not be read (the URLs are then today's
    guesses, marked)."""
    base = publisher_url.rstrip("/")
    urls = _playlist_urls(base, path, info, app)
    if app is None:
        urls += _guessed(base, path)
    else:
        urls += _configured(base, path, info, app)
    unique: dict[str, PlaybackUrl] = {}
    for url in urls:
        unique.setdefault(url.url, url)
    return list(unique.values())


def _playlist_urls(base: str, path: NodePath, info: StreamInfo | None, app: AppConfig | None) -> list[PlaybackUrl]:
    app_segment = _segment(path.app or "")
    llhls = app is None or app.publishes("llhls")
    hls = app is not None and app.publishes("hls")
    playlists = info.playlists if info is not None else ()
    hls_seen = any(playlist.name == HLS_DEFAULT for playlist in playlists)
    ts_reason = PORT_NOT_IN_API if hls or (app is None and hls_seen) else NOT_CONFIRMED
    urls: list[PlaybackUrl] = []
    for playlist in playlists:
        if not _FILE_NAME.fullmatch(playlist.file_name):
            continue
        folder = f"{base}/{app_segment}/{_segment(playlist.output)}"
        if playlist.name != HLS_DEFAULT and llhls:
            urls.append(PlaybackUrl(f"LL-HLS {playlist.file_name}", f"{folder}/{playlist.file_name}.m3u8"))
        ts = playlist.name == HLS_DEFAULT or playlist.ts or (app is not None and playlist.file_name in app.ts_playlists)
        if ts and (app is None or hls):
            urls.append(PlaybackUrl(f"HLS (TS) {playlist.file_name}", f"{folder}/ts:{playlist.file_name}.m3u8",
                                    ts_reason))
    if not playlists:  # the stream info not read yet: the publishers' own playlists
        folder = f"{base}/{app_segment}/{_segment(path.name)}"
        if app is None:
            urls.append(PlaybackUrl("LL-HLS llhls", f"{folder}/llhls.m3u8", NOT_CONFIRMED))
        else:
            if app.publishes("llhls") and app.llhls_default_playlist:
                urls.append(PlaybackUrl("LL-HLS llhls", f"{folder}/llhls.m3u8"))
            if hls and app.hls_default_playlist:
                urls.append(PlaybackUrl("HLS (TS) playlist", f"{folder}/ts:playlist.m3u8", PORT_NOT_IN_API))
    return urls


def _guessed(base: str, path: NodePath) -> list[PlaybackUrl]:
    """Without the application's configuration: what the server's defaults would serve, all marked."""
    app, stream = _segment(path.app or ""), _segment(path.name)
    return [PlaybackUrl("thumbnail", f"{base}/{app}/{stream}/thumb.jpg", NOT_CONFIRMED),
            PlaybackUrl("WebRTC", f"{_websocket(base)}/{app}/{stream}", NOT_CONFIRMED)]


def _configured(base: str, path: NodePath, info: StreamInfo | None, app: AppConfig) -> list[PlaybackUrl]:
    app_segment, stream = _segment(path.app or ""), _segment(path.name)
    urls: list[PlaybackUrl] = []
    if app.publishes("thumbnail"):
        outputs = set(info.outputs) if info is not None and info.outputs else None
        for image in app.image_outputs:
            output = image.output_for(path.name)
            if output is None or (outputs is not None and output not in outputs):
                continue
            for image_format in image.formats:
                urls.append(PlaybackUrl(f"thumbnail {image_format}",
                                        f"{base}/{app_segment}/{_segment(output)}/thumb.{image_format}",
                                        PORT_NOT_IN_API))
    if app.publishes("webrtc"):
        urls.append(PlaybackUrl("WebRTC", f"{_websocket(base)}/{app_segment}/{stream}", PORT_NOT_IN_API))
    if app.publishes("srt"):
        host = urlsplit(base).hostname or ""
        host = f"[{host}]" if ":" in host else host
        stream_id = "/".join(_segment(part) for part in path.segments)
        for playlist in dict.fromkeys((SRT_PLAYLIST, *app.ts_playlists)):
            if _FILE_NAME.fullmatch(playlist):
                urls.append(PlaybackUrl(f"SRT {playlist}", f"srt://{host}:{SRT_PORT}?streamid={stream_id}/{playlist}",
                                        SRT_PORT_NOT_IN_API))
    return urls


def _websocket(base: str) -> str:
    """The publisher URL's host and port as WebRTC signalling's: `ws://` (`wss://` for https)."""
    parts = urlsplit(base)
    return urlunsplit(("wss" if parts.scheme == "https" else "ws", parts.netloc, parts.path, "", ""))


def _segment(name: str) -> str:
    return quote(name, safe="", errors="backslashreplace")

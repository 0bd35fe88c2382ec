"""Where a stream can be watched: its playback URLs, built from the profile's publisher URL and the stream's
path, and only from what the server's publishers imply (reference `ome-api.md` §6, captures ome-0.19.0).

From the stream info's playlists (`outputs[].playlists[]`), which the server lists as it publishes them:
- a playlist of the LL-HLS publisher: `<publisher>/<app>/<output>/<file name>.m3u8` (`llhls.m3u8` is the
  default one, `master.m3u8` a configured one);
- the HLS (MPEG-TS) publisher's default playlist (`hls_default`), and any playlist with `enableTsPackaging`:
  `<publisher>/<app>/<output>/ts:<file name>.m3u8`.
What the API does not say is marked assumed: a `ts:` playlist when no `hls_default` playlist shows that
the HLS publisher runs (TS packaging is served by it), the thumbnail (`thumb.jpg`, only with an image
output profile), WebRTC signalling (`ws(s)://<publisher host:port>/<app>/<output>`, only with the WebRTC
publisher on that port), and the default `llhls.m3u8` when the server listed no playlist at all.
SRT playback (its port and stream id) cannot be told from the API and is not shown.

Every name from the server reaches a URL percent-encoded (a control character as `%0A`, never raw), and a
file name that is not a plain file name (`[A-Za-z0-9_.-]`) is left out: a URL here is safe to print and to
send to the terminal's clipboard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from omeconsole.model.paths import NodePath
from omeconsole.model.readings import StreamInfo

HLS_DEFAULT = "hls_default"
"""The HLS (MPEG-TS) publisher's own playlist (`CreateDefaultPlaylist`): served only as `ts:`."""
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True, slots=True)
class PlaybackUrl:
    label: str
    """What it is: `LL-HLS llhls`, `HLS (TS) playlist`, `thumbnail`, `WebRTC`."""
    url: str
    assumed: bool = False
    """Not said by the server's API: right only if that publisher is configured as the default is."""


def encoded_path(path: NodePath) -> str:
    """`default/app/news`, each segment percent-encoded: what the path key copies."""
    return "/".join(_segment(part) for part in path.segments)


def playback_urls(publisher_url: str, path: NodePath, info: StreamInfo | None) -> list[PlaybackUrl]:
    """The stream's playback URLs, those the server listed first (each once), then the assumed ones."""
    base = publisher_url.rstrip("/")
    app = _segment(path.app or "")
    urls: list[PlaybackUrl] = []
    playlists = info.playlists if info is not None else ()
    hls_runs = any(playlist.name == HLS_DEFAULT for playlist in playlists)
    for playlist in playlists:
        if not _FILE_NAME.fullmatch(playlist.file_name):
            continue
        folder = f"{base}/{app}/{_segment(playlist.output)}"
        if playlist.name != HLS_DEFAULT:
            urls.append(PlaybackUrl(f"LL-HLS {playlist.file_name}", f"{folder}/{playlist.file_name}.m3u8"))
        if playlist.name == HLS_DEFAULT or playlist.ts:
            urls.append(PlaybackUrl(f"HLS (TS) {playlist.file_name}", f"{folder}/ts:{playlist.file_name}.m3u8",
                                    assumed=not hls_runs))
    stream_folder = f"{base}/{app}/{_segment(path.name)}"
    if not urls:
        urls.append(PlaybackUrl("LL-HLS llhls", f"{stream_folder}/llhls.m3u8", assumed=True))
    urls.append(PlaybackUrl("thumbnail", f"{stream_folder}/thumb.jpg", assumed=True))
    urls.append(PlaybackUrl("WebRTC", f"{_websocket(base)}/{app}/{_segment(path.name)}", assumed=True))
    unique: dict[str, PlaybackUrl] = {}
    for url in urls:
        unique.setdefault(url.url, url)
    return list(unique.values())


def _websocket(base: str) -> str:
    """The publisher URL's host and port as WebRTC signalling's: `ws://` (`wss://` for https)."""
    parts = urlsplit(base)
    return urlunsplit(("wss" if parts.scheme == "https" else "ws", parts.netloc, parts.path, "", ""))


def _segment(name: str) -> str:
    return quote(name, safe="", errors="backslashreplace")

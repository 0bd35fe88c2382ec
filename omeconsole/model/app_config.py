"""What an application's configuration says about where its streams can be watched (`GET /v1/vhosts/{vhost}/
apps/{app}`, capture api/20): the publishers it runs and the output profiles' image encodes and TS playlists.

Only what the playback URLs need is kept; everything in it is the server's text, bounded when it is read
(`api/app_config.py`) and never shown raw.
"""

from __future__ import annotations

from dataclasses import dataclass

ORIGIN_STREAM_NAME = "${OriginStreamName}"
"""The macro of an output profile's `outputStreamName` that stands for the input stream's name."""


@dataclass(frozen=True, slots=True)
class ImageOutput:
    """An output profile with image encodes: the thumbnail publisher serves `thumb.<format>` under its output
    stream."""

    output_stream_name: str
    """The profile's `outputStreamName` template (`${OriginStreamName}`, `${OriginStreamName}_preview`)."""
    formats: tuple[str, ...]
    """`jpg`, `png`, `webp`: one per image encode, each once, in the configuration's order."""

    def output_for(self, stream: str) -> str | None:
        """The output stream's name for input `stream`; None when the template holds a macro other than
        `${OriginStreamName}` (its value is not in the API)."""
        name = self.output_stream_name.replace(ORIGIN_STREAM_NAME, stream)
        return None if "${" in name or not name else name


@dataclass(frozen=True, slots=True)
class AppConfig:
    """An application's publishers and outputs as its configuration says."""

    publishers: frozenset[str]
    """The publishers configured (lower case: `llhls`, `hls`, `webrtc`, `thumbnail`, `srt`, `ovt`, ...)."""
    ts_playlists: tuple[str, ...] = ()
    """File names of the configured playlists with `enableTsPackaging` on."""
    image_outputs: tuple[ImageOutput, ...] = ()
    llhls_default_playlist: bool = True
    """The LL-HLS publisher's `createDefaultPlaylist` (default true): `llhls.m3u8`."""
    hls_default_playlist: bool = True
    """The HLS publisher's `createDefaultPlaylist` (default true): `ts:playlist.m3u8`."""
    dynamic: bool | None = None
    """Made through the API (may be changed through it) rather than Server.xml; None when not said."""

    def publishes(self, name: str) -> bool:
        return name in self.publishers


@dataclass(frozen=True, slots=True)
class AppConfigView:
    """What the console knows of one application's configuration right now."""

    config: AppConfig | None = None
    """The last configuration read (kept while a later read fails)."""
    error: str | None = None
    """Why the last read failed (server text: shown through text.visible); None after a successful one."""
    read_at: float | None = None
    """Console monotonic time of the last successful read."""

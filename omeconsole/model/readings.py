"""What the server says about a node: statistics readings, samples over time, a stream's input.

Every value comes from a server and may be wrong. A value that is missing, mistyped or out of range
is None here and its field is named in `NodeStats.invalid`, so a screen shows "invalid" beside that
field (never a crash, never a made-up 0), and totals and rates leave it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from omeconsole.model import audience


@dataclass(frozen=True, slots=True)
class NodeStats:
    """One reading of a node's statistics, the same for v2 and (mapped) v1 servers.

    Units as the server defines them (reference §1.3): `*_throughput_*_bps` are bits per second over
    the server's last window; `last_throughput_*_bytes` is a byte count of that window. Both freeze
    when ingest stops, so the console computes its own rates from the byte totals.
    `connections_in` is None when the server does not report inbound connections (v1); a field whose
    wire value was unusable is None too and named in `invalid`.
    """

    created: datetime | None
    last_updated: datetime | None
    total_bytes_in: int | None
    total_bytes_out: int | None
    connections_in: Mapping[str, int] | None
    connections_out: Mapping[str, int] | None
    total_connections: int | None
    max_total_connections: int | None
    max_total_connection_time: datetime | None
    avg_throughput_in_bps: int | None
    avg_throughput_out_bps: int | None
    max_throughput_in_bps: int | None
    max_throughput_out_bps: int | None
    last_throughput_in_bytes: int | None
    last_throughput_out_bytes: int | None
    last_recv: datetime | None = None
    last_sent: datetime | None = None
    invalid: frozenset[str] = frozenset()
    """Names of the fields above whose wire value was missing, mistyped or out of range."""

    @property
    def viewers(self) -> int | None:
        """Playback sessions (`audience.viewers`: llhls + hlsv3 + webrtc + srt), not `total_connections`,
        which also counts relays, pushes, recordings and thumbnail readers."""
        return audience.viewers(self.connections_out)


@dataclass(frozen=True, slots=True)
class Sample:
    """One poll of one node. `at` is the console clock's monotonic seconds when the reply arrived.

    Rates are bits per second computed by the console from byte totals over `window_s` seconds of one
    clock (see `core/polling/rates.py`); None where no honest rate exists (the first seconds of a node,
    right after a counter reset, an invalid total), so that charts show a gap, not a spike.
    """

    at: float
    rate_in_bps: float | None
    rate_out_bps: float | None
    viewers: int | None
    """Playback sessions of this reading (`NodeStats.viewers`), less the console's own (`own_viewers`)."""
    stats: NodeStats
    """The server's reading less the console's own publisher reads (`own_*`, core/polling/own_share.py):
    its connections, bytes out and peak are the audience's."""
    window_s: float | None = None
    """Seconds the rates average over (None: no rate), on `window_clock`."""
    window_clock: str | None = None
    """"server": the server's ingress clock (lastRecvTime), the window ending at this reading's lastRecvTime;
    "console": the console's clock, the window ending at `at`."""
    disagree: frozenset[str] = frozenset()
    """Directions ("in", "out") where the server's own avg/max throughput disagrees with these rates."""
    own_viewers: int = 0
    """Playback connections the server counted that were (at most) the console's own playlist reads, open
    while this reading was taken (a blocking reload of the ad-break panel): taken off `viewers` and the
    `llhls` connections, shown as "(+1 this console)"."""
    own_bytes_out: int = 0
    """Bytes of the console's own publisher reads taken off the server's `totalBytesOut` (so off the rates)."""
    own_peak: int = 0
    """Connections taken off the server's peak (`maxTotalConnections`): a rise of it while the console's own
    reads were open."""


@dataclass(frozen=True, slots=True)
class TrackInfo:
    id: int | None
    type: str
    """"Video", "Audio", "Data", ..."""
    name: str | None = None
    codec: str | None = None
    width: int | None = None
    height: int | None = None
    framerate: float | None = None
    bitrate: int | None = None
    keyframe_interval: float | None = None
    samplerate: int | None = None
    channels: int | None = None


@dataclass(frozen=True, slots=True)
class PlaylistInfo:
    """One playlist an output of the stream is published under (stream info `outputs[].playlists[]`)."""

    output: str
    """The output stream's name (the path segment its playback URLs use; server text)."""
    name: str
    """The playlist's name: `llhls_default` and `hls_default` are the LL-HLS and HLS publishers' own."""
    file_name: str
    """The file's name without `.m3u8` (`llhls`, `master`, `playlist`; server text)."""
    ts: bool
    """`enableTsPackaging`: the HLS (MPEG-TS) publisher serves it too, as `ts:<file name>.m3u8`."""


@dataclass(frozen=True, slots=True)
class StreamInfo:
    """What the server says about a stream's input (reference §3)."""

    name: str
    source_type: str | None
    source_url: str | None
    created: datetime | None
    tracks: tuple[TrackInfo, ...]
    outputs: tuple[str, ...] = ()
    playlists: tuple[PlaylistInfo, ...] = ()
    """What the server says each output is published as (not kept in the history store)."""

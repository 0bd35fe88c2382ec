"""The console's own picture of a server: paths, readings, samples, node states.

Independent of HTTP and of the screens. The client turns wire replies into these types, the engine
keeps them fresh, the screens and the command line only read them. Everything here is immutable
except where a screen is meant to watch it change (NodeView is rebuilt on each read).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Level = Literal["vhost", "app", "stream"]
Edition = Literal["enterprise", "oss"]
StatsApi = Literal["v2", "v1"]
ConnectionStatus = Literal["connecting", "connected", "unreachable", "unauthorized", "error"]


@dataclass(frozen=True, slots=True)
class NodePath:
    """A virtual host, an application in it, or a stream in that: "v", "v/a" or "v/a/s"."""

    vhost: str
    app: str | None = None
    stream: str | None = None

    def __post_init__(self) -> None:
        if not self.vhost:
            raise ValueError("a path needs a virtual host name")
        if self.stream is not None and self.app is None:
            raise ValueError("a stream path needs an application")
        for part in (self.vhost, self.app, self.stream):
            if part is not None and (part == "" or "/" in part):
                raise ValueError(f"bad path segment: {part!r}")

    @classmethod
    def parse(cls, text: str) -> NodePath:
        """"v", "v/a" or "v/a/s"; anything else (empty parts, four parts) is a ValueError."""
        parts = text.strip().strip("/").split("/") if text.strip().strip("/") else []
        if not 1 <= len(parts) <= 3 or any(not p for p in parts):
            raise ValueError(f"not a path of the form vhost[/app[/stream]]: {text!r}")
        return cls(*parts)

    @property
    def level(self) -> Level:
        if self.stream is not None:
            return "stream"
        return "app" if self.app is not None else "vhost"

    @property
    def parent(self) -> NodePath | None:
        if self.stream is not None:
            return NodePath(self.vhost, self.app)
        return NodePath(self.vhost) if self.app is not None else None

    def _key(self) -> tuple[str, str, str, int]:
        depth = 0 if self.app is None else (1 if self.stream is None else 2)
        return (self.vhost, self.app or "", self.stream or "", depth)

    def __lt__(self, other: NodePath) -> bool:
        return self._key() < other._key()

    def __le__(self, other: NodePath) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: NodePath) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: NodePath) -> bool:
        return self._key() >= other._key()

    def __str__(self) -> str:
        return "/".join(p for p in (self.vhost, self.app, self.stream) if p is not None)


@dataclass(frozen=True, slots=True)
class NodeStats:
    """One reading of a node's statistics, the same for v2 and (mapped) v1 servers.

    Units as the server defines them (reference §1.3): `*_throughput_*_bps` are bits per second over
    the server's last window; `last_throughput_*_bytes` is a byte count of that window. Both freeze
    when ingest stops, so the console computes its own rates from the byte totals.
    `connections_in` is None when the server does not report inbound connections (v1).
    """

    created: datetime
    last_updated: datetime
    total_bytes_in: int
    total_bytes_out: int
    connections_in: dict[str, int] | None
    connections_out: dict[str, int]
    total_connections: int
    max_total_connections: int
    max_total_connection_time: datetime | None
    avg_throughput_in_bps: int
    avg_throughput_out_bps: int
    max_throughput_in_bps: int
    max_throughput_out_bps: int
    last_throughput_in_bytes: int
    last_throughput_out_bytes: int
    last_recv: datetime | None = None
    last_sent: datetime | None = None


@dataclass(frozen=True, slots=True)
class TrackInfo:
    id: int
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
class StreamInfo:
    """What the server says about a stream's input (reference §3)."""

    name: str
    source_type: str | None
    source_url: str | None
    created: datetime | None
    tracks: tuple[TrackInfo, ...]
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What `detect()` found: which edition, which statistics API, whether events can be sent."""

    edition: Edition
    version: str
    git_version: str
    stats_api: StatsApi
    events_supported: bool | None
    """None: not known until a send is tried."""
    events_reason: str | None = None
    """Plain words when events_supported is False."""


@dataclass(frozen=True, slots=True)
class ItemResult:
    """One element of a multi-status (207) sendEvents reply."""

    status: int
    message: str


@dataclass(frozen=True, slots=True)
class SendResult:
    """The answer to a send: the status, the server's message, and the body exactly as sent."""

    status: int
    message: str
    body: object
    items: tuple[ItemResult, ...] = ()

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 and all(200 <= i.status < 300 for i in self.items)


@dataclass(frozen=True, slots=True)
class Sample:
    """One poll of one node. `at` is the console clock's monotonic seconds when the reply arrived.

    Rates are bits per second computed from totalBytes deltas; None for the first sample of a node
    and right after a counter reset (a restarted stream), so that charts show a gap, not a spike.
    `update_seen_at` is the console time this reading's lastUpdatedTime was first seen (None: `at`):
    it tells a poll that came between two server updates from a server whose traffic stopped.
    """

    at: float
    rate_in_bps: float | None
    rate_out_bps: float | None
    viewers: int
    stats: NodeStats
    update_seen_at: float | None = None


class NodeState(enum.Enum):
    LIVE = "live"
    ENDED = "ended"
    """The stream vanished from the server; its history is kept."""
    STALE = "stale"
    """The last poll failed, or the reading is too old to trust."""
    UNKNOWN = "unknown"
    """Never polled yet."""


@dataclass(frozen=True, slots=True)
class NodeView:
    """A snapshot of everything the console knows about one node."""

    path: NodePath
    state: NodeState
    latest: Sample | None = None
    history: Sequence[Sample] = ()
    error: str | None = None
    info: StreamInfo | None = None

    def age(self, now: float) -> float | None:
        """Seconds since the latest reading arrived (console monotonic clock); None if never read."""
        return None if self.latest is None else max(0.0, now - self.latest.at)


@dataclass(frozen=True, slots=True)
class ConnectionState:
    """The console's link to the server, in words fit for a banner (never the token)."""

    status: ConnectionStatus = "connecting"
    message: str = "connecting"
    server: ServerInfo | None = None
    next_retry_at: float | None = None
    """Console monotonic time of the next attempt while unreachable or failing."""
    failures: int = field(default=0)

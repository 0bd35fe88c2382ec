"""The world's objects: virtual hosts, applications and streams, with their counters and names."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.world.events import EventLog

SERVER_ROW = 0


@dataclass
class Stream:
    vhost: str
    app: str
    name: str
    row: int
    app_row: int
    input_protocol: str
    bitrate_kbps: int
    audience: float
    permanent: bool
    created_ms: int
    events: EventLog = field(default_factory=EventLog)
    ended_ms: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.vhost, self.app, self.name)

    @property
    def live(self) -> bool:
        return self.ended_ms is None


@dataclass
class App:
    vhost: str
    name: str
    row: int
    vhost_row: int
    streams: dict[str, Stream] = field(default_factory=dict)
    """Live streams by name, in creation order."""
    thumbnails: tuple[str, ...] = ()
    """The image formats its streams' thumbnails are encoded in (none: no image encoding profile)."""
    publishers: tuple[str, ...] = ("hls", "llhls")
    """The publishers it runs, sorted (its document's `publishers` keys)."""


@dataclass
class Vhost:
    name: str
    row: int
    apps: dict[str, App] = field(default_factory=dict)

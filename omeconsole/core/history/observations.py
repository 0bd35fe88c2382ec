"""What the store is fed: samples, ends and stream descriptions of nodes, and the spans of ad breaks and alerts,
each stamped with wall time.

The store does not know the polling engine. Anything that takes samples (today's `PollingEngine`
through `engine_source`, tomorrow's polling façade, a test) is a `SampleSource`: it hands each
observation to a sink, and that is the whole contract.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from omeconsole.core.clock import Clock
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample, StreamInfo


@dataclass(frozen=True, slots=True)
class ServerId:
    """Which server a node belongs to: `key` is host:port, the profile and URL are labels for people."""

    key: str
    profile: str | None = None
    api_url: str | None = None
    """Without user info (never a credential)."""

    @classmethod
    def from_url(cls, api_url: str, profile: str | None = None) -> ServerId:
        return cls(server_key(api_url), profile, _without_credentials(api_url))


def server_key(api_url: str) -> str:
    """`host:port` of a management API URL, the port made explicit (`http://h` is `h:80`)."""
    try:
        parts = urlsplit(api_url)
        port = parts.port
    except ValueError:
        return api_url
    host = (parts.hostname or "").lower()
    if not host:
        return api_url
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _without_credentials(api_url: str) -> str:
    try:
        parts = urlsplit(api_url)
    except ValueError:
        return "<unparseable url>"
    netloc = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{netloc}{parts.path}".rstrip("/")


@dataclass(frozen=True, slots=True)
class ObservedSample:
    server: ServerId
    path: NodePath
    sample: Sample
    at: float
    """Wall time of the sample, seconds since the epoch (the sample's own `at` is a monotonic clock's)."""


@dataclass(frozen=True, slots=True)
class ObservedEnd:
    """The server stopped listing the node (the stream ended) at `at` (epoch seconds)."""

    server: ServerId
    path: NodePath
    at: float


@dataclass(frozen=True, slots=True)
class ObservedInfo:
    """What the server said the stream is made of, first seen (or changed) at `at`."""

    server: ServerId
    path: NodePath
    info: StreamInfo
    at: float


@dataclass(frozen=True, slots=True)
class ObservedSpan:
    """An ad break or an alert as a chart drew it, when it began, was corrected or ended (epoch seconds).

    `span` names it among the server's spans (told again under the same name: the row is updated); `path` is
    None for an alert of the whole server. `label`, `severity` and `origin` are `NodeEvent`'s own."""

    server: ServerId
    span: str
    kind: str
    """"ad break" or "alert" (`EventKind.value`)."""
    path: NodePath | None
    began: float
    ended: float | None
    label: str = ""
    severity: str = ""
    origin: str = ""


Observation = ObservedSample | ObservedEnd | ObservedInfo | ObservedSpan
ObservationSink = Callable[[Observation], object]


class SampleSource(Protocol):
    """Anything that takes samples: it calls the sink with each new observation until unsubscribed."""

    def subscribe(self, sink: ObservationSink) -> Callable[[], None]:
        """Starts feeding `sink`; the returned function stops it."""
        ...


def epoch_of(clock: Clock, monotonic_at: float) -> float:
    """The wall time (epoch seconds) of a moment given on `clock`'s monotonic scale."""
    return clock.wall().timestamp() - clock.monotonic() + monotonic_at

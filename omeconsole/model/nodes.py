"""What the console knows about one node at one instant: its state, latest reading and history."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample, StreamInfo


class NodeState(enum.Enum):
    LIVE = "live"
    ENDED = "ended"
    """The stream vanished from the server; its history is kept."""
    STALE = "stale"
    """No successful reading for too long: the numbers shown are old."""
    UNKNOWN = "unknown"
    """Never read yet."""
    UNADDRESSABLE = "unaddressable"
    """Listed by the server under a name the API cannot be asked about (empty, with a `/`, ...)."""


@dataclass(frozen=True, slots=True)
class NodeView:
    """A read-only snapshot of one node. `history` is a view, not a copy: do not keep it past a redraw."""

    path: NodePath
    state: NodeState
    latest: Sample | None = None
    history: Sequence[Sample] = ()
    error: str | None = None
    info: StreamInfo | None = None
    ended_at: float | None = None
    """Console monotonic time the stream was first seen gone."""

    def age(self, now: float) -> float | None:
        """Seconds since the latest reading arrived (console monotonic clock); None if never read."""
        return None if self.latest is None else max(0.0, now - self.latest.at)


@dataclass(frozen=True, slots=True)
class AppStreams:
    """The streams of one application as the console lists them: never changed once made.

    The engine replaces an app's AppStreams only when its streams changed, so a reader that keeps the
    object it drew from can tell "unchanged" with `is` and skip the work (a tree of 10,000 streams
    re-arranges only the apps that moved).
    """

    live: tuple[str, ...]
    """Listed by the server now, in the server's order."""
    ended: tuple[str, ...] = ()
    """Gone from the server recently, kept for display with their history (see NodeView.ended_at)."""


Listing = Mapping[str, Mapping[str, AppStreams]]
"""vhost -> app -> its streams; copy-on-write: a listing handed out earlier never changes under its reader."""

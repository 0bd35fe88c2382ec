"""What the console knows about one node at one instant: its state, latest reading and history.

A `NodeView` is a read-only snapshot handed out by the polling engine. Its `history` and `series`
are views onto the engine's rings, not copies: read them during one redraw and let them go.
"""

from __future__ import annotations

import enum
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import overload

from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample, StreamInfo


class NodeState(enum.Enum):
    LIVE = "live"
    ENDED = "ended"
    """The stream vanished from the server; its history, peaks and totals are kept."""
    STALE = "stale"
    """No successful reading for two of this node's polling intervals: the numbers shown are old."""
    UNKNOWN = "unknown"
    """Never read yet."""
    UNADDRESSABLE = "unaddressable"
    """Listed by the server under a name the API cannot be asked about (empty, with a `/`, ...): never polled."""


INGEST_STALL_S = 10.0
"""Seconds without a new input byte after which a live stream is "stalled": the row says `◐ stalled`, and
it is the `ingest_stopped` alert rule's default `after` (one threshold for both)."""


STATE_MARKS: dict[NodeState, tuple[str, str]] = {
    NodeState.LIVE: ("●", "live"),
    NodeState.ENDED: ("○", "ended"),
    NodeState.STALE: ("▲", "stale"),
    NodeState.UNKNOWN: ("?", "waiting"),
    NodeState.UNADDRESSABLE: ("⊘", "unaddressable"),
}
"""Symbol and word per state; the colour only reinforces them."""

STALLED_MARK = ("◐", "stalled")
"""A live stream with no input bytes for `INGEST_STALL_S`: drawn in the stale colour, said in words."""


def input_still_for(view: NodeView) -> float | None:
    """Seconds over which this node's readings showed the same input byte total (the same life of the
    stream), measured between readings, never past the newest; None when it cannot be told."""
    latest = view.latest
    if latest is None or latest.stats.total_bytes_in is None:
        return None
    total, created = latest.stats.total_bytes_in, latest.stats.created
    since = latest.at
    for sample in reversed(view.history):
        if sample.stats.total_bytes_in != total or sample.stats.created != created:
            break
        since = min(since, sample.at)
    return latest.at - since


def is_stalled(view: NodeView, after: float = INGEST_STALL_S) -> bool:
    """A live stream whose input has not moved for `after` seconds (its encoder stalled, or its link)."""
    if view.state is not NodeState.LIVE or view.path.level != "stream":
        return False
    if view.rate_in_bps:  # a rate of input says bytes arrive, whatever the totals seemed to say
        return False
    still = input_still_for(view)
    return still is not None and still >= after


@dataclass(frozen=True, slots=True)
class Point:
    """One point of a node's rate series: what a chart draws."""

    at: float
    """The console clock's monotonic seconds when the reading arrived."""
    rate_in_bps: float | None
    rate_out_bps: float | None
    viewers: int | None


@dataclass(frozen=True, slots=True)
class SeriesColumns:
    """A stretch of a rate series as plain columns (copied: a chart may keep them)."""

    at: list[float]
    rate_in_bps: list[float | None]
    rate_out_bps: list[float | None]
    viewers: list[int | None]


class Series(Sequence[Point]):
    """A node's compact rate history, oldest first, long enough for a one-hour chart window.

    Indexing builds one `Point`; `columns(since)` gives a window (for example the last 5 minutes:
    `since = now - 300`) in one pass, which is what a chart should use.
    """

    __slots__ = ()

    @abstractmethod
    def columns(self, since: float | None = None) -> SeriesColumns:
        """The points at or after `since` (all when None), as columns."""


class PointwiseSeries(Series):
    """A series that makes each point when it is asked for (`point(index)`, 0 <= index < len)."""

    __slots__ = ()

    @abstractmethod
    def point(self, index: int) -> Point:
        """Point `index`, counted from the oldest."""

    @overload
    def __getitem__(self, index: int) -> Point: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Point]: ...

    def __getitem__(self, index: int | slice) -> Point | Sequence[Point]:
        if isinstance(index, slice):
            return [self.point(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("series index out of range")
        return self.point(index)


class _NoSeries(Series):
    __slots__ = ()

    @overload
    def __getitem__(self, index: int) -> Point: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Point]: ...

    def __getitem__(self, index: int | slice) -> Point | Sequence[Point]:
        if isinstance(index, slice):
            return ()
        raise IndexError("an empty series has no points")

    def __len__(self) -> int:
        return 0

    def columns(self, since: float | None = None) -> SeriesColumns:
        return SeriesColumns([], [], [], [])


NO_SERIES: Series = _NoSeries()


@dataclass(frozen=True, slots=True)
class NodeView:
    """A read-only snapshot of one node. `history` and `series` are views, not copies: do not keep them
    past a redraw.

    `latest` is the last reading whatever the state; what a screen shows as *current* figures comes from
    `rate_in_bps`, `rate_out_bps` and `viewers`, which are None for an ended or unaddressable node (an
    ended stream has no current rate: show its `last_seen_at`, its peaks and the totals in `latest`).
    """

    path: NodePath
    state: NodeState
    latest: Sample | None = None
    history: Sequence[Sample] = ()
    """The full readings of the last `history_seconds` (default 10 minutes at 1 s), oldest first."""
    error: str | None = None
    """The last failure since the last successful reading (server text: display it through text.visible)."""
    info: StreamInfo | None = None
    ended_at: float | None = None
    """Console monotonic time the stream was first seen gone."""
    series: Series = NO_SERIES
    """Rates and viewers of up to the last hour (chart windows of 1 m, 5 m, 15 m and 1 h)."""
    last_seen_at: float | None = None
    """Console monotonic time the node was last seen on the server (read or listed); for an ended stream,
    the last time it was there."""
    sampled_every: float | None = None
    """Mean seconds between this node's recent readings: how often it was actually sampled, which at
    10,000 streams under a request budget can be far from the interval."""
    stale_after: float | None = None
    """Seconds without a successful reading after which this node shows STALE (two of its intervals)."""
    peak_rate_in_bps: float | None = None
    """Highest rate the console computed for this node (invalid readings left out)."""
    peak_rate_out_bps: float | None = None
    peak_viewers: int | None = None

    def age(self, now: float) -> float | None:
        """Seconds since the latest reading arrived (console monotonic clock); None if never read."""
        return None if self.latest is None else max(0.0, now - self.latest.at)

    @property
    def current(self) -> Sample | None:
        """The latest reading if it still describes the node now (not for an ended or unaddressable one)."""
        if self.state in (NodeState.ENDED, NodeState.UNADDRESSABLE):
            return None
        return self.latest

    @property
    def rate_in_bps(self) -> float | None:
        current = self.current
        return None if current is None else current.rate_in_bps

    @property
    def rate_out_bps(self) -> float | None:
        current = self.current
        return None if current is None else current.rate_out_bps

    @property
    def viewers(self) -> int | None:
        current = self.current
        return None if current is None else current.viewers

    @property
    def server_disagrees(self) -> frozenset[str]:
        """Directions ("in", "out") where the server's own throughput figures disagree with the console's
        rate beyond `rates.RATE_TOLERANCE` (a screen says so rather than trusting either silently)."""
        current = self.current
        return frozenset() if current is None else current.disagree


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
    """Gone from the server recently, kept for display with their history (see NodeView.ended_at), in
    the order they ended."""


Listing = Mapping[str, Mapping[str, AppStreams]]
"""vhost -> app -> its streams; copy-on-write: a listing handed out earlier never changes under its reader."""

"""Replay: what the console would have shown at a moment of the past, from the store alone.

A `ReplaySource` answers as the polling engine does (`listing()`, `node(path)`) at the time its
`ReplayCursor` points to, so a screen drawn from the engine can be drawn from a replay. The cursor
moves on an injected clock: paused, or playing at 1x, 10x or 60x, and jumps (scrub) by any amount,
always within the replayed range. Nothing here opens a connection to a server: a replay of a server
that is gone works the same, and sends have nothing to go to (`READ_ONLY_REASON` says so on screen).

Times are epoch seconds throughout: `Sample.at`, `NodeView.ended_at` and the cursor's position are on
the same scale, so `view.age(cursor.position)` is the age the live console showed.
"""

from __future__ import annotations

import bisect
import itertools
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from omeconsole.core.clock import Clock
from omeconsole.core.history import codec
from omeconsole.core.history.reader import HistoryReader
from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample

READ_ONLY_REASON = "replay of recorded data: nothing is sent from a replay"
SPEEDS = (1.0, 10.0, 60.0)
STALE_SPACINGS = 3.0
"""A node whose latest sample is older than this many of its usual spacings is shown stale."""


SETTLE_S = 30.0
"""A replay opens where the nodes recorded in its first this many seconds all have their numbers."""


def opening_moment(reader: HistoryReader, servers: list[str], start: float, end: float) -> float:
    """Where a replay opens: not the very first moment recorded, when a recorder had only read the
    virtual hosts (the applications and streams come a few requests later, and a rate needs two readings),
    but the first moment at which every node recorded in the first `SETTLE_S` seconds had been read with
    a rate; `start` itself when that cannot be told. The cursor can still go back to `start`."""
    moments = [moment for server in servers if (moment := reader.first_rates_at(server, start, SETTLE_S)) is not None]
    return min(end, max([start, *moments]))


class ReplayCursor:
    """Virtual time between `start` and `end` (epoch seconds), moved by `clock` while playing."""

    def __init__(self, clock: Clock, start: float, end: float, position: float | None = None) -> None:
        if end < start:
            raise ValueError("a replay's end comes before its start")
        self.start, self.end = start, end
        self._clock = clock
        self._anchor = self._clamp(start if position is None else position)
        self._anchored_at = clock.monotonic()
        self._speed = 0.0

    def _clamp(self, at: float) -> float:
        return min(self.end, max(self.start, at))

    @property
    def position(self) -> float:
        return self._clamp(self._anchor + self._speed * (self._clock.monotonic() - self._anchored_at))

    @property
    def speed(self) -> float:
        """1, 10 or 60 while playing; 0 when paused or at the end."""
        return self._speed if self.position < self.end else 0.0

    def _reanchor(self, at: float, speed: float) -> None:
        self._anchor, self._anchored_at, self._speed = self._clamp(at), self._clock.monotonic(), speed

    def play(self, speed: float = 1.0) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"replay plays at {', '.join(f'{s:g}x' for s in SPEEDS)}")
        self._reanchor(self.position, speed)

    def pause(self) -> None:
        self._reanchor(self.position, 0.0)

    def jump(self, seconds: float) -> None:
        """Scrub forwards (positive) or back (negative); playing goes on from there."""
        self._reanchor(self.position + seconds, self._speed)

    def seek(self, at: float) -> None:
        self._reanchor(at, self._speed)


@dataclass(slots=True)
class _Window:
    """A node's samples loaded around the cursor, so playing and small jumps read no database."""

    start: float
    end: float
    samples: list[Sample]
    times: list[float]
    before: Sample | None
    """The last sample before `start` (for a node sampled rarely)."""


class ReplaySource:
    """The console's view of one server at the cursor's time, from the store at `reader`."""

    def __init__(self, reader: HistoryReader, server: str, cursor: ReplayCursor, *,
                 history_seconds: float = 600.0, keep_ended: float = 3600.0, now: float | None = None) -> None:
        self.reader = reader
        self.server = server
        self.cursor = cursor
        self.history_seconds = history_seconds
        self.keep_ended = keep_ended
        self._now = now
        self._windows: dict[NodePath, _Window] = {}
        self._events = reader.lifecycle(server)
        self._event_times = [at for _, at, _ in self._events]
        self._states: dict[NodePath, tuple[str, float]] = {}
        self._states_upto = 0
        self._listing_key = (-1, -1)
        self._listing: Listing = {}

    read_only_reason = READ_ONLY_REASON

    # -- the engine's questions, at the cursor --------------------------------------------------------

    def listing(self) -> Listing:
        return self.listing_at(self.cursor.position)

    def node(self, path: NodePath) -> NodeView:
        return self.node_at(path, self.cursor.position)

    # -- the same at any time --------------------------------------------------------------------------

    def _states_at(self, at: float) -> Mapping[NodePath, tuple[str, float]]:
        """Each node's last lifecycle event ("live" | "ended", time) at or before `at`."""
        upto = bisect.bisect_right(self._event_times, at)
        if upto < self._states_upto:
            self._states, self._states_upto = {}, 0
        for path, moment, kind in self._events[self._states_upto:upto]:
            self._states[path] = (kind, moment)
        self._states_upto = upto
        return self._states

    def listing_at(self, at: float) -> Listing:
        """vhost -> app -> streams live at `at`, and those ended within `keep_ended` before it."""
        states = self._states_at(at)
        key = (self._states_upto, bisect.bisect_left(self._event_times, at - self.keep_ended))
        if key == self._listing_key:
            return self._listing  # the same events in view: the same listing
        tree: dict[str, dict[str, tuple[list[str], list[str]]]] = {}
        for path, (kind, moment) in sorted(states.items()):
            if path.app is None:
                if kind == "live":
                    tree.setdefault(path.vhost, {})
                continue
            apps = tree.setdefault(path.vhost, {})
            if path.stream is None:
                if kind == "live":
                    apps.setdefault(path.app, ([], []))
                continue
            live, ended = apps.setdefault(path.app, ([], []))
            if kind == "live":
                live.append(path.stream)
            elif at - moment <= self.keep_ended:
                ended.append(path.stream)
        self._listing_key = key
        self._listing = {vhost: {app: AppStreams(tuple(live), tuple(ended)) for app, (live, ended) in apps.items()}
                         for vhost, apps in tree.items()}
        return self._listing

    def _window(self, path: NodePath, at: float) -> _Window:
        window = self._windows.get(path)
        start = at - self.history_seconds
        if window is None or start < window.start or at > window.end:
            lo, hi = start - self.history_seconds, at + self.history_seconds
            samples = self.reader.samples(self.server, path, lo, hi, now=self._now)
            before = self.reader.latest_before(self.server, path, lo) if not samples or samples[0].at > start else None
            window = _Window(lo, hi, samples, [s.at for s in samples], before)
            self._windows[path] = window
            if len(self._windows) > 4096:
                self._windows.pop(next(iter(self._windows)))
        return window

    def node_at(self, path: NodePath, at: float) -> NodeView:
        window = self._window(path, at)
        first = bisect.bisect_left(window.times, at - self.history_seconds)
        last = bisect.bisect_right(window.times, at)
        history = window.samples[first:last]
        latest = history[-1] if history else (window.samples[last - 1] if last else window.before)
        info_text = self.reader.info_at(self.server, path, at) if path.level == "stream" else None
        info = codec.info_from_json(info_text)
        event = self._states_at(at).get(path)
        if event is not None and event[0] == "ended":
            return NodeView(path, NodeState.ENDED, latest, tuple(history), info=info, ended_at=event[1])
        if latest is None:
            return NodeView(path, NodeState.UNKNOWN, info=info)
        return NodeView(path, self._freshness(history, latest, at), latest, tuple(history), info=info)

    def _freshness(self, history: list[Sample], latest: Sample, at: float) -> NodeState:
        spacings = [b.at - a.at for a, b in itertools.pairwise(history)]
        usual = statistics.median(spacings) if spacings else self.history_seconds
        return NodeState.STALE if at - latest.at > STALE_SPACINGS * usual else NodeState.LIVE

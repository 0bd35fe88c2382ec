"""The events a live session puts on its charts: it listens to the engine, the ad board and the alerts.

- Ad breaks: the span from the splice to the return, of every break the ad board knows (sent by this
  console, seen in a followed playlist, recalled from the audit log), once it is on air; a break that
  never went on air (refused, outcome unknown) is not drawn. The splice and the end are the break
  model's own (`BreakView.splice_wall`, `ends_wall`), put on the console's clock at the moment they are read.
- Alerts: the span from firing to resolved, at the evaluator's own times (the console's clock).
- A stream's start (its `createdTime`) when it started while the console was running (a stream found
  already up has an uptime, not an event on the chart), restart (the `createdTime` changed while the stream stayed
  listed) and end (it left the listing: `NodeView.ended_at`). A server time becomes a console time
  through the reading that carried it (`at` less the server's `lastUpdateTime - createdTime`), so a
  server whose clock is off does not move the mark; a restart is kept between the two readings that
  show it. Only streams the console reads are seen to restart (those on screen, as everything polled).

The times stay on the console's monotonic clock (`Timeline`); a screen turns them into local times with
the one instant of its tick (`wall_at`).

A replay draws the ad breaks and alerts the history store kept (the recording console's spans, `core/history/events.py`)
instead of listening to an ad board and alerts of its own, and its starts, ends and restarts from the recorded
readings as above. A span is shown from its start on, and open (going on) while the replay is before its end.
A store upgraded from a version that kept no spans says so under the chart for the moments before the upgrade.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from omeconsole.core.adops.ad_break import BreakState, BreakView
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.state import AlertStatus, Transition
from omeconsole.core.clock import Clock
from omeconsole.core.history.replay_engine import ReplayEngine
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.core.timeline import EventKind, NodeEvent, Timeline
from omeconsole.live.ad_board import AdBoard
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath

LIVES_KEPT = 50_000
"""Streams whose last `createdTime` is remembered (to tell a restart); the oldest told is forgotten first."""
REPLAY_UNSEEN = "replay: ad breaks and alerts not recorded before {at}"
"""Said under a replayed chart at a moment the store was written without spans (local time filled in)."""
RECORDED_PER_NODE = 1_000
"""Recorded spans a replay keeps per node (the latest of its range)."""
FOUND_UP_S = 1.0
"""A stream created within this long after the console began is taken as found up, not as started: a server's
time on the console's clock is no more exact than that."""
PLAYLIST_WORDS = "seen in the playlist"
"""The label of a break this console did not send."""


@dataclass(frozen=True)
class _DrawnBreak:
    number: int
    """The stream's breaks are numbered in the order drawn: the span's key."""
    splice: datetime
    ends: datetime | None
    """Its end as last known (planned or cued in)."""


class ChartEvents:
    """One session's `Timeline`, fed by its engine, ad board and alerts. `events(path)` is what a chart draws."""

    def __init__(self, engine: PollingEngine, board: AdBoard, alerts: AlertEvaluator | None, clock: Clock) -> None:
        self.timeline = Timeline(clock.monotonic())
        self._engine = engine
        self._replay = isinstance(engine, ReplayEngine)
        self._recorded: Timeline | None = None
        """A replay's: the spans the store kept."""
        self._spans_kept_after: float | None = None
        self._board = board
        self._clock = clock
        self._lives: OrderedDict[NodePath, tuple[datetime | None, float, bool]] = OrderedDict()
        """Per stream read: its `createdTime`, the reading's time, and whether it was seen ended since."""
        self._breaks: dict[NodePath, _DrawnBreak] = {}
        """Per stream: the last break put on the timeline."""
        self._unsettled: set[NodePath] = set()
        """Streams whose break may still start or end by the clock alone (scheduled or on air)."""
        engine.add_listener(self._engine_update)
        if isinstance(engine, ReplayEngine):
            self._recorded = _recorded_timeline(engine)
            self._spans_kept_after = engine.reader.spans_kept_after()
            return  # the store's spans are the replay's breaks and alerts: nothing is sent or judged again
        board.add_listener(lambda path, _shown: self._break_changed(path))
        if alerts is not None:
            alerts.add_listener(self._alert)

    @property
    def unseen(self) -> str:
        """Which kinds this session cannot show now, in words for the screen ("" when it shows them all)."""
        kept_after = self._spans_kept_after
        if kept_after is None or self._clock.monotonic() > kept_after:
            return ""
        return REPLAY_UNSEEN.format(at=datetime.fromtimestamp(kept_after).astimezone().strftime("%H:%M:%S"))

    def events(self, path: NodePath, since: float | None = None) -> list[NodeEvent]:
        """`path`'s events (see `Timeline.events`) up to now, breaks brought up to the clock first (a replay
        moved back has events after its now: they are not shown until it plays over them again; a recorded span
        that ends after its now is shown going on)."""
        self.settle()
        now = self._clock.monotonic()
        found = [event for event in self.timeline.events(path, since) if event.start <= now]
        if self._recorded is None:
            return found
        found += [event if event.end is None or event.end <= now else replace(event, end=None)
                  for event in self._recorded.events(path, since) if event.start <= now]
        return sorted(found, key=lambda event: event.start, reverse=True)

    def wall_now(self, now: float) -> datetime:
        """The wall time of the console instant `now` (a replay's clock is the recorded moment, in epoch seconds)."""
        return datetime.fromtimestamp(now, UTC) if self._replay else self._clock.wall()

    def settle(self) -> None:
        """Breaks that reached their splice or their end since they were last read (nobody tells of that)."""
        for path in list(self._unsettled):
            self._break_changed(path)

    # Streams ---------------------------------------------------------------------------------------------

    def _engine_update(self, update: EngineUpdate) -> None:
        for path in update.changed:
            if path.stream is not None:
                self._stream_seen(self._engine.node(path))
        self.settle()

    def _stream_seen(self, view: NodeView) -> None:
        path, latest = view.path, view.latest
        known = self._lives.get(path)
        if view.state is NodeState.ENDED:
            if known is not None and not known[2]:
                end = view.ended_at if view.ended_at is not None else self._clock.monotonic()
                self.timeline.point(EventKind.END, path, end)
                self._close_break(path, end)
                self._remember(path, known[0], known[1], ended=True)
            return
        if latest is None or view.state not in (NodeState.LIVE, NodeState.STALE):
            return
        created, at = latest.stats.created, latest.at
        if known is not None and at < known[1]:
            self._remember(path, created, at)  # a replay moved back: what was seen later says nothing now
            return
        if known is None or known[2] or (known[0] is None and created is not None):
            start = None if created is None else min(self._server_instant(created, view), at)
            if start is not None and start > self.timeline.began + FOUND_UP_S:  # it appeared while the console looked
                self.timeline.point(EventKind.START, path, start)
        elif created is not None and created != known[0]:
            moment = min(max(self._server_instant(created, view), known[1]), at)
            self.timeline.point(EventKind.RESTART, path, moment)
        self._remember(path, created, at)

    def _remember(self, path: NodePath, created: datetime | None, at: float, *, ended: bool = False) -> None:
        self._lives[path] = (created, at, ended)
        self._lives.move_to_end(path)
        while len(self._lives) > LIVES_KEPT:
            self._lives.popitem(last=False)

    @staticmethod
    def _server_instant(moment: datetime, view: NodeView) -> float:
        """A server time on the console's clock, through the latest reading's own server time."""
        latest = view.latest
        assert latest is not None
        updated = latest.stats.last_updated
        if updated is None:
            return latest.at
        return latest.at - (updated - moment).total_seconds()

    # Ad breaks -------------------------------------------------------------------------------------------

    def _console_time(self, moment: datetime) -> float:
        return self._clock.monotonic() - (self._clock.wall() - moment).total_seconds()

    def _break_changed(self, path: NodePath) -> None:
        view = self._board.break_view(path)
        if view is None:
            return
        splice = view.splice_wall
        if view.state in (BreakState.SENT, BreakState.SCHEDULED, BreakState.ON_AIR):
            self._unsettled.add(path)
        else:
            self._unsettled.discard(path)
        if view.state not in (BreakState.ON_AIR, BreakState.ENDED) or splice is None:
            if view.state is not BreakState.SCHEDULED:
                self._close_break(path, self._clock.monotonic())
            return
        drawn = self._breaks.get(path)
        key = ("ad", path, drawn.number if drawn is not None else 0)
        if drawn is not None and not self.timeline.is_open(key):
            if drawn.splice == splice:
                return  # this break is on the timeline, ended
            key = ("ad", path, drawn.number + 1)
        elif drawn is not None and drawn.ends is not None and splice >= drawn.ends:
            self._close_break(path, self._console_time(drawn.ends))  # it ended unseen; this is the next one
            key = ("ad", path, drawn.number + 1)
        # else: the break drawn, its splice corrected (estimated, then seen in the playlist)
        self._breaks[path] = _DrawnBreak(key[2], splice, view.ends_wall)
        self.timeline.open(key, EventKind.AD_BREAK, path, self._console_time(splice), _break_label(view),
                           origin=view.origin)
        if view.state is BreakState.ENDED:
            ends = view.ends_wall
            self.timeline.close(key, self._clock.monotonic() if ends is None else self._console_time(ends))

    def _close_break(self, path: NodePath, end: float) -> None:
        drawn = self._breaks.get(path)
        if drawn is not None:
            self.timeline.close(("ad", path, drawn.number), end)

    # Alerts ----------------------------------------------------------------------------------------------

    def _alert(self, transition: Transition) -> None:
        alert = transition.alert
        key = ("alert", alert.fingerprint)
        if alert.status is AlertStatus.FIRING:
            start = alert.started_at if alert.started_at is not None else alert.since
            self.timeline.open(key, EventKind.ALERT, alert.key.path, start, alert.key.rule, severity=alert.severity)
        elif alert.status is AlertStatus.RESOLVED:
            self.timeline.close(key, alert.resolved_at if alert.resolved_at is not None else alert.since)


def _break_label(view: BreakView) -> str:
    return PLAYLIST_WORDS if view.origin == "playlist" else ""


def _recorded_timeline(engine: ReplayEngine) -> Timeline:
    """The store's spans over the replay's range, on a timeline of their own (a replay's clock is epoch seconds)."""
    cursor = engine.cursor
    recorded = Timeline(float("-inf"), per_node=RECORDED_PER_NODE)
    for number, span in enumerate(engine.reader.spans(engine.server_key, cursor.start, cursor.end)):
        kind = _KINDS.get(span.kind)
        if kind is not None:
            recorded.open(number, kind, span.path, span.began, span.label, severity=span.severity,
                          origin=span.origin)
            if span.ended is not None:
                recorded.close(number, span.ended)
    return recorded


_KINDS = {EventKind.AD_BREAK.value: EventKind.AD_BREAK, EventKind.ALERT.value: EventKind.ALERT}

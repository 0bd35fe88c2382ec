"""The node store: what the engine knows about every node, and the read-only views it hands out.

It owns the per-node records (latest reading, rate window, error and retry, ended state, peaks), the
history rings of watched nodes, and the listing with its ended streams. It applies outcomes and
remembers what changed until the engine takes the changes for its next update. No I/O, no clock of
its own: every call says what time it is.
"""

from __future__ import annotations

import math
import random

from omeconsole.api.errors import NotFoundError
from omeconsole.api.own_reads import OwnShare
from omeconsole.core.polling.budget import Backoff
from omeconsole.core.polling.history import HistoryStore
from omeconsole.core.polling.jobs import (
    AppConfigJob,
    AppConfigRead,
    Detected,
    DetectJob,
    Failed,
    InfoJob,
    InfoRead,
    Job,
    Listed,
    ListingJob,
    Outcome,
    StatsJob,
    StatsRead,
)
from omeconsole.core.polling.listing import ROOT, ListingBook, ListingChange
from omeconsole.core.polling.own_share import OwnPart, audience_sample
from omeconsole.core.polling.rates import RateWindow
from omeconsole.core.polling.settings import PollSettings
from omeconsole.model.app_config import AppConfigView
from omeconsole.model.nodes import Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo


class _Record:
    """What the engine keeps per node it has polled (history rings live in the HistoryStore)."""

    __slots__ = ("backoff", "ended_at", "error", "first_attempt", "info", "info_at", "last_attempt", "last_ok",
                 "last_seen", "latest", "own", "peak_in", "peak_out", "peak_viewers", "rates", "retry_at")

    def __init__(self) -> None:
        self.latest: Sample | None = None
        self.rates = RateWindow()
        self.own = OwnPart()
        self.info: StreamInfo | None = None
        self.error: str | None = None
        self.last_ok: float | None = None
        self.first_attempt: float | None = None
        self.last_attempt = -math.inf
        self.retry_at: float | None = None
        """An explicit due time: a failure's back-off, or "now" for a node that must be asked at once."""
        self.backoff: Backoff | None = None
        self.info_at = -math.inf
        self.ended_at: float | None = None
        self.last_seen: float | None = None
        self.peak_in: float | None = None
        self.peak_out: float | None = None
        self.peak_viewers: int | None = None


class _AppRecord:
    """An application's document: the last one read, and when it is due again."""

    __slots__ = ("due", "view")

    def __init__(self) -> None:
        self.view = AppConfigView()
        self.due = -math.inf


def _peak(peak: float | None, value: float | None) -> float | None:
    return value if peak is None or (value is not None and value > peak) else peak


class NodeStore:
    def __init__(self, settings: PollSettings, rng: random.Random) -> None:
        self._settings = settings
        self._rng = rng
        self.book = ListingBook()
        self._records: dict[NodePath, _Record] = {}
        self._apps: dict[NodePath, _AppRecord] = {}
        self._history = HistoryStore(settings.history_capacity, settings.chart_capacity,
                                     settings.keep_recent_histories)
        self._changed: set[NodePath] = set()
        self._listing_changed = False
        self._first_listing = False
        self._listing_was_complete = False

    # -- what the planner reads -----------------------------------------------------------------

    def due_at(self, path: NodePath, period: float, *, probe: bool = False) -> float | None:
        """When `path`'s statistics are next due (None: not to be polled: ended and not probed).

        `probe`: the selected node, asked at least once per `period` even while failing or ended."""
        record = self._records.get(path)
        if record is None:
            return -math.inf
        regular = record.last_attempt + period
        if record.ended_at is not None:
            return regular if probe else None
        if record.retry_at is None:
            return regular
        return min(record.retry_at, regular) if probe else record.retry_at

    def last_attempt(self, path: NodePath) -> float:
        record = self._records.get(path)
        return record.last_attempt if record is not None else -math.inf

    def info_due_at(self, path: NodePath, every: float) -> float | None:
        record = self._records.get(path)
        if record is None:
            return -math.inf
        return None if record.ended_at is not None else record.info_at + every

    def app_config_due_at(self, app: NodePath) -> float:
        """When the application's document is next due (at once if never asked for)."""
        record = self._apps.get(app)
        return -math.inf if record is None else record.due

    def input_unknown(self, path: NodePath) -> bool:
        record = self._records.get(path)
        return (record is not None and record.info is None and record.info_at == -math.inf
                and record.ended_at is None and record.latest is not None
                and record.latest.stats.connections_in is None)

    def listing(self) -> Listing:
        return self.book.listing()

    @property
    def listing_complete(self) -> bool:
        """Every host and application has been listed at least once."""
        return self._listing_was_complete

    # -- sending and applying -------------------------------------------------------------------

    def sent(self, job: Job, now: float) -> None:
        match job:
            case StatsJob(path):
                record = self._record(path)
                record.last_attempt = now
                record.retry_at = None
                if record.first_attempt is None:
                    record.first_attempt = now
            case InfoJob(path):
                self._record(path).info_at = now
            case AppConfigJob(path):
                self._app(path).due = now + self._settings.app_config_retry  # until the answer says more
            case ListingJob():
                self.book.sent(job, now)
            case DetectJob():
                pass

    def apply(self, outcome: Outcome, interval: float) -> None:
        match outcome:
            case StatsRead(StatsJob(path), stats, at, own):
                self._read(path, self._sampled(path, stats, at, own))
            case InfoRead(InfoJob(path), info, _):
                record = self._record(path)
                if record.info is not None and record.info.playlists != info.playlists and path.parent is not None:
                    self._app(path.parent).due = -math.inf  # its outputs changed: so may its configuration
                record.info = info
                self._changed.add(path)
            case AppConfigRead(AppConfigJob(path), config, at):
                app = self._app(path)
                app.view = AppConfigView(config, None, at)
                app.due = at + self._settings.app_config_interval
                self._app_changed(path)
            case Listed(job, names, at):
                self._listed(job, names, at)
            case Detected(_, detection, at):
                self.book.sent(ROOT, at)  # detection listed the vhosts: that was this round's root listing
                self._listed(ROOT, tuple(dict.fromkeys(detection.vhosts)), at)
                if detection.first_reading is not None:
                    path, stats = detection.first_reading
                    self._read(path, self._sampled(path, stats, at, OwnShare()))
                    self._record(path).last_attempt = at
            case Failed(job, error, at):
                self._failed(outcome, job, error, at, interval)

    def _sampled(self, path: NodePath, stats: NodeStats, at: float, own: OwnShare) -> Sample:
        """The reading less the console's own publisher reads, with its rates."""
        record = self._record(path)
        return audience_sample(record.own, record.rates, stats, at, own)

    def _read(self, path: NodePath, sample: Sample) -> None:
        record = self._record(path)
        record.latest = sample
        record.error = None
        record.last_ok = record.last_seen = sample.at
        record.retry_at = None
        record.backoff = None
        if record.ended_at is not None:  # it answers again: live, and its app is listed at once
            record.ended_at = None
            self._list_parent(path)
        # a rate the server's own figures contradict is shown (and flagged) but never becomes a peak
        record.peak_in = record.peak_in if "in" in sample.disagree else _peak(record.peak_in, sample.rate_in_bps)
        record.peak_out = record.peak_out if "out" in sample.disagree else _peak(record.peak_out, sample.rate_out_bps)
        if sample.viewers is not None and (record.peak_viewers is None or sample.viewers > record.peak_viewers):
            record.peak_viewers = sample.viewers
        self._history.record(path, sample)
        self._changed.add(path)

    def _listed(self, job: ListingJob, names: tuple[str, ...], at: float) -> None:
        self._note(self.book.apply(job, names, at), at)

    def _note(self, change: ListingChange, at: float) -> None:
        """What a listing answer means for the records: gone is ended, listed again is live."""
        if change.changed:
            self._listing_changed = True
        watched = self._history.watched
        for path in change.gone:
            for app in [app for app in self._apps if app == path or _under(app, path)]:
                del self._apps[app]  # listed again later, it is read anew: it may have been made anew
            affected = [path]
            if path.stream is None:  # a vhost or app went with everything under it: only what is watched stays
                for under in [p for p in self._records if _under(p, path)]:
                    if under in watched:
                        affected.append(under)
                    else:
                        del self._records[under]
                        self._history.forget(under)
            for ended in affected:
                record = self._records.get(ended)
                if record is not None and record.ended_at is None:
                    record.ended_at = at
                    self._changed.add(ended)
        for path in change.back:
            record = self._records.get(path)
            if record is not None and record.ended_at is not None:
                record.ended_at = None
                record.retry_at = record.info_at = -math.inf  # due at once
                self._changed.add(path)
        if not self._listing_was_complete and self.book.complete():
            self._listing_was_complete = self._first_listing = True

    def _failed(self, outcome: Failed, job: Job, error: Exception, at: float, interval: float) -> None:
        if isinstance(job, ListingJob):
            if isinstance(error, NotFoundError):
                self._note(self.book.missing(job, at), at)
            elif outcome.link_down:
                self.book.make_due(job)  # asked again as soon as the link is back
            return
        if isinstance(job, AppConfigJob):
            app = self._app(job.path)
            app.view = AppConfigView(app.view.config, outcome.message, app.view.read_at)
            if outcome.link_down:
                app.due = -math.inf  # asked again as soon as the link is back
            elif isinstance(error, NotFoundError) and error.level == "path":  # a server without the endpoint
                app.due = at + self._settings.app_config_interval
            else:
                app.due = at + self._settings.app_config_retry
            self._app_changed(job.path)
            return
        if not isinstance(job, StatsJob | InfoJob):
            return
        path = job.path
        record = self._record(path)
        self._changed.add(path)
        if isinstance(error, NotFoundError):
            if record.ended_at is None:
                record.ended_at = at
                self._list_parent(path)
            record.error = None
            return
        record.error = outcome.message
        if isinstance(job, InfoJob) or outcome.link_down:
            return  # the link's back-off handles a server that is down as a whole
        # This node alone fails: retry soon (one failed request is not "stale"), then back off.
        # The selected node's due time is capped at one interval (see `due_at`).
        backoff = record.backoff = record.backoff or Backoff(rng=self._rng)
        backoff.base = interval / 4
        backoff.cap = self._settings.backoff_cap
        record.retry_at = at + backoff.next_delay()

    def _app(self, path: NodePath) -> _AppRecord:
        record = self._apps.get(path)
        if record is None:
            record = self._apps[path] = _AppRecord()
        return record

    def _app_changed(self, app: NodePath) -> None:
        """The watched streams of the application show its document: they changed."""
        self._changed.add(app)
        self._changed.update(path for path in self._history.watched if path.parent == app)

    def _list_parent(self, path: NodePath) -> None:
        parent = path.parent
        self.book.make_due(ROOT if parent is None else ListingJob(parent.vhost, parent.app))

    def _record(self, path: NodePath) -> _Record:
        record = self._records.get(path)
        if record is None:
            record = self._records[path] = _Record()
        return record

    # -- time passing, the screen, forced polls ---------------------------------------------------

    def expire(self, now: float) -> None:
        """Ended streams kept long enough leave the listing; their records go unless watched."""
        expired = self.book.expire(now, self._settings.ended_keep_seconds)
        if expired:
            self._listing_changed = True
        watched = self._history.watched
        for path in expired:
            if path not in watched:
                self._records.pop(path, None)
                self._history.forget(path)

    def watch(self, paths: frozenset[NodePath]) -> None:
        for path in self._history.watch(paths):
            record = self._records.get(path)
            if record is not None:
                record.rates.forget_all_but_last()

    def make_due(self, paths: list[NodePath], now: float) -> None:
        for path in paths:
            record = self._records.get(path)
            if record is not None:
                record.retry_at = now

    def make_app_config_due(self, app: NodePath) -> None:
        record = self._apps.get(app)
        if record is not None:
            record.due = -math.inf

    def take_changes(self) -> tuple[frozenset[NodePath], bool, bool]:
        """(changed nodes, listing changed, the first complete listing just arrived) since the last call."""
        changes = (frozenset(self._changed), self._listing_changed, self._first_listing)
        self._changed, self._listing_changed, self._first_listing = set(), False, False
        return changes

    # -- views ----------------------------------------------------------------------------------

    def node(self, path: NodePath, now: float, stale_after: float) -> NodeView:
        if not path.addressable:
            return NodeView(path=path, state=NodeState.UNADDRESSABLE)
        record = self._records.get(path)
        ended = self.book.ended(path)
        if record is None:
            if ended is not None:
                return NodeView(path=path, state=NodeState.ENDED, ended_at=ended.at, last_seen_at=ended.last_seen)
            return NodeView(path=path, state=NodeState.UNKNOWN, stale_after=stale_after)
        history, series = self._history.views(path)
        ended_at = record.ended_at if record.ended_at is not None else (ended.at if ended else None)
        last_seen = record.last_seen
        if ended is not None and ended.last_seen is not None:
            last_seen = max(last_seen or ended.last_seen, ended.last_seen)
        return NodeView(
            path=path, state=self._state(record, ended_at, now, stale_after), latest=record.latest,
            history=history, error=record.error, info=record.info, ended_at=ended_at, series=series,
            last_seen_at=last_seen, sampled_every=record.rates.sampled_every(), stale_after=stale_after,
            peak_rate_in_bps=record.peak_in, peak_rate_out_bps=record.peak_out, peak_viewers=record.peak_viewers)

    @staticmethod
    def _state(record: _Record, ended_at: float | None, now: float, stale_after: float) -> NodeState:
        """STALE only after two of the node's intervals without a successful read, not one failed request."""
        if ended_at is not None:
            return NodeState.ENDED
        since = record.last_ok if record.last_ok is not None else record.first_attempt
        if since is not None and now - since > stale_after:
            return NodeState.STALE
        return NodeState.LIVE if record.last_ok is not None else NodeState.UNKNOWN

    def history_samples(self) -> int:
        return self._history.sample_count()

    def app_config(self, app: NodePath) -> AppConfigView | None:
        """What was read of the application's document (None: never asked for)."""
        record = self._apps.get(app)
        return None if record is None else record.view


def _under(path: NodePath, parent: NodePath) -> bool:
    if path.vhost != parent.vhost:
        return False
    if parent.app is None:
        return path.app is not None
    return path.app == parent.app and parent.stream is None and path.stream is not None

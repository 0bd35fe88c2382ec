"""The polling engine: keeps what the operator looks at fresh without hammering the server.

Each cycle plans its requests under a global budget (a token bucket): first the selected node
(every interval), then a slice of the listing pass (about every 10 s, spread over cycles), then the
other watched nodes, oldest reading first, so they are refreshed round-robin when the budget cannot
cover them all. Requests run with bounded concurrency. Failures back off with jitter and recover by
themselves; a stream that vanished is marked ENDED and keeps its history, and is LIVE again (same
history) as soon as it answers or is listed again.

Back-off has two depths, because the operator must see a server come back within two intervals while
a failing server must not be hammered:
- the probe (the one request the engine sends while the link is down, and the selected node's own
  poll) backs off with jitter but never beyond one interval, so it is retried at least once per
  interval: one cheap request per interval to a down server;
- bulk work (the other watched nodes, listings) is not sent at all while the link is down, and a node
  that keeps failing on its own backs off exponentially with jitter up to `backoff_cap`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from omeconsole.api.client import DETECTION_REQUESTS, OmeClient
from omeconsole.api.errors import AuthError, NotFoundError, OmeError, RequestTimeout, UnreachableError
from omeconsole.core.clock import Clock
from omeconsole.core.polling.budget import Backoff, TokenBucket
from omeconsole.core.polling.discovery import ListingJob, ListingOutcome, ListingWalker, Tree
from omeconsole.core.polling.history import HistoryStore
from omeconsole.core.polling.rates import make_sample
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo
from omeconsole.model.server import LinkState, LinkStatus, ServerInfo

log = logging.getLogger("omeconsole.engine")

_LINK_ERRORS = (UnreachableError, RequestTimeout, AuthError)
"""Errors that say the server as a whole cannot be used right now (not one node's problem)."""


@dataclass(frozen=True)
class PollSettings:
    interval: float = 1.0
    listing_interval: float = 10.0
    request_budget: float = 20.0
    """Requests per second, all kinds together."""
    max_concurrency: int = 4
    history_seconds: float = 600.0
    keep_recent_histories: int = 16
    listing_share: float = 0.5
    """At most this share of a cycle's requests goes to listings while watched nodes wait."""
    backoff_base: float = 1.0
    backoff_cap: float = 30.0

    def __post_init__(self) -> None:
        if min(self.interval, self.listing_interval, self.request_budget, self.history_seconds) <= 0:
            raise ValueError("intervals, the request budget and the history length must be positive")
        if self.max_concurrency < 1:
            raise ValueError("at least one request must be allowed at a time")


@dataclass(frozen=True)
class EngineUpdate:
    changed: frozenset[NodePath] = frozenset()
    tree_changed: bool = False
    connection_changed: bool = False


@dataclass(slots=True)
class _Record:
    """What the engine keeps per polled node (the latest sample lives here, history elsewhere)."""

    latest: Sample | None = None
    error: str | None = None
    ended: bool = False
    next_due: float = 0.0
    last_attempt: float = float("-inf")
    failures: int = 0
    info: StreamInfo | None = None
    info_due: float = 0.0


@dataclass(frozen=True, slots=True)
class _Job:
    kind: str  # "stats" | "info" | "listing"
    path: NodePath | None = None
    listing: ListingJob | None = None


@dataclass(slots=True)
class _Changes:
    nodes: set[NodePath] = field(default_factory=set)
    tree: bool = False
    connection: bool = False


Listener = Callable[[EngineUpdate], None]


class PollingEngine:
    def __init__(self, client: OmeClient, clock: Clock, settings: PollSettings | None = None,
                 *, rng: random.Random | None = None) -> None:
        self.settings = settings = settings or PollSettings()
        self._client = client
        self._clock = clock
        self._rng = rng or random.Random()
        self._interval = settings.interval
        self._bucket = TokenBucket(clock, settings.request_budget)
        self._semaphore = asyncio.Semaphore(settings.max_concurrency)
        capacity = max(1, round(settings.history_seconds / settings.interval))
        self._history = HistoryStore(capacity, settings.keep_recent_histories)
        self._walker = ListingWalker()
        self._records: dict[NodePath, _Record] = {}
        self._selected: NodePath | None = None
        self._visible: list[NodePath] = []
        self._connection = LinkState()
        self._link_backoff = Backoff(settings.backoff_base, settings.backoff_cap, self._rng)
        self._retry_at: float | None = None
        self._listeners: list[Listener] = []
        self._paused = False
        self._stopped = False
        self._wake = asyncio.Event()
        self._sleep_tasks: set[asyncio.Future[Any]] = set()
        self.requests_sent = 0

    # -- what the screens read ----------------------------------------------------------------------

    @property
    def connection(self) -> LinkState:
        return self._connection

    @property
    def server(self) -> ServerInfo | None:
        return self._connection.server

    def tree(self) -> Tree:
        """vhost -> app -> live stream names, from the latest listings. Do not modify it."""
        return self._walker.tree

    def node(self, path: NodePath) -> NodeView:
        record = self._records.get(path)
        if record is None:
            return NodeView(path=path, state=NodeState.UNKNOWN)
        return NodeView(path=path, state=self._state(record), latest=record.latest,
                        history=self._history.history(path), error=record.error, info=record.info)

    def _state(self, record: _Record) -> NodeState:
        if record.ended:
            return NodeState.ENDED
        if record.latest is None:
            return NodeState.STALE if record.error else NodeState.UNKNOWN
        if record.error is not None:
            return NodeState.STALE
        age = self._clock.monotonic() - record.latest.at
        return NodeState.STALE if age > self.stale_after() else NodeState.LIVE

    def stale_after(self) -> float:
        """How old a watched reading may get before it is shown as stale."""
        watched = len(self._history.watched) or 1
        return 3 * max(self._interval, watched / self._bucket.rate) + self._interval

    @property
    def history_samples(self) -> int:
        return self._history.sample_count()

    # -- what the screens set -----------------------------------------------------------------------

    @property
    def interval(self) -> float:
        return self._interval

    @interval.setter
    def interval(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("the polling interval must be positive")
        self._interval = seconds
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self._paused = value
        self._wake.set()

    @property
    def selected(self) -> NodePath | None:
        return self._selected

    def select(self, path: NodePath | None) -> None:
        self._selected = path
        if path is not None and path in self._records:
            self._records[path].next_due = self._clock.monotonic()
        self._update_watch()
        self._wake.set()

    def set_visible(self, paths: Iterable[NodePath]) -> None:
        self._visible = list(dict.fromkeys(paths))
        self._update_watch()
        self._wake.set()

    def _update_watch(self) -> None:
        watched = set(self._visible)
        if self._selected is not None:
            watched.add(self._selected)
        self._history.watch(watched)

    def refresh_now(self) -> None:
        """Poll the watched nodes and list the server again as soon as the budget allows."""
        now = self._clock.monotonic()
        for path in [self._selected, *self._visible]:
            if path is not None and path in self._records:
                self._records[path].next_due = now
        self._walker.pass_started_at = None
        self._retry_at = None
        self._wake.set()

    def add_listener(self, callback: Listener) -> None:
        self._listeners.append(callback)

    def remove_listener(self, callback: Listener) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    # -- running ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Polls until `stop()`; never raises for server trouble (that goes to `connection`)."""
        self._stopped = False
        while not self._stopped:
            self._wake.clear()
            await self.poll_cycle()
            if self._stopped:
                break
            await self._sleep(self._next_wake())

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()
        for task in self._sleep_tasks:
            task.cancel()

    async def _sleep(self, seconds: float) -> None:
        """Waits for the clock or a wake-up. Its two inner tasks never outlive it, even when `run()` is
        cancelled (as a UI worker is at exit): a task left pending is "destroyed but pending" at exit."""
        if self._wake.is_set():
            return
        tasks = {asyncio.ensure_future(self._clock.sleep(seconds)), asyncio.ensure_future(self._wake.wait())}
        self._sleep_tasks |= tasks
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            self._sleep_tasks -= tasks

    def _next_wake(self) -> float:
        """Seconds until there is work worth a cycle: something due and a batch of budget for it."""
        now = self._clock.monotonic()
        if self._paused:
            return self._interval
        if self._retry_at is not None:
            return max(0.02, self._retry_at - now)
        wake, due = now + self._interval, 0
        for path in self._watch_order():
            record = self._records.get(path)
            if record is not None and record.ended and path != self._selected:
                continue
            at = record.next_due if record is not None else now
            wake = min(wake, at)
            due += at <= now
        if self._walker.active:
            wake, due = now, due + self._walker.pending
        if due:
            batch = min(due, self.settings.max_concurrency)
            wake = max(wake, now + self._bucket.seconds_until(batch))
        return min(self._interval, max(0.05, wake - now))

    def _watch_order(self) -> list[NodePath]:
        order = [self._selected] if self._selected is not None else []
        return order + [p for p in self._visible if p != self._selected]

    async def poll_cycle(self) -> EngineUpdate | None:
        """One planning step: sends what is due and the budget allows, applies the answers."""
        if self._paused:
            return None
        now = self._clock.monotonic()
        if self._retry_at is not None and now < self._retry_at:
            return None
        changes = _Changes()
        link_down = self._connection.server is None or self._connection.status != "connected"
        if link_down and not await self._connect(now, changes):
            return self._emit(changes)
        jobs = self._plan(now)
        if jobs:
            results = await asyncio.gather(*(self._run(job) for job in jobs))
            self._apply(now, results, changes)
        return self._emit(changes)

    async def _connect(self, now: float, changes: _Changes) -> bool:
        if self._connection.server is not None:
            return True  # known server: a successful poll below turns the link back to connected
        if self._bucket.available() < DETECTION_REQUESTS:
            return False
        self._bucket.take(DETECTION_REQUESTS)
        self.requests_sent += DETECTION_REQUESTS
        try:
            info = (await self._client.detect()).server
        except OmeError as error:
            self._link_failed(error, changes)
            return False
        self._link_ok(info, changes)
        self._walker.start_pass(now)
        return True

    def _plan(self, now: float) -> list[_Job]:
        tokens = self._bucket.available()
        if self._connection.status != "connected":
            tokens = min(tokens, 1)  # while the link is down, one probe per attempt
        jobs: list[_Job] = []
        selected = self._selected
        if selected is not None and tokens > 0 and self._due(selected, now):
            jobs.append(_Job("stats", selected))
            tokens -= 1
        if selected is not None and selected.level == "stream" and tokens > 0:
            record = self._records.setdefault(selected, _Record())
            if not record.ended and record.info_due <= now:
                record.info_due = now + self.settings.listing_interval
                jobs.append(_Job("info", selected))
                tokens -= 1
        others = [p for p in self._visible if p != selected and self._due(p, now)]
        started = self._walker.pass_started_at
        if not self._walker.active and (started is None or now - started >= self.settings.listing_interval):
            self._walker.start_pass(now)
        share = tokens if not others else max(1, int(tokens * self.settings.listing_share))
        for listing in self._walker.take(min(share, tokens)):
            jobs.append(_Job("listing", listing=listing))
            tokens -= 1
        if others and tokens > 0:
            others.sort(key=lambda p: self._records[p].last_attempt if p in self._records else float("-inf"))
            jobs.extend(_Job("stats", p) for p in others[:tokens])
        jobs = jobs[:self._bucket.take(len(jobs))]
        self.requests_sent += len(jobs)
        for job in jobs:
            if job.kind == "stats" and job.path is not None:
                record = self._records.setdefault(job.path, _Record())
                record.last_attempt = now
                record.next_due = now + self._interval
        return jobs

    def _due(self, path: NodePath, now: float) -> bool:
        """An ENDED node is left alone, except the selected one: it is asked once per interval so a
        stream that comes back between listing passes is LIVE again at once."""
        record = self._records.get(path)
        if record is None:
            return True
        if record.ended and path != self._selected:
            return False
        return record.next_due <= now + 0.1 * self._interval

    async def _run(self, job: _Job) -> tuple[_Job, object | OmeError, float]:
        async with self._semaphore:
            try:
                result: object
                if job.kind == "listing" and job.listing is not None:
                    result = await job.listing.fetch(self._client)
                elif job.kind == "info" and job.path is not None:
                    path = job.path
                    result = await self._client.stream_info(path.vhost, path.app or "", path.stream or "")
                elif job.path is not None:
                    result = await self._client.stats(job.path)
                else:
                    raise ValueError(f"malformed job {job}")
            except OmeError as error:
                result = error
        return job, result, self._clock.monotonic()

    # -- applying answers ---------------------------------------------------------------------------

    def _apply(self, now: float, results: list[tuple[_Job, object | OmeError, float]],
               changes: _Changes) -> None:
        link_errors = [r for _, r, _ in results if isinstance(r, _LINK_ERRORS)]
        for job, result, at in results:
            if job.kind == "listing" and job.listing is not None:
                self._apply_listing(now, job.listing, result, changes)
            elif job.path is not None:
                self._apply_node(job, result, at, changes)
        if link_errors and len(link_errors) == len(results):
            self._link_failed(link_errors[0], changes)
        elif self._connection.status != "connected" and self._connection.server is not None:
            self._link_ok(self._connection.server, changes)

    def _apply_listing(self, now: float, job: ListingJob, result: object, changes: _Changes) -> None:
        if isinstance(result, NotFoundError):
            outcome = self._walker.apply_missing(job)
        elif isinstance(result, _LINK_ERRORS):
            self._walker.retry(job)
            return
        elif isinstance(result, OmeError):
            log.warning("listing %s failed: %s", job, result)
            return
        else:
            assert isinstance(result, list)
            outcome = self._walker.apply(job, result)
        self._note_listing(now, outcome, changes)

    def _note_listing(self, now: float, outcome: ListingOutcome, changes: _Changes) -> None:
        changes.tree = changes.tree or outcome.changed
        for path in outcome.gone:
            record = self._records.get(path)
            if record is not None and not record.ended:
                record.ended = True
                changes.nodes.add(path)
        for path in outcome.listed:
            record = self._records.get(path)
            if record is not None and record.ended:
                record.ended = False
                record.next_due = now
                record.info_due = now
                changes.nodes.add(path)

    def _apply_node(self, job: _Job, result: object, at: float, changes: _Changes) -> None:
        assert job.path is not None
        record = self._records.setdefault(job.path, _Record())
        changes.nodes.add(job.path)
        if isinstance(result, NodeStats):
            sample = make_sample(record.latest, result, at)
            record.latest = sample
            record.error = None
            record.ended = False
            record.failures = 0
            self._history.record(job.path, sample)
        elif isinstance(result, StreamInfo):
            record.info = result
        elif isinstance(result, NotFoundError):
            record.ended = True
            record.error = None
        elif isinstance(result, OmeError):
            record.error = result.message
            if job.kind == "stats" and not isinstance(result, _LINK_ERRORS):
                cap = self._interval if job.path == self._selected else self.settings.backoff_cap
                delay = min(cap, self._interval * 2 ** min(record.failures, 16))
                record.failures += 1
                record.next_due = at + delay * self._rng.uniform(0.5, 1.0)

    def _link_ok(self, info: ServerInfo, changes: _Changes) -> None:
        self._link_backoff.reset()
        self._retry_at = None
        self._connection = LinkState(
            status="connected", server=info,
            message=f"connected to {self._client.api_url}: {info.edition} {info.version} "
                    f"({info.stats_api} statistics)")
        changes.connection = True

    def _link_failed(self, error: OmeError, changes: _Changes) -> None:
        # The probe's cap follows the interval (it may change at run time): see the module docstring.
        self._link_backoff.cap = min(self.settings.backoff_cap, self._interval)
        delay = self._link_backoff.next_delay()
        self._retry_at = self._clock.monotonic() + delay
        status: LinkStatus
        if isinstance(error, AuthError):
            status, text = "unauthorized", f"the server refused the access token: {error.message}"
        elif isinstance(error, UnreachableError | RequestTimeout):
            status, text = "unreachable", error.message
        else:
            status, text = "error", error.message
        self._connection = LinkState(
            status=status, server=self._connection.server, next_retry_at=self._retry_at,
            failures=self._link_backoff.failures, message=f"{text} (retrying in {delay:.0f} s)")
        changes.connection = True

    def _emit(self, changes: _Changes) -> EngineUpdate | None:
        if not (changes.nodes or changes.tree or changes.connection):
            return None
        update = EngineUpdate(frozenset(changes.nodes), changes.tree, changes.connection)
        for listener in list(self._listeners):
            try:
                listener(update)
            except Exception:
                log.exception("an engine listener failed")
        return update

"""The polling engine: the façade the UI and the CLI use, and the loop that keeps what is on screen fresh.

A screen says what it shows (`select`, `set_on_screen`); the loop asks the planner what is due, sends
it under the request budget with bounded concurrency, and applies each answer as it arrives to the
node store and the link; listeners get one `EngineUpdate` per batch of answers. Nothing a server says,
and no bug in one job, ends the loop: failures are counted and shown on the link (`connection`).

Time is the injected clock's. Between answers the loop sleeps until the next thing is due, so a
changed interval, a selection, `refresh_now()` or `stop()` take effect at once (they wake it). While
requests are in flight it waits for them rather than the clock, so an engine parked on its clock has
nothing in flight.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from omeconsole.api.client import DETECTION_REQUESTS, OmeClient
from omeconsole.api.errors import NotFoundError
from omeconsole.core.clock import Clock
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.core.polling.budget import Backoff, TokenBucket
from omeconsole.core.polling.jobs import Detected, DetectJob, Failed, Job, Outcome, fetch, internal_error_text
from omeconsole.core.polling.link import Link
from omeconsole.core.polling.planner import Room, Screen, listing_every, next_due, plan
from omeconsole.core.polling.settings import PollSettings
from omeconsole.core.polling.store import NodeStore
from omeconsole.model.app_config import AppConfigView
from omeconsole.model.nodes import Listing, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState, ServerInfo

__all__ = ["EngineUpdate", "PollSettings", "PollingEngine", "Refresh"]

log = logging.getLogger("omeconsole.engine")

STALE_PERIODS = 2.5
"""A node is STALE after this many of its polling periods without a successful read: two missed polls,
plus half a period for the reply of the third to arrive."""
DETECT_COST = DETECTION_REQUESTS
"""Requests a detection may take (version, listing, the v2 and v1 statistics probes, all at once)."""
MIN_SLEEP_S = 0.05


@dataclass(frozen=True, slots=True)
class EngineUpdate:
    """What one batch of answers changed: the one message from the engine to its listeners."""

    changed: frozenset[NodePath] = frozenset()
    """Nodes whose view changed (a reading, an error, ended or back)."""
    tree_changed: bool = False
    """`listing()` changed: some AppStreams (or the vhost or app sets) were replaced."""
    connection_changed: bool = False
    first_listing: bool = False
    """This batch completed the server's first listing (every app listed once)."""
    everything: bool = False
    """Anything may have changed (never from the engine: a screen drawn anew, or shown again, says so)."""

    @property
    def nodes(self) -> frozenset[NodePath] | None:
        """The nodes whose view changed; None when anything may have."""
        return None if self.everything else self.changed

    def __or__(self, other: EngineUpdate) -> EngineUpdate:
        """Both updates as one (what a screen that draws less often than the engine reports has to draw)."""
        return EngineUpdate(self.changed | other.changed, self.tree_changed or other.tree_changed,
                            self.connection_changed or other.connection_changed,
                            self.first_listing or other.first_listing, self.everything or other.everything)


class Refresh(enum.Enum):
    """What `refresh_now()` did, in words a status line can show."""

    POLLING = "polling now"
    ONCE_WHILE_PAUSED = "paused: polling once now"
    RECONNECTING = "not connected: trying the server now"


Listener = Callable[[EngineUpdate], None]


class PollingEngine:
    def __init__(self, client: OmeClient, clock: Clock, settings: PollSettings | None = None, *,
                 rng: random.Random | None = None, bucket: TokenBucket | None = None) -> None:
        """`bucket`: a token bucket shared with other engines (one budget for a fleet of servers); each
        engine still backs off on its own. By default the engine has its own, of `request_budget`."""
        self.settings = settings = settings or PollSettings()
        self._client = client
        self._clock = clock
        rng = rng or random.Random()
        self._interval = settings.interval
        self._bucket = bucket or TokenBucket(clock, settings.request_budget)
        self._store = NodeStore(settings, rng)
        self._link = Link(client.api_url, Backoff(settings.backoff_base, settings.backoff_cap, rng),
                          settings.backoff_cap)
        self._screen = Screen()
        self._listeners: Listeners[[EngineUpdate]] = Listeners("polling engine")
        self._paused = False
        self._once = False
        self._stopped = False
        self._wake = asyncio.Event()
        self._in_flight: dict[asyncio.Future[Outcome], tuple[Job, float]] = {}
        self._woken: asyncio.Future[Literal[True]] | None = None
        self._link_key: tuple[object, ...] = ()
        self.requests_sent = 0

    # -- what the screens read ----------------------------------------------------------------------

    @property
    def connection(self) -> LinkState:
        waiting = min((started for _, started in self._in_flight.values()), default=None)
        return self._link.state(self._clock.monotonic(), self._interval, waiting)

    @property
    def server(self) -> ServerInfo | None:
        return self._link.server

    def listing(self) -> Listing:
        """vhost -> app -> AppStreams(live, ended); copy-on-write, an app's object replaced only when it changed."""
        return self._store.listing()

    @property
    def listing_complete(self) -> bool:
        """Every host and application has been listed at least once (the tree's columns are decided then)."""
        return self._store.listing_complete

    def node(self, path: NodePath) -> NodeView:
        return self._store.node(path, self._clock.monotonic(), self.stale_after(path))

    def stale_after(self, path: NodePath | None = None) -> float:
        """Seconds without a successful read after which `path` shows STALE: two and a half of its periods
        (the interval for the selected node; for others, also the time the budget needs to go round)."""
        period = self._interval
        if path is None or path != self._screen.selected:
            watched = len(self._screen.visible) + (self._screen.selected not in self._screen.visible)
            period = max(period, watched / self._bucket.rate)
        return STALE_PERIODS * period

    def app_config(self, app: NodePath) -> AppConfigView | None:
        """What was read of the application's document (its publishers; None: not asked for yet). It is read
        while the application or one of its streams is selected."""
        return self._store.app_config(app)

    @property
    def history_samples(self) -> int:
        return self._store.history_samples()

    # -- what the screens set -----------------------------------------------------------------------

    @property
    def interval(self) -> float:
        return self._interval

    @interval.setter
    def interval(self, seconds: float) -> None:
        """Takes effect at once: every due time is the last attempt plus the interval in force."""
        if not seconds > 0:
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
        return self._screen.selected

    @property
    def on_screen(self) -> tuple[NodePath, ...]:
        """The nodes the screen in front declared visible (`set_on_screen`)."""
        return self._screen.visible

    @property
    def requests_in_flight(self) -> int:
        """Requests sent and not yet answered."""
        return len(self._in_flight)

    @property
    def budget(self) -> TokenBucket:
        """The request budget this engine polls under (shared with a fleet's other engines, if any)."""
        return self._bucket

    def select(self, path: NodePath | None) -> None:
        """The node the operator looks at: polled first, every interval, and at once now."""
        if path == self._screen.selected:
            return
        self._screen = replace(self._screen, selected=path)
        if path is not None:
            self._store.make_due([path], self._clock.monotonic())
        self._watch()

    def set_on_screen(self, visible: Iterable[NodePath], expanded: Iterable[NodePath] = ()) -> None:
        """Declares what the screen in front shows: the nodes on it, and the applications whose streams it
        lists. Only these are polled (and the selected node); an application newly expanded is listed at once."""
        screen = replace(self._screen, visible=tuple(dict.fromkeys(visible)), expanded=frozenset(expanded))
        if screen != self._screen:
            self._screen = screen
            self._watch()

    def _watch(self) -> None:
        watched = set(self._screen.visible)
        if self._screen.selected is not None:
            watched.add(self._screen.selected)
        self._store.watch(frozenset(watched))
        self._wake.set()

    def refresh_now(self) -> Refresh:
        """Polls what is on screen and lists it again as soon as the budget allows, once even while paused."""
        if not self._link.up:
            self._link.retry_now()
            self._wake.set()
            return Refresh.RECONNECTING
        screen = self._screen
        self._store.make_due([p for p in (screen.selected, *screen.visible) if p is not None],
                             self._clock.monotonic())
        for job in self._store.book.jobs():
            if listing_every(job, screen, self.settings) <= self.settings.listing_interval:
                self._store.book.make_due(job)
        if screen.selected is not None and screen.selected.app is not None:
            self._store.make_app_config_due(NodePath(screen.selected.vhost, screen.selected.app))
        self._once = self._paused
        self._wake.set()
        return Refresh.ONCE_WHILE_PAUSED if self._paused else Refresh.POLLING

    def add_listener(self, callback: Listener) -> Unsubscribe:
        """`callback` gets every update from now on; call what this returns to stop that."""
        return self._listeners.add(callback)

    # -- the loop -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Polls until `stop()` (or cancellation); never raises for anything a server does."""
        self._stopped = False
        try:
            while not self._stopped:
                self._wake.clear()
                self._guarded(self._launch)
                await self._wait()
                self._collect()
        finally:
            await self._cancel_in_flight()

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()

    async def poll_cycle(self) -> EngineUpdate | None:
        """One step at a frozen time (tests, benchmarks on a manual clock): what `run()` does until the
        clock would have to move, i.e. send what is due, apply each answer, send what that allows."""
        merged = None if self._guarded(self._launch) else self._collect()  # nothing to send: time still passes
        while self._in_flight:
            await asyncio.wait(list(self._in_flight), return_when=asyncio.FIRST_COMPLETED)
            update = self._collect()
            if update is not None:
                merged = update if merged is None else merged | update
            self._guarded(self._launch)
        return merged

    def _guarded(self, step: Callable[[], bool]) -> bool:
        """A bug of ours in planning is counted and shown like a failed request; the loop goes on."""
        try:
            return step()
        except Exception as error:
            log.exception("the polling engine failed to plan")
            self._link.failed(internal_error_text(error), self._clock.monotonic())
            return False

    def _launch(self) -> bool:
        """Sends what is due, as the budget and concurrency allow; whether anything went out."""
        now = self._clock.monotonic()
        if (self._paused and not self._once) or not self._link.ready(now):
            return False
        if self._link.server is None:
            if self._in_flight or self._bucket.allowance(self) < DETECT_COST:
                return False
            self._bucket.take(DETECT_COST, self)
            self._start(DetectJob(), now, DETECT_COST)
            return True
        free = self.settings.max_concurrency - len(self._in_flight)
        if free <= 0 or (not self._link.up and self._in_flight):
            return False  # while the link is down, one probe at a time
        busy = {job for job, _ in self._in_flight.values()}
        # A link that is down only probes: it does not count as a sharer of the budget meanwhile.
        sharer = self if self._link.up else None
        tokens = min(free, self._bucket.allowance(self) if sharer is not None else self._bucket.available())
        if tokens <= 0:
            return False
        jobs = plan(self._store, self._screen, Room(now, tokens, self._interval, self._link.up), self.settings, busy)
        sent = jobs[:self._bucket.take(len(jobs), sharer)]
        for job in sent:
            self._store.sent(job, now)
            self._start(job, now, 1)
        if len(sent) < tokens:
            # Nothing due was left for lack of room: a refresh while paused has read all that is on screen
            # (more nodes than the concurrency allows go out over several launches, not the first few only).
            self._once = False
        return bool(jobs)

    def _start(self, job: Job, now: float, cost: int) -> None:
        self.requests_sent += cost
        task = asyncio.create_task(fetch(self._client, job, self._clock), name=f"polling {type(job).__name__}")
        self._in_flight[task] = (job, now)

    async def _wait(self) -> None:
        """Until an answer arrives, something is due, or a screen asks for something (a wake-up)."""
        if self._wake.is_set():
            return
        woken = self._woken
        if woken is None or woken.done():  # one waiter for wake-ups, kept across waits
            woken = self._woken = asyncio.ensure_future(self._wake.wait())
        waits: set[asyncio.Future[Any]] = {woken, *self._in_flight}
        if self._in_flight:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            return
        sleep = asyncio.ensure_future(self._clock.sleep(self._sleep_seconds()))
        try:
            await asyncio.wait({*waits, sleep}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleep.cancel()
            await asyncio.wait({sleep})

    def _sleep_seconds(self) -> float:
        now = self._clock.monotonic()
        if self._paused and not self._once:
            return self._interval
        if self._link.retry_at is not None and not self._link.ready(now):
            return max(MIN_SLEEP_S, self._link.retry_at - now)
        if self._link.server is None:
            due = now
        else:
            try:
                due = next_due(self._store, self._screen, now, self._interval, self.settings)
            except Exception as error:
                self._link.failed(internal_error_text(error), now)
                due = now + self._interval
        if due <= now:  # due now: waiting for the budget, for a batch rather than a request at a time
            sharer = self if self._link.up or self._link.server is None else None  # as `_launch` asks
            due = now + self._bucket.seconds_until(DETECT_COST if self._link.server is None
                                                   else self.settings.max_concurrency, sharer)
        return max(MIN_SLEEP_S, min(self._interval, due - now))

    def _collect(self) -> EngineUpdate | None:
        """Applies every answer that has arrived; tells the listeners what changed."""
        done = [task for task in self._in_flight if task.done()]
        outcomes: list[tuple[Outcome, float]] = []
        for task in done:
            _, started = self._in_flight.pop(task)
            outcomes.append((task.result(), started))
        now = self._clock.monotonic()
        for outcome, started in outcomes:
            try:
                self._store.apply(outcome, self._interval)
                self._observe(outcome, started, all(isinstance(o, Failed) and o.link_down for o, _ in outcomes))
            except Exception as error:
                log.exception("the polling engine failed to apply %r", type(outcome).__name__)
                self._link.failed(internal_error_text(error), now)
        self._store.expire(now)
        changed, tree_changed, first_listing = self._store.take_changes()
        state = self.connection
        key = (state.status, state.server, state.last_error, state.errors_total)
        connection_changed, self._link_key = key != self._link_key, key
        if not (changed or tree_changed or connection_changed or first_listing):
            return None
        update = EngineUpdate(changed, tree_changed, connection_changed, first_listing)
        self._listeners.tell(update)
        return update

    def _observe(self, outcome: Outcome, started: float, all_link_errors: bool) -> None:
        """What an answer says about the link as a whole."""
        link = self._link
        if isinstance(outcome, Detected):
            link.detected(outcome.detection.server, outcome.at)
        elif not isinstance(outcome, Failed) or isinstance(outcome.error, NotFoundError):
            link.succeeded(outcome.at)
        else:
            link.failed(outcome.message, outcome.at)
            quiet_since = link.last_success_at if link.last_success_at is not None else -math.inf
            if isinstance(outcome.job, DetectJob) or (all_link_errors and quiet_since < started):
                link.down(outcome.error, outcome.message, outcome.at, self._interval)

    async def _cancel_in_flight(self) -> None:
        tasks: list[asyncio.Future[Any]] = [*self._in_flight, *([self._woken] if self._woken else [])]
        self._in_flight.clear()
        self._woken = None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

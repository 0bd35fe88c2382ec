"""The pure planner: which requests to send now, and when there will next be something to send.

Inputs are the time, the request room (budget tokens and free concurrency), what is on screen and the
store's record of what was asked when; the output is a list of typed jobs. No I/O, no clock.

Order, best first:
1. the selected node's statistics (every interval; while failing, still at least once per interval);
2. the selected stream's input info (every listing interval);
3. the listings on screen: the virtual hosts, their applications, and the streams of every application
   expanded on screen (every listing interval, and at once when newly expanded); then the document of the
   selected node's application (its publishers, for the playback URLs: once, then every
   `app_config_interval`, or sooner when the store says it may have changed);
4. the other visible nodes' statistics, least recently asked first (round-robin when the budget cannot
   cover them all), then, once each, the input info of visible streams whose statistics do not tell their
   input (open source v1 has no inbound counts: the tree would say `n/a` until the stream is opened);
5. background listings: applications not expanded (every background listing interval), at most
   `listing_share` of the room while visible nodes wait.
While the link is down, only one probe goes out: the selected node, else the root listing.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from omeconsole.core.polling.jobs import AppConfigJob, InfoJob, Job, ListingJob, StatsJob
from omeconsole.core.polling.listing import ROOT
from omeconsole.core.polling.settings import PollSettings
from omeconsole.model.paths import NodePath

EARLY = 0.05
"""A node due within this share of an interval goes out with the batch rather than on its own a moment later."""


@dataclass(frozen=True, slots=True)
class Screen:
    """What the operator is looking at: the engine polls this, and little else."""

    selected: NodePath | None = None
    visible: tuple[NodePath, ...] = ()
    """Nodes on screen (tree rows, the detail view's node and its parents, a child list)."""
    expanded: frozenset[NodePath] = frozenset()
    """Applications whose streams are on screen: their listings are kept fresh."""
    askable: tuple[NodePath, ...] = field(init=False, compare=False)
    """The visible nodes the API can be asked about (worked out once, not at every plan)."""
    expanded_apps: frozenset[tuple[str, str | None]] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "askable", tuple(path for path in self.visible if path.addressable))
        object.__setattr__(self, "expanded_apps", frozenset((path.vhost, path.app) for path in self.expanded))


class PlanSource(Protocol):
    """What the planner reads from the node store."""

    def due_at(self, path: NodePath, period: float, *, probe: bool = False) -> float | None: ...

    def last_attempt(self, path: NodePath) -> float: ...

    def info_due_at(self, path: NodePath, every: float) -> float | None: ...

    def app_config_due_at(self, app: NodePath) -> float: ...

    def input_unknown(self, path: NodePath) -> bool:
        """A stream read at least once whose input neither its statistics nor an info read told."""
        ...

    @property
    def book(self) -> ListingSource: ...


class ListingSource(Protocol):
    def jobs(self) -> Iterable[ListingJob]: ...

    def attempted_at(self, job: ListingJob) -> float: ...


@dataclass(frozen=True, slots=True)
class Room:
    now: float
    tokens: int
    """Requests the budget and the free concurrency allow right now."""
    interval: float
    link_up: bool


def listing_every(job: ListingJob, screen: Screen, settings: PollSettings) -> float:
    """Root and vhost listings, and the streams of expanded apps, are "on screen"; other apps are not."""
    if job.app is None or (job.vhost, job.app) in screen.expanded_apps:
        return settings.listing_interval
    return settings.background_listing_interval


def plan(source: PlanSource, screen: Screen, room: Room, settings: PollSettings,
         busy: Collection[Job] = ()) -> list[Job]:
    """The jobs to send now, best first, at most `room.tokens` of them, none already in flight."""
    now, interval = room.now, room.interval
    budget = room.tokens if room.link_up else min(room.tokens, 1)
    jobs: list[Job] = []

    def add(job: Job) -> None:
        if len(jobs) < budget and job not in busy:
            jobs.append(job)

    def due(at: float | None, period: float) -> bool:
        return at is not None and at <= now + EARLY * period

    selected = screen.selected
    if selected is not None and selected.addressable and due(source.due_at(selected, interval, probe=True),
                                                             interval):
        add(StatsJob(selected))
    if not room.link_up:
        if not jobs:
            add(ROOT)
        return jobs
    if (selected is not None and selected.level == "stream" and selected.addressable
            and due(source.info_due_at(selected, settings.listing_interval), settings.listing_interval)):
        add(InfoJob(selected))
    front: list[ListingJob] = []
    back: list[ListingJob] = []
    for job in source.book.jobs():
        every = listing_every(job, screen, settings)
        if due(source.book.attempted_at(job) + every, every):
            (back if every > settings.listing_interval else front).append(job)
    for job in front:
        add(job)
    app = _app_of(selected)
    if app is not None and due(source.app_config_due_at(app), settings.listing_interval):
        add(AppConfigJob(app))
    others = [path for path in screen.askable
              if path != selected and due(source.due_at(path, interval), interval) and StatsJob(path) not in busy]
    others.sort(key=source.last_attempt)
    share = max(1, int((budget - len(jobs)) * settings.listing_share)) if others else budget
    for job in back[:share]:
        add(job)
    for path in others:
        add(StatsJob(path))
    for path in screen.askable:
        if path.level == "stream" and path != selected and source.input_unknown(path):
            add(InfoJob(path))
    return jobs


def next_due(source: PlanSource, screen: Screen, now: float, interval: float, settings: PollSettings,
             busy: Collection[Job] = ()) -> float:
    """The earliest time something not already in flight becomes due (inf: nothing ever will)."""
    times: list[float] = []
    selected = screen.selected if screen.selected is not None and screen.selected.addressable else None
    for path in ([selected] if selected is not None else []) + list(screen.askable):
        if StatsJob(path) not in busy:
            at = source.due_at(path, interval, probe=path == selected)
            if at is not None:
                times.append(at)
    if selected is not None and selected.level == "stream":
        at = source.info_due_at(selected, settings.listing_interval)
        if at is not None and InfoJob(selected) not in busy:
            times.append(at)
    for job in source.book.jobs():
        if job not in busy:
            times.append(source.book.attempted_at(job) + listing_every(job, screen, settings))
    app = _app_of(selected)
    if app is not None and AppConfigJob(app) not in busy:
        times.append(source.app_config_due_at(app))
    return min(times, default=math.inf)


def _app_of(selected: NodePath | None) -> NodePath | None:
    """The application of the selected stream or application, when it can be asked about."""
    if selected is None or selected.app is None or not selected.addressable:
        return None
    return NodePath(selected.vhost, selected.app)

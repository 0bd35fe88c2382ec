"""The one runner: each planned break of every schedule sent at most once, on time or not at all.

An agenda of timed steps on the injected clock, one step at a time: `preroll` (the template's warning),
`prepare` (`LEAD_S` before the run: the pattern's listing, a read of each stream's playlist, so the
rules are judged on what is on air), `fire` (at the run's instant exactly: the plan, the checks, the
one POST per stream, all streams of a run at once), `follow` (read the playlist until each sent break
is confirmed or not), `end` (the template's ID3 of the in, at the break's planned end) and `tick`
(the schedule file watched; the lock's heartbeat). Every send goes through the stream's controller
(plan, write-ahead audit with `origin = schedule:NAME`, one POST, never retried). Before it, the audit
log is read: a run whose id is already in it is never sent again, whoever sent it. A run whose time has
passed by more than `late_s` is missed, never sent late.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from omeconsole.api.errors import OmeError
from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.adops.matcher import Sighting
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.plan import READ_ONLY_MESSAGE
from omeconsole.core.schedule import breaks, recovery
from omeconsole.core.schedule.events import AlertKind, EventKind, RunnerEvent
from omeconsole.core.schedule.lock import RunnerLock
from omeconsole.core.schedule.model import Schedule
from omeconsole.core.schedule.sent import SentIds
from omeconsole.core.schedule.store import Book
from omeconsole.core.schedule.streams import resolve
from omeconsole.model.paths import NodePath

LEAD_S = 2.0
LATE_S = 1.0
POLL_S = 0.5
WATCH_S = 1.0
HEARTBEAT_S = 60.0
Step = Literal["preroll", "prepare", "fire", "follow", "end", "tick"]
Report = Callable[[RunnerEvent], None]


class RunnerRefused(Exception):
    """The runner cannot start (read-only mode); the message says why."""


@dataclass(order=True)
class _Item:
    at: datetime
    seq: int
    step: Step = field(compare=False)
    schedule: Schedule | None = field(compare=False, default=None)
    run: datetime | None = field(compare=False, default=None)
    path: NodePath | None = field(compare=False, default=None)
    generation: int = field(compare=False, default=0)


@dataclass
class _Waiting:
    schedule: Schedule
    run: datetime
    future: asyncio.Future[Sighting]


class Runner:
    def __init__(self, adops: AdOps, load: Callable[[], Book], watched: Sequence[Path], report: Report,
                 lock: RunnerLock, *, lead_s: float = LEAD_S, late_s: float = LATE_S, poll_s: float = POLL_S,
                 watch_s: float = WATCH_S, heartbeat_s: float = HEARTBEAT_S,
                 on_tick: Callable[[], object] | None = None) -> None:
        """`on_tick` is called on every tick (every `watch_s`): the alerts' timers (`Occurrences.tick`)."""
        self.adops = adops
        self.clock = adops.clock
        self._load = load
        self._watched = tuple(watched)
        self._report = report
        self.lock = lock
        self._lead = timedelta(seconds=lead_s)
        self._late = timedelta(seconds=late_s)
        self._poll = timedelta(seconds=poll_s)
        self._watch = timedelta(seconds=watch_s)
        self._heartbeat = timedelta(seconds=heartbeat_s)
        self._on_tick = on_tick
        self.book = Book({}, [])
        self._signature: tuple[object, ...] = ()
        self._agenda: list[_Item] = []
        self._seq = itertools.count()
        self._generation = 0
        self._prepared: dict[tuple[str, datetime], list[tuple[NodePath, str | None]] | str] = {}
        self._waiting: dict[NodePath, list[_Waiting]] = {}
        self._last_beat: datetime | None = None
        self._sent = SentIds(adops.audit.path)
        self._planned: set[tuple[str, datetime]] = set()
        """Runs of the current book already on the agenda (a reload during a send must not plan one twice)."""
        self.wake_at: datetime | None = None
        """When the runner wakes next (tests drive the clock to it once `parked` is set)."""
        self.parked = asyncio.Event()
        self.naps = 0
        self._nappers: list[asyncio.Future[None]] = []
        """How many times it went to sleep (with `parked`, tests know it has finished a step)."""

    def __repr__(self) -> str:
        return f"Runner({len(self.book.schedules)} schedule(s), lock={self.lock!r})"

    # Starting and stopping --------------------------------------------------------------------------

    def start(self) -> None:
        """Refuse read-only mode, take the lock (LockHeld), load the schedules (ScheduleError), and say what
        was missed while nothing ran and which scheduled sends' outcomes are unknown."""
        if self.adops.read_only:
            raise RunnerRefused(f"{READ_ONLY_MESSAGE}: schedules are not run in read-only mode")
        now = self.clock.wall()
        self._signature = self._files_signature()
        book = self._load()
        self.lock.acquire(now)
        self.book = book
        self._last_beat = now
        contents = self.adops.audit.read_all()
        previous = self.lock.previous
        for event in recovery.on_start(book, contents, previous.alive if previous else None, now, self._late):
            self._report(event)
        self._report(RunnerEvent("started", f"{len(book.schedules)} schedule(s) from "
                                 + ", ".join(str(p) for p in self._watched)))
        self._rebuild(now)
        self._push(now + self._watch, "tick")

    def close(self) -> None:
        self.lock.release(self.clock.wall())

    async def run(self, stop: asyncio.Event) -> None:
        """Until `stop` is set: sleep to the next step, do it. A step under way is finished first."""
        while not stop.is_set():
            item = self._agenda[0]
            delay = (item.at - self.clock.wall()).total_seconds()
            if delay > 0:
                sleeping = asyncio.ensure_future(self._sleep_until(item.at))
                stopping = asyncio.ensure_future(stop.wait())
                try:
                    await asyncio.wait((sleeping, stopping), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    self.parked.clear()
                    for task in (sleeping, stopping):
                        task.cancel()
                continue
            due = [heapq.heappop(self._agenda)]
            while self._agenda and self._agenda[0].at <= self.clock.wall():
                due.append(heapq.heappop(self._agenda))
            due = [i for i in due if i.generation in (0, self._generation)]
            # Every run due now is prepared at once, then fired at once (a run's prepare before its fire);
            # the rest (ticks, follows, ends, warnings) one after the other.
            for step in ("prepare", "fire"):
                await asyncio.gather(*(self._do(i) for i in due if i.step == step))
            for item in due:
                if item.step not in ("prepare", "fire"):
                    await self._do(item)
        self._report(RunnerEvent("stopped", "stopped"))

    async def asleep(self, after: int) -> None:
        """Returns once the runner has gone to sleep more than `after` times (tests drive the clock by it)."""
        while self.naps <= after:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._nappers.append(waiter)
            await waiter

    async def _sleep_until(self, at: datetime) -> None:
        # The delay is taken when the sleep starts, and whoever waits for the nap hears of it only then:
        # a clock moved in between cannot make it oversleep.
        while (delay := (at - self.clock.wall()).total_seconds()) > 0:
            self.wake_at = at
            self.naps += 1
            self.parked.set()
            for waiter in self._nappers:
                if not waiter.done():
                    waiter.set_result(None)
            self._nappers.clear()
            await self.clock.sleep(delay)

    def next_runs(self, after: datetime | None = None) -> list[tuple[Schedule, datetime | None]]:
        moment = after or self.clock.wall()
        return [(s, s.timing.next_after(moment)) for s in self.book.schedules]

    # The agenda -------------------------------------------------------------------------------------

    def _push(self, at: datetime, step: Step, schedule: Schedule | None = None, run: datetime | None = None,
              path: NodePath | None = None, *, generation: int = 0) -> None:
        heapq.heappush(self._agenda, _Item(at, next(self._seq), step, schedule, run, path, generation))

    def _rebuild(self, now: datetime) -> None:
        """The next run of every schedule of the current book; steps of an earlier book are dropped."""
        self._generation += 1
        self._planned.clear()
        self._prepared.clear()
        for schedule in self.book.schedules:
            self._plan_run(schedule, schedule.timing.next_after(now), now)

    def _plan_run(self, schedule: Schedule, run: datetime | None, now: datetime) -> None:
        if run is None or (schedule.name, run) in self._planned:
            return
        self._planned.add((schedule.name, run))
        generation = self._generation
        if schedule.template.preroll_s > 0:
            warn = run - timedelta(seconds=schedule.template.preroll_s)
            if warn >= now:
                self._push(warn, "preroll", schedule, run, generation=generation)
        self._push(max(now, run - self._lead), "prepare", schedule, run, generation=generation)
        self._push(run, "fire", schedule, run, generation=generation)

    async def _do(self, item: _Item) -> None:
        if item.step == "tick":
            self._tick()
            return
        if item.step == "follow":
            assert item.path is not None
            await self._follow(item.path)
            return
        schedule, run = item.schedule, item.run
        assert schedule is not None and run is not None
        if item.step == "preroll":
            self._say("preroll", f"break of {schedule.template.duration_s:g} s in "
                                 f"{schedule.template.preroll_s:g} s", schedule, run)
        elif item.step == "prepare":
            await self._prepare(schedule, run)
        elif item.step == "fire":
            await self._fire(schedule, run)
        else:
            assert item.path is not None
            await self._end(schedule, run, item.path)

    # The steps -----------------------------------------------------------------------------------------

    def _tick(self) -> None:
        now = self.clock.wall()
        signature = self._files_signature()
        if signature != self._signature:
            self._signature = signature
            self._reload(now)
        if self._last_beat is None or now - self._last_beat >= self._heartbeat:
            self._beat(now)
        if self._on_tick is not None:
            self._on_tick()
        self._push(now + self._watch, "tick")

    def _reload(self, now: datetime) -> None:
        try:
            book = self._load()
        except ValueError as error:  # ScheduleError: the file, the table and the key
            self._report(RunnerEvent("invalid", f"{error}; keeping the last good schedules "
                                                f"({len(self.book.schedules)})"))
            return
        self.book = book
        self._report(RunnerEvent("loaded", f"{len(book.schedules)} schedule(s)"))
        self._rebuild(now)

    async def _prepare(self, schedule: Schedule, run: datetime) -> None:
        try:
            paths = await resolve(self.adops.client, schedule)
        except OmeError as error:
            self._prepared[(schedule.name, run)] = f"the streams could not be listed: {error.message}"
            return
        if not paths:
            self._say("no-match", f"the pattern {schedule.stream} matches no stream now: nothing to send",
                      schedule, run)
        ready: list[tuple[NodePath, str | None]] = []
        for path in paths:
            controller = self.adops.stream(path)
            ok = await controller.follower.read_once()
            ready.append((path, None if ok else controller.playlist_problem or "the playlist cannot be read"))
        self._prepared[(schedule.name, run)] = ready

    async def _fire(self, schedule: Schedule, run: datetime) -> None:
        now = self.clock.wall()
        prepared = self._prepared.pop((schedule.name, run), None)
        self._planned.discard((schedule.name, run))
        schedule = next((s for s in self.book.schedules if s.name == schedule.name), schedule)
        control = self.book.control(schedule.name)
        if now - run > self._late:
            late = (now - run).total_seconds()
            self._say("missed", f"missed {_hhmm(schedule, run)} — not sent late ({late:.1f} s late)", schedule,
                      run, alert="schedule_missed")
        elif control.paused:
            self._say("skipped", "the schedule is paused", schedule, run)
        elif run in control.skip:
            self._say("skipped", "this run was skipped by the operator", schedule, run)
        elif isinstance(prepared, str) or prepared is None:
            why = prepared or "not prepared in time"
            self._say("skipped", why, schedule, run, alert="schedule_missed")
        else:
            await asyncio.gather(*(self._send(schedule, run, path, problem) for path, problem in prepared))
        self._plan_run(schedule, self._following(schedule, run, now), now)
        self._beat(self.clock.wall())

    def _following(self, schedule: Schedule, run: datetime, now: datetime) -> datetime | None:
        """The next run to plan; woken long after its time (a suspended machine), the runs in between are
        said in one line and the next one still ahead is planned."""
        following = schedule.timing.next_after(run)
        if following is not None and following < now - self._late:
            passed = schedule.timing.runs_between(run, now - self._late)
            self._say("missed", f"{len(passed)} more run(s) missed up to {_hhmm(schedule, passed[-1])} — none sent "
                                "late", schedule, passed[-1], alert="schedule_missed")
            following = schedule.timing.next_after(now - self._late)
        return following

    async def _send(self, schedule: Schedule, run: datetime, path: NodePath, problem: str | None) -> None:
        identifier = breaks.send_id(schedule.origin, path, run, "out")
        if identifier in self._sent:  # the audit log, read just now: whoever sent this run, it is not sent again
            self._say("skipped", "already sent (the audit log has this run)", schedule, run, path)
            return
        if problem is not None:
            self._say("skipped", f"{problem} — whether a break is on air is not known", schedule, run,
                      path, alert="schedule_missed")
            return
        controller = self.adops.stream(path)
        plan = breaks.with_id(breaks.plan_template_out(controller, schedule.template), identifier)
        why = breaks.unattended_refusal(plan)
        if why is not None:
            self._say("skipped", why, schedule, run, path, alert="schedule_missed")
            return
        outcome = await controller.send(plan, origin=schedule.origin)
        self._outcome(schedule, run, path, outcome)
        if outcome.status == "accepted" and outcome.confirmation is not None:
            self._waiting.setdefault(path, []).append(_Waiting(schedule, run, outcome.confirmation))
            if len(self._waiting[path]) == 1:
                self._push(self.clock.wall() + self._poll, "follow", path=path)
        if outcome.status == "accepted" and schedule.template.id3_in:
            self._push(run + timedelta(seconds=schedule.template.duration_s), "end", schedule, run, path)

    def _outcome(self, schedule: Schedule, run: datetime, path: NodePath, outcome: SendOutcome) -> None:
        if outcome.status == "accepted":
            self._say("sent", outcome.message, schedule, run, path, send_id=outcome.plan.send_id)
        elif outcome.status == "unknown":
            self._say("unknown", f"{outcome.message}; not sent again", schedule, run, path,
                      send_id=outcome.plan.send_id)
        else:
            self._say("refused" if outcome.status != "blocked" else "skipped", outcome.message, schedule, run,
                      path, alert="schedule_missed", send_id=outcome.plan.send_id)
        if outcome.audit_problem is not None:
            self._say("sent", f"warning: {outcome.audit_problem}", schedule, run, path)

    async def _follow(self, path: NodePath) -> None:
        controller = self.adops.stream(path)
        await controller.follower.read_once()
        still: list[_Waiting] = []
        for waiting in self._waiting.get(path, []):
            if not waiting.future.done():
                still.append(waiting)
            elif not waiting.future.cancelled():
                self._sighting(waiting, path, waiting.future.result())
        if still:
            self._waiting[path] = still
            self._push(self.clock.wall() + self._poll, "follow", path=path)
        else:
            self._waiting.pop(path, None)

    def _sighting(self, waiting: _Waiting, path: NodePath, sighting: Sighting) -> None:
        if sighting.seen:
            self._say("confirmed", sighting.detail, waiting.schedule, waiting.run, path, send_id=sighting.send_id)
        else:
            self._say("unconfirmed", sighting.detail, waiting.schedule, waiting.run, path,
                      alert="marker_unconfirmed", send_id=sighting.send_id)

    async def _end(self, schedule: Schedule, run: datetime, path: NodePath) -> None:
        controller: StreamController = self.adops.stream(path)
        planned = breaks.plan_template_in(controller, schedule.template)
        if planned is None:
            return
        identifier = breaks.send_id(schedule.origin, path, run, "in")
        if identifier in self._sent:
            return
        plan = breaks.with_id(planned, identifier)
        why = breaks.unattended_refusal(plan)
        if why is not None:
            self._say("skipped", f"the ID3 of the in skipped: {why}", schedule, run, path)
            return
        outcome = await controller.send(plan, origin=schedule.origin)
        self._outcome(schedule, run, path, outcome)

    # Helpers --------------------------------------------------------------------------------------------

    def _beat(self, now: datetime) -> None:
        self._last_beat = now
        self.lock.heartbeat(now)

    def _files_signature(self) -> tuple[object, ...]:
        signature: list[object] = []
        for path in self._watched:
            with contextlib.suppress(OSError):
                info = path.stat()
                signature.append((str(path), info.st_size, info.st_mtime_ns, info.st_ino))
                continue
            signature.append((str(path), None))
        return tuple(signature)

    def _say(self, kind: EventKind, message: str, schedule: Schedule, run: datetime,
             path: NodePath | None = None, *, alert: AlertKind | None = None,
             send_id: str | None = None) -> None:
        self._report(RunnerEvent(kind, message, schedule.name, str(path) if path else schedule.stream, run,
                                 schedule.timing.zone, alert, send_id))


def _hhmm(schedule: Schedule, run: datetime) -> str:
    return run.astimezone(schedule.timing.zone).strftime("%H:%M")

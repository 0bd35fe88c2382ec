"""What a runner says when it starts: the runs missed while nothing ran, and the scheduled sends whose
outcome is unknown (a runner stopped between the intent and the answer). Neither is ever sent: a late
break lands inside the programme, and an unknown one may already be on air.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from omeconsole.core.adops.audit import AuditContents, AuditedSend
from omeconsole.core.schedule.breaks import run_prefix
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.store import Book

MISSED_SHOWN = 5
"""Missed runs named one by one per schedule; more are counted in one line."""
UNKNOWN_WITHIN = timedelta(days=1)
MISSED_WITHIN = timedelta(days=31)
"""Runs older than this before the start are not looked for (a runner stopped for months)."""


def scheduled(send: AuditedSend) -> bool:
    return send.origin is not None and send.origin.startswith("schedule:")


def on_start(book: Book, contents: AuditContents, previous_alive: datetime | None, now: datetime,
             late: timedelta) -> Iterator[RunnerEvent]:
    sends = [s for s in contents.sends if scheduled(s)]
    yield from _unknown(book, sends, now)
    if previous_alive is not None:
        yield from _missed(book, sends, max(previous_alive, now - MISSED_WITHIN), now - late)


def _unknown(book: Book, sends: list[AuditedSend], now: datetime) -> Iterator[RunnerEvent]:
    zones = {s.origin: s.timing.zone for s in book.schedules}
    for send in sends:
        if send.outcome_recorded:
            continue
        try:
            when = datetime.fromisoformat(send.time)
        except ValueError:
            continue
        if when.tzinfo is None or now - when > UNKNOWN_WITHIN:
            continue
        origin = send.origin or ""
        name = origin[len("schedule:"):]
        yield RunnerEvent("unknown", f"the {send.action} sent at {when.astimezone(zones.get(origin)):%H:%M:%S} "
                                     "has an unknown outcome (the runner stopped before the answer) — check the "
                                     "playlist; it is not sent again", name, send.stream_path, None,
                          zones.get(origin), None, send.send_id)


def _missed(book: Book, sends: list[AuditedSend], start: datetime, end: datetime) -> Iterator[RunnerEvent]:
    handled = {s.send_id[:len(run_prefix("", start))] for s in sends}
    for schedule in book.schedules:
        if book.control(schedule.name).paused:
            continue
        missed = [run for run in schedule.timing.runs_between(start, end)
                  if run_prefix(schedule.origin, run) not in handled and run not in book.control(schedule.name).skip]
        zone = schedule.timing.zone
        for run in missed[:MISSED_SHOWN]:
            yield RunnerEvent("missed", f"missed {run.astimezone(zone):%H:%M} — not sent late (nothing was running)",
                              schedule.name, schedule.stream, run, zone, "schedule_missed")
        if len(missed) > MISSED_SHOWN:
            yield RunnerEvent("missed", f"and {len(missed) - MISSED_SHOWN} more runs missed since "
                                        f"{start.astimezone(zone):%Y-%m-%d %H:%M %Z} — none sent late",
                              schedule.name, schedule.stream, None, zone, "schedule_missed")

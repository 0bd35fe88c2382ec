"""`next AD 14:24`: a stream's next scheduled break, for its row and its header.

The schedules are read from the config and the schedule file when either changed (looked at once a
second at most, on the console's clock), and each schedule's next run is worked out again only once it
has passed, so a tree of thousands of rows asks a dict per row. A pattern's schedule marks every
stream its pattern matches. Paused schedules and skipped runs are left out; a file that cannot be read
marks nothing (the schedules screen says why).
"""

from __future__ import annotations

import fnmatch
import weakref
from datetime import datetime
from pathlib import Path

from omeconsole.core.adops.operations import AdOps
from omeconsole.core.clock import Clock
from omeconsole.core.config import config_path
from omeconsole.core.schedule.model import Schedule
from omeconsole.core.schedule.store import Book, load_book, schedule_file_path
from omeconsole.model.paths import NodePath

LOOK_EVERY_S = 1.0


class NextBreaks:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._looked_at: float | None = None
        self._signature: tuple[object, ...] | None = None
        self._book: Book | None = None
        self._next: dict[str, datetime | None] = {}

    def text(self, path: NodePath) -> str | None:
        """`next AD 14:24` (in the schedule's zone), or None when no schedule sends to this stream."""
        self._refresh()
        if self._book is None or not self._book.schedules:
            return None
        now = self._clock.wall()
        best: tuple[datetime, Schedule] | None = None
        for schedule in self._book.schedules:
            if not _sends_to(schedule, path):
                continue
            run = self._run(schedule, now)
            if run is not None and (best is None or run < best[0]):
                best = (run, schedule)
        if best is None:
            return None
        return f"next AD {best[0].astimezone(best[1].timing.zone):%H:%M}"

    def _run(self, schedule: Schedule, now: datetime) -> datetime | None:
        assert self._book is not None
        control = self._book.control(schedule.name)
        if control.paused:
            return None
        run = self._next.get(schedule.name)
        if run is None or run <= now:
            run = schedule.timing.next_after(now)
            while run is not None and run in control.skip:
                run = schedule.timing.next_after(run)
            self._next[schedule.name] = run
        return run

    def _refresh(self) -> None:
        now = self._clock.monotonic()
        if self._looked_at is not None and now - self._looked_at < LOOK_EVERY_S:
            return
        self._looked_at = now
        files = (config_path(), schedule_file_path())
        signature = tuple(_stat(path) for path in files)
        if signature == self._signature:
            return
        self._signature = signature
        self._next = {}
        try:
            self._book = load_book(*files)
        except ValueError:  # ScheduleError: the schedules screen says why
            self._book = None


def _stat(path: Path) -> object:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _sends_to(schedule: Schedule, path: NodePath) -> bool:
    return fnmatch.fnmatchcase(str(path), schedule.stream) if schedule.is_pattern else schedule.stream == str(path)


_BY_SERVER: weakref.WeakKeyDictionary[AdOps, NextBreaks] = weakref.WeakKeyDictionary()


def next_breaks(adops: AdOps) -> NextBreaks:
    found = _BY_SERVER.get(adops)
    if found is None:
        found = _BY_SERVER[adops] = NextBreaks(adops.clock)
    return found

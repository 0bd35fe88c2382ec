"""`schedule add|remove|skip-next|pause|resume`: one change to the schedule file, checked before it is written.

Each change is applied to the file's tables, the whole result (with the config's templates and schedules)
is loaded as the runner would load it, and only a result that loads is written — so the runner watching
the file never sees a change this command made turn it bad. The config is never written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from omeconsole.core.schedule.model import Schedule, ScheduleError
from omeconsole.core.schedule.store import Book, book_from, read_toml, write_schedule_file


@dataclass(frozen=True)
class Files:
    config: Path
    schedules: Path


class EditError(ValueError):
    """The change cannot be made; nothing was written."""


def add(files: Files, table: dict[str, Any]) -> Book:
    def change(own: dict[str, Any], _book: Book) -> None:
        own.setdefault("schedules", []).append(table)
    return _edit(files, change)


def remove(files: Files, name: str) -> Book:
    def change(own: dict[str, Any], book: Book) -> None:
        schedules = own.get("schedules", [])
        kept = [s for s in schedules if not (isinstance(s, dict) and s.get("name") == name)]
        if len(kept) == len(schedules):
            _not_here(book, name, files, "remove it there, or pause it")
        own["schedules"] = kept
        own.get("control", {}).pop(name, None)
    return _edit(files, change)


def pause(files: Files, name: str, paused: bool) -> Book:
    def change(own: dict[str, Any], book: Book) -> None:
        _known(book, name)
        control = own.setdefault("control", {}).setdefault(name, {})
        control["paused"] = paused
    return _edit(files, change)


def skip_next(files: Files, name: str, now: datetime) -> tuple[Book, datetime]:
    """Skip the schedule's next run that is not skipped already; returns that run."""
    chosen: list[datetime] = []

    def change(own: dict[str, Any], book: Book) -> None:
        schedule = _known(book, name)
        skipped = {s for s in book.control(name).skip if s > now}
        run = schedule.timing.next_after(now)
        while run is not None and run in skipped:
            run = schedule.timing.next_after(run)
        if run is None:
            raise EditError(f"{name} has no run ahead to skip")
        control = own.setdefault("control", {}).setdefault(name, {})
        control["skip"] = sorted(s.isoformat() for s in {*skipped, run})
        chosen.append(run)
    book = _edit(files, change)
    return book, chosen[0]


def _edit(files: Files, change: Callable[[dict[str, Any], Book], None]) -> Book:
    config = read_toml(files.config)
    own = read_toml(files.schedules)
    before = book_from(config, files.config, own, files.schedules)
    change(own, before)
    try:
        after = book_from(config, files.config, own, files.schedules)
    except ScheduleError as error:
        raise EditError(f"not written: {error}") from None
    write_schedule_file(files.schedules, own)
    return after


def _known(book: Book, name: str) -> Schedule:
    for schedule in book.schedules:
        if schedule.name == name:
            return schedule
    known = ", ".join(s.name for s in book.schedules) or "none"
    raise EditError(f"no schedule named {name!r} (schedules: {known})")


def _not_here(book: Book, name: str, files: Files, hint: str) -> None:
    schedule = _known(book, name)
    raise EditError(f"{name!r} is in {schedule.source}, not in {files.schedules}: {hint} (the config is yours: "
                    "this command does not change it)")

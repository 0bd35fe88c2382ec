"""Templates and schedules as read from a file, checked at load with the file, the table and the key named.

`[templates.NAME]`: `duration` (required), `id3_out` and `id3_in` (lists of `{frameType, info, data}`
tables: ID3 frames sent with the out, in one `:sendEvents` array, and at the break's planned end),
`preroll` (a warning that long before the out). `[[schedules]]`: `name`, `stream` (a path, or a pattern
with `*`, `?` or `[...]` matched against the listing at each run), `template`, one of `every` (with an
optional `offset`), `at` or `cron`, `timezone` (default UTC) and `between`. Unknown keys are refused, never
ignored: a schedule with a typo would otherwise run at the wrong time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.plan import MAX_DURATION_S, frame_problem
from omeconsole.core.schedule.cron import CronError, parse_cron
from omeconsole.core.schedule.timing import Timing, parse_between, parse_seconds, parse_time_of_day
from omeconsole.model.paths import NodePath

ASSUMED_SEGMENT_S = 6.0
"""The servers' default segment duration: runs must be at least a break plus one segment apart."""
MAX_SCHEDULES = 10_000
MAX_AT_TIMES = 1440
PATTERN_CHARS = frozenset("*?[")
_TEMPLATE_KEYS = frozenset({"duration", "id3_out", "id3_in", "preroll"})
_SCHEDULE_KEYS = frozenset({"name", "stream", "template", "every", "offset", "at", "cron", "timezone", "between"})
_FRAME_KEYS = frozenset({"frameType", "info", "data"})


class ScheduleError(ValueError):
    """A file that cannot be used: where (file, table, key) and why."""

    def __init__(self, file: Path | str, table: str, key: str | None, message: str) -> None:
        self.file = str(file)
        self.table = table
        self.key = key
        self.message = message
        where = f"{self.file}: {table}" + (f": key {key!r}" if key else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class BreakTemplate:
    name: str
    duration_s: float
    id3_out: tuple[Id3Frame, ...] = ()
    id3_in: tuple[Id3Frame, ...] = ()
    preroll_s: float = 0.0

    def describe(self) -> str:
        extras = [f"ID3 with the out ({len(self.id3_out)})"] if self.id3_out else []
        extras += [f"ID3 at the end ({len(self.id3_in)})"] if self.id3_in else []
        extras += [f"pre-roll {self.preroll_s:g} s"] if self.preroll_s else []
        return f"{self.duration_s:g} s" + (", " + ", ".join(extras) if extras else "")


@dataclass(frozen=True)
class Schedule:
    name: str
    stream: str
    """A stream path, or a pattern over `vhost/app/stream`."""
    template: BreakTemplate
    timing: Timing
    source: str
    """The file it was read from."""

    @property
    def is_pattern(self) -> bool:
        return any(c in PATTERN_CHARS for c in self.stream)

    @property
    def origin(self) -> str:
        """What the audit log records as the sender."""
        return f"schedule:{self.name}"


def load_templates(data: Mapping[str, Any], file: Path | str) -> dict[str, BreakTemplate]:
    tables = data.get("templates", {})
    if not isinstance(tables, dict):
        raise ScheduleError(file, "[templates]", None, "must be a table of named templates ([templates.NAME])")
    return {name: _template(name, table, file) for name, table in tables.items()}


def load_schedules(data: Mapping[str, Any], file: Path | str, templates: Mapping[str, BreakTemplate],
                   taken: set[str] | None = None) -> list[Schedule]:
    items = data.get("schedules", [])
    if not isinstance(items, list):
        raise ScheduleError(file, "[[schedules]]", None, "must be an array of tables ([[schedules]])")
    if len(items) > MAX_SCHEDULES:
        raise ScheduleError(file, "[[schedules]]", None, f"more than {MAX_SCHEDULES} schedules")
    names = set() if taken is None else taken
    schedules = []
    for index, table in enumerate(items, start=1):
        schedule = _schedule(index, table, file, templates)
        if schedule.name in names:
            raise ScheduleError(file, f"[[schedules]] #{index}", "name", f"{schedule.name!r} is used twice")
        names.add(schedule.name)
        schedules.append(schedule)
    return schedules


def _template(name: str, table: object, file: Path | str) -> BreakTemplate:
    where = f"[templates.{name}]"
    if not isinstance(table, dict):
        raise ScheduleError(file, where, None, "must be a table")
    _no_unknown(table, _TEMPLATE_KEYS, file, where)
    if "duration" not in table:
        raise ScheduleError(file, where, "duration", "is required (seconds, or 30s, 2m)")
    duration = _seconds(table["duration"], file, where, "duration")
    if not 0 < duration <= MAX_DURATION_S:
        raise ScheduleError(file, where, "duration", f"must be above 0 and at most {MAX_DURATION_S:g} s")
    preroll = _seconds(table.get("preroll", 0), file, where, "preroll")
    if not 0 <= preroll <= 3600:
        raise ScheduleError(file, where, "preroll", "must be 0 to 3600 s")
    return BreakTemplate(name, duration, _frames(table.get("id3_out", []), file, where, "id3_out"),
                         _frames(table.get("id3_in", []), file, where, "id3_in"), preroll)


def _frames(value: object, file: Path | str, where: str, key: str) -> tuple[Id3Frame, ...]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ScheduleError(file, where, key, "must be a list of {frameType, info, data} tables")
    frames = []
    for index, item in enumerate(value, start=1):
        unknown = sorted(set(item) - _FRAME_KEYS)
        if unknown:
            raise ScheduleError(file, where, key, f"frame {index}: unknown key {unknown[0]!r}")
        kind, info, data = item.get("frameType"), item.get("info"), item.get("data", "")
        if not isinstance(kind, str) or not isinstance(data, str) or not isinstance(info, str | None):
            raise ScheduleError(file, where, key, f"frame {index}: frameType, info and data are strings")
        problem = frame_problem(kind)
        if problem is not None:
            raise ScheduleError(file, where, key, f"frame {index}: {problem}")
        frames.append(Id3Frame(frameType=kind.upper(), info=info, data=data))
    return tuple(frames)


def _schedule(index: int, table: object, file: Path | str, templates: Mapping[str, BreakTemplate]) -> Schedule:
    where = f"[[schedules]] #{index}"
    if not isinstance(table, dict):
        raise ScheduleError(file, where, None, "must be a table")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip() or not name.isprintable() or len(name) > 100:
        raise ScheduleError(file, where, "name", "is required: a printable name of at most 100 characters")
    where = f"[[schedules]] #{index} ({name})"
    _no_unknown(table, _SCHEDULE_KEYS, file, where)
    stream = _string(table, "stream", file, where)
    if not any(c in PATTERN_CHARS for c in stream):
        try:
            if NodePath.parse(stream).level != "stream":
                raise ValueError("a schedule sends to a stream: vhost/app/stream")
        except ValueError as error:
            raise ScheduleError(file, where, "stream", str(error)) from None
    elif stream.count("/") != 2:
        raise ScheduleError(file, where, "stream", "a pattern names vhost/app/stream (e.g. default/app/*)")
    template_name = _string(table, "template", file, where)
    template = templates.get(template_name)
    if template is None:
        known = ", ".join(sorted(templates)) or "none"
        raise ScheduleError(file, where, "template", f"no template named {template_name!r} (templates: {known})")
    timing = _timing(table, file, where)
    gap = timing.min_gap_s()
    if gap < template.duration_s + ASSUMED_SEGMENT_S:
        key = timing.kind
        raise ScheduleError(file, where, key, f"runs {gap:g} s apart: shorter than the break "
                                              f"({template.duration_s:g} s) plus a segment ({ASSUMED_SEGMENT_S:g} s)")
    return Schedule(name, stream, template, timing, str(file))


def _timing(table: dict[str, Any], file: Path | str, where: str) -> Timing:
    kinds = [k for k in ("every", "at", "cron") if k in table]
    if len(kinds) != 1:
        raise ScheduleError(file, where, kinds[1] if len(kinds) > 1 else "every",
                            "give exactly one of every, at or cron")
    zone_name = table.get("timezone", "UTC")
    try:
        if not isinstance(zone_name, str):
            raise ValueError
        zone = ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(file, where, "timezone", f"no time zone named {zone_name!r} "
                                                     "(an IANA name such as Europe/Berlin)") from None
    between = None
    if "between" in table:
        try:
            between = parse_between(_string(table, "between", file, where))
        except ValueError as error:
            raise ScheduleError(file, where, "between", str(error)) from None
    kind = kinds[0]
    if "offset" in table and kind != "every":
        raise ScheduleError(file, where, "offset", "goes with every")
    if kind == "every":
        every = _seconds(table["every"], file, where, "every")
        offset = _seconds(table.get("offset", 0), file, where, "offset")
        if not 60 <= every <= 86_400 or every % 1:
            raise ScheduleError(file, where, "every", "must be whole seconds from 1m to 24h")
        if not 0 <= offset < every:
            raise ScheduleError(file, where, "offset", "must be 0 or more and less than every")
        return Timing("every", zone, every_s=every, offset_s=offset, between=between)
    if kind == "at":
        value = table["at"]
        if not isinstance(value, list) or not value or len(value) > MAX_AT_TIMES \
                or not all(isinstance(v, str) for v in value):
            raise ScheduleError(file, where, "at", 'must be a list of times of day (["06:00", "12:30"])')
        try:
            times = tuple(sorted({parse_time_of_day(v) for v in value}))
        except ValueError as error:
            raise ScheduleError(file, where, "at", str(error)) from None
        return Timing("at", zone, at=times, between=between)
    try:
        cron = parse_cron(_string(table, "cron", file, where))
    except CronError as error:
        raise ScheduleError(file, where, "cron", str(error)) from None
    return Timing("cron", zone, cron=cron, between=between)


def _no_unknown(table: Mapping[str, Any], known: frozenset[str], file: Path | str, where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ScheduleError(file, where, unknown[0], f"unknown key (known: {', '.join(sorted(known))})")


def _string(table: Mapping[str, Any], key: str, file: Path | str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ScheduleError(file, where, key, "is required: a string")
    return value.strip()


def _seconds(value: object, file: Path | str, where: str, key: str) -> float:
    try:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ValueError(f"{value!r} is not a duration")
        return parse_seconds(value)
    except ValueError as error:
        raise ScheduleError(file, where, key, str(error)) from None

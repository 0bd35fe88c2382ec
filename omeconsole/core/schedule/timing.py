"""When a schedule runs: `every` an interval (with an `offset`), `at` times of day, or a cron expression,
in a named time zone, optionally only `between` two times of day. Pure: instants in, instants out.

Daylight-saving changes, decided once here:
- `every` counts real time from each local midnight (a 23- or 25-hour day has 23 or 25 hours of runs),
  so the runs keep their interval through a change: none twice, none lost.
- `at` and cron name wall-clock times. A time that happens twice (the hour repeated when clocks go back)
  runs once, at its first occurrence; a time that does not exist (the hour skipped when clocks go
  forward) runs at the same distance after the change (02:30 runs at 03:30), once even when it then
  falls on another run's instant.
The start is exact: no jitter is ever added.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from omeconsole.core.schedule.cron import Cron

DAY = timedelta(days=1)
SEARCH_DAYS = 1500
"""A cron expression that names a rare day (29 February on a Monday) is searched this far ahead."""
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0, None: 1.0}
_TIME = re.compile(r"(\d{2}):(\d{2})")

Kind = Literal["every", "at", "cron"]


def parse_seconds(text: str | float) -> float:
    """`90`, `90s`, `12m`, `1.5h` as seconds (a number is seconds)."""
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a duration")
    if isinstance(text, int | float):
        return float(text)
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a duration (write 30s, 12m, 2h or a number of seconds)")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_time_of_day(text: str) -> time:
    """`HH:MM` (00:00-23:59); `25:00` and `7:5` are refused."""
    match = _TIME.fullmatch(text.strip())
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"{text!r} is not a time of day (HH:MM, 00:00 to 23:59)")
    return time(int(match.group(1)), int(match.group(2)))


def parse_between(text: str) -> tuple[time, time]:
    start, sep, end = text.partition("-")
    if not sep:
        raise ValueError(f"{text!r} is not a window (write 06:00-23:00)")
    return parse_time_of_day(start), parse_time_of_day(end)


@dataclass(frozen=True)
class Timing:
    kind: Kind
    zone: ZoneInfo
    every_s: float = 0.0
    offset_s: float = 0.0
    at: tuple[time, ...] = ()
    cron: Cron | None = None
    between: tuple[time, time] | None = None

    def describe(self) -> str:
        if self.kind == "every":
            text = f"every {_short(self.every_s)}" + (f" +{_short(self.offset_s)}" if self.offset_s else "")
        elif self.kind == "at":
            text = "at " + ", ".join(t.strftime("%H:%M") for t in self.at)
        else:
            assert self.cron is not None
            text = f"cron {self.cron.text}"
        if self.between is not None:
            text += f" between {self.between[0]:%H:%M}-{self.between[1]:%H:%M}"
        return f"{text} ({self.zone.key})"

    def min_gap_s(self) -> float:
        """The shortest nominal time between two runs (a break and a segment must fit in it)."""
        if self.kind == "every":
            return self.every_s
        times = sorted({t.hour * 60 + t.minute for t in self.at} if self.kind == "at" else
                       {h * 60 + m for h, m in self.cron.times_of_day()} if self.cron else set())
        gaps = [b - a for a, b in itertools.pairwise(times)] + [1440 - times[-1] + times[0]]
        return min(gaps) * 60.0

    def runs_between(self, start: datetime, end: datetime) -> list[datetime]:
        """Every run in (start, end], in order, as UTC instants."""
        found: list[datetime] = []
        day = start.astimezone(self.zone).date() - DAY
        last = end.astimezone(self.zone).date() + DAY
        while day <= last:
            found.extend(t for t in self._day(day) if start < t <= end)
            day += DAY
        return sorted(set(found))

    def next_after(self, moment: datetime) -> datetime | None:
        """The first run after `moment`, or None when none comes within SEARCH_DAYS."""
        day = moment.astimezone(self.zone).date() - DAY
        for _ in range(SEARCH_DAYS):
            runs = self._day(day)
            index = bisect.bisect_right(runs, moment)
            if index < len(runs):
                return runs[index]
            day += DAY
        return None

    def _day(self, day: date) -> list[datetime]:
        """The runs whose local day is `day` (sorted, unique, UTC)."""
        if self.kind == "every":
            runs = self._every(day)
        elif self.kind == "at":
            runs = [_instant(day, t.hour, t.minute, self.zone) for t in self.at]
        else:
            assert self.cron is not None
            runs = ([_instant(day, h, m, self.zone) for h, m in self.cron.times_of_day()]
                    if self.cron.runs_on(day) else [])
        if self.between is not None:
            runs = [r for r in runs if _within(r.astimezone(self.zone).time(), self.between)]
        return sorted(set(runs))

    def _every(self, day: date) -> list[datetime]:
        midnight = _instant(day, 0, 0, self.zone)
        following = _instant(day + DAY, 0, 0, self.zone)
        step = timedelta(seconds=self.every_s)
        moment = midnight + timedelta(seconds=self.offset_s)
        runs: list[datetime] = []
        while moment < following:
            runs.append(moment)
            moment += step
        return runs


def _instant(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """The local wall time as a UTC instant: fold=0 is the first of a repeated time, and a time in a
    skipped hour is taken with the offset before the change (so it lands as far after the change)."""
    local = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone, fold=0)
    return local.astimezone(UTC)


def _within(moment: time, window: tuple[time, time]) -> bool:
    start, end = window
    return start <= moment <= end if start <= end else moment >= start or moment <= end


def _short(seconds: float) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"

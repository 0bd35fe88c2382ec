"""Five-field cron expressions (`minute hour day-of-month month day-of-week`), parsed once into sets.

The common grammar only: `*`, numbers, `a-b` ranges, `,` lists and `/step` on any of them; day of week
0-7 (0 and 7 are Sunday). As in cron, when both day fields are restricted a day matching either runs.
Names (`MON`, `JAN`) and `@daily` shortcuts are not taken: a schedule file states numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))


class CronError(ValueError):
    """The expression cannot be used; the message names the field."""


@dataclass(frozen=True)
class Cron:
    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    """0 = Sunday ... 6 = Saturday (7 is folded into 0)."""
    any_day: bool
    any_weekday: bool

    def runs_on(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        weekday = (day.weekday() + 1) % 7  # Python's Monday=0 -> cron's Sunday=0
        if self.any_day and self.any_weekday:
            return True
        if self.any_day:
            return weekday in self.weekdays
        if self.any_weekday:
            return day.day in self.days
        return day.day in self.days or weekday in self.weekdays

    def times_of_day(self) -> list[tuple[int, int]]:
        """(hour, minute) pairs in order."""
        return [(h, m) for h in sorted(self.hours) for m in sorted(self.minutes)]


def parse_cron(text: str) -> Cron:
    parts = text.split()
    if len(parts) != 5:
        raise CronError(f"a cron expression has 5 fields (minute hour day-of-month month day-of-week), "
                        f"not {len(parts)}")
    sets = [_field(part, name, low, high) for part, (name, low, high) in zip(parts, _FIELDS, strict=True)]
    weekdays = frozenset(d % 7 for d in sets[4])
    return Cron(text, sets[0], sets[1], sets[2], sets[3], weekdays, parts[2] == "*", parts[4] == "*")


def _field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for item in text.split(","):
        span, _, step_text = item.partition("/")
        step = _number(step_text, name, 1, high - low + 1) if step_text else 1
        if span == "*":
            first, last = low, high
        elif "-" in span:
            start, _, end = span.partition("-")
            first, last = _number(start, name, low, high), _number(end, name, low, high)
            if first > last:
                raise CronError(f"{name}: range {span!r} runs backwards")
        else:
            first = _number(span, name, low, high)
            last = high if step_text else first
        values.update(range(first, last + 1, step))
    return frozenset(values)


def _number(text: str, name: str, low: int, high: int) -> int:
    if not text.isascii() or not text.isdigit():
        raise CronError(f"{name}: {text!r} is not a number")
    value = int(text)
    if not low <= value <= high:
        raise CronError(f"{name}: {value} is outside {low}-{high}")
    return value

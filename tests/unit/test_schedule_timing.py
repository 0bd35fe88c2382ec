"""When schedules run: intervals, times of day, cron, windows, and Europe/Berlin's daylight-saving changes."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from omeconsole.core.schedule.cron import CronError, parse_cron
from omeconsole.core.schedule.timing import Timing, parse_between, parse_seconds, parse_time_of_day

BERLIN = ZoneInfo("Europe/Berlin")
SPRING = datetime(2026, 3, 29, tzinfo=BERLIN)  # 02:00 CET -> 03:00 CEST: a 23-hour day
AUTUMN = datetime(2026, 10, 25, tzinfo=BERLIN)  # 03:00 CEST -> 02:00 CET: a 25-hour day


def _day(timing: Timing, day: datetime) -> list[datetime]:
    start = day.astimezone(UTC) - timedelta(seconds=1)
    end = (day + timedelta(days=1)).astimezone(UTC) - timedelta(seconds=1)  # the next local midnight
    return timing.runs_between(start, end)


@pytest.mark.parametrize(("day", "hours"), [(SPRING, 23), (AUTUMN, 25)])
def test_every_keeps_its_interval_through_a_daylight_saving_change(day: datetime, hours: int) -> None:
    runs = _day(Timing("every", BERLIN, every_s=1800), day)
    assert len(runs) == hours * 2  # none lost, none twice
    assert {b - a for a, b in itertools.pairwise(runs)} == {timedelta(minutes=30)}


def test_a_time_in_the_skipped_hour_runs_once_after_the_change() -> None:
    runs = _day(Timing("at", BERLIN, at=(time(2, 30), time(3, 30))), SPRING)
    # 02:30 does not exist: it runs as far after the change, on 03:30's instant, and once.
    assert [r.astimezone(BERLIN).strftime("%H:%M %Z") for r in runs] == ["03:30 CEST"]


def test_a_time_in_the_repeated_hour_runs_once_at_its_first_occurrence() -> None:
    runs = _day(Timing("at", BERLIN, at=(time(2, 30),)), AUTUMN)
    assert [r.astimezone(BERLIN).strftime("%H:%M %Z") for r in runs] == ["02:30 CEST"]
    assert runs[0] == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)


def test_cron_through_both_changes() -> None:
    timing = Timing("cron", BERLIN, cron=parse_cron("*/30 1-3 * * *"))
    assert [r.astimezone(BERLIN).strftime("%H:%M") for r in _day(timing, SPRING)] == ["01:00", "01:30", "03:00",
                                                                                       "03:30"]
    autumn = _day(timing, AUTUMN)
    assert [r.astimezone(BERLIN).strftime("%H:%M %Z") for r in autumn] == [
        "01:00 CEST", "01:30 CEST", "02:00 CEST", "02:30 CEST", "03:00 CET", "03:30 CET"]


def test_offset_and_between_window() -> None:
    timing = Timing("every", ZoneInfo("UTC"), every_s=720, offset_s=180, between=parse_between("06:00-07:00"))
    runs = timing.runs_between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC))
    assert [r.strftime("%H:%M") for r in runs] == ["06:03", "06:15", "06:27", "06:39", "06:51"]


def test_a_window_across_midnight() -> None:
    timing = Timing("at", ZoneInfo("UTC"), at=(time(1), time(12), time(23)), between=parse_between("22:00-02:00"))
    runs = timing.runs_between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC))
    assert [r.strftime("%H:%M") for r in runs] == ["01:00", "23:00"]


def test_next_after_is_strictly_after_and_exact() -> None:
    timing = Timing("every", ZoneInfo("UTC"), every_s=720)
    moment = datetime(2026, 1, 1, 14, 24, tzinfo=UTC)
    assert timing.next_after(moment) == datetime(2026, 1, 1, 14, 36, tzinfo=UTC)
    assert timing.next_after(moment - timedelta(microseconds=1)) == moment


def test_cron_day_fields_and_rare_days() -> None:
    leap_monday = Timing("cron", ZoneInfo("UTC"), cron=parse_cron("0 12 29 2 *"))
    assert leap_monday.next_after(datetime(2026, 1, 1, tzinfo=UTC)) == datetime(2028, 2, 29, 12, tzinfo=UTC)
    sundays = Timing("cron", ZoneInfo("UTC"), cron=parse_cron("0 9 * * 0,7"))
    run = sundays.next_after(datetime(2026, 1, 1, tzinfo=UTC))
    assert run == datetime(2026, 1, 4, 9, tzinfo=UTC) and run.strftime("%A") == "Sunday"


@pytest.mark.parametrize(("text", "message"), [
    ("* * * *", "5 fields"), ("60 * * * *", "minute: 60 is outside 0-59"), ("* 24 * * *", "hour: 24"),
    ("5-1 * * * *", "runs backwards"), ("MON * * * *", "not a number"), ("*/0 * * * *", "0 is outside"),
])
def test_bad_cron(text: str, message: str) -> None:
    with pytest.raises(CronError, match=message):
        parse_cron(text)


def test_values() -> None:
    assert parse_seconds("12m") == 720 and parse_seconds("1.5h") == 5400 and parse_seconds(90) == 90
    assert parse_time_of_day("23:59") == time(23, 59)
    for bad in ("25:00", "7:05", "12:60", "noon"):
        with pytest.raises(ValueError, match="not a time of day"):
            parse_time_of_day(bad)
    with pytest.raises(ValueError, match="not a duration"):
        parse_seconds("12 minutes")

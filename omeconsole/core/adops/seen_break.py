"""The ad break a stream's playlist shows, whoever sent it, judged from the playlist's tags alone.

Pure: a `MediaPlaylist` and the console's wall time in, a `SeenBreak` out (the break on air or ahead,
if any, and why any marker was not taken). The playlist is hostile input, so a marker counts only
when it can stand for a real break: a `#EXT-X-CUE-OUT` line (placed by its segment's
PROGRAM-DATE-TIME), a `#EXT-X-DATERANGE` with an ID, a readable START-DATE and a hexadecimal
SCTE35-OUT, or, once the out has scrolled out of the window, a `#EXT-X-CUE-OUT-CONT` that says how
far into its break it is. A splice more than `AHEAD_LIMIT_S` ahead of the console's clock, a planned
length that is not a length (0, negative, past a day) and an out far in the past with no length are
not a break on air; each is set aside with its reason (`ignored`), never shown as a break. The
break's end is the earliest of: a cue-in after it, a date range's SCTE35-IN, DURATION or END-DATE.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from omeconsole.api.hls import MAX_LINE_CHARS, Marker, MediaPlaylist, date_time, parse_attributes
from omeconsole.core.adops.matcher import PlaylistBreak

AHEAD_LIMIT_S = 60.0
"""A server announces a splice a segment or two ahead: one further ahead than this is not on its way."""
MAX_BREAK_S = 86_400.0
"""The longest break the console sends (plan.MAX_DURATION_S); a longer planned length is not a length."""
STALE_S = 86_400.0
"""An out with no length older than this is a leftover, not a break on air."""
IGNORED_KEPT = 3
"""Reasons kept per playlist (a hostile playlist can carry thousands of bad tags)."""
_HEX = re.compile(r"0[xX][0-9A-Fa-f]{2,}")
_NUMBER = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,9})?")
_Reason = Callable[[str], None]


@dataclass(frozen=True)
class SeenBreak:
    """What the playlist says of ad breaks: the latest credible one (None: no break), and what was set aside."""

    current: PlaylistBreak | None
    ignored: tuple[str, ...] = ()
    ignored_count: int = 0


def seen_break(playlist: MediaPlaylist, now: datetime) -> SeenBreak:
    """The latest credible break in `playlist` at wall time `now` (UTC), with the markers not taken."""
    ignored: list[str] = []
    count = 0

    def set_aside(reason: str) -> None:
        nonlocal count
        count += 1
        if len(ignored) < IGNORED_KEPT and reason not in ignored:
            ignored.append(reason)

    markers = playlist.markers
    ends = _ends(markers)
    for index in range(len(markers) - 1, -1, -1):
        marker = markers[index]
        if marker.kind != "out":
            continue
        found = _out_break(marker, markers, index, ends, now, set_aside)
        if found is not None:  # the newest credible out (the break model knows whether it is over)
            return SeenBreak(found, tuple(ignored), count)
    cont = _from_continuation(markers, now, set_aside)
    return SeenBreak(cont, tuple(ignored), count)


def _ends(markers: tuple[Marker, ...]) -> dict[str, tuple[datetime | None, bool]]:
    """Per date-range ID: its end time when one is given (DURATION / END-DATE) and whether an IN was seen."""
    ends: dict[str, tuple[datetime | None, bool]] = {}
    for marker in markers:
        if marker.source != "daterange" or marker.daterange_id is None:
            continue
        attributes = _attributes(marker.line)
        end = _end_of(attributes, date_time(attributes.get("START-DATE", "")))
        previous = ends.get(marker.daterange_id, (None, False))
        ends[marker.daterange_id] = (end or previous[0], previous[1] or marker.kind == "in")
    return ends


def _out_break(marker: Marker, markers: tuple[Marker, ...], index: int,
               ends: dict[str, tuple[datetime | None, bool]], now: datetime,
               set_aside: _Reason) -> PlaylistBreak | None:
    """The break this out stands for, if credible and not over; None otherwise (reasons set aside)."""
    if marker.source == "daterange":
        attributes = _attributes(marker.line)
        if not marker.daterange_id:
            set_aside("a date range with SCTE35-OUT but no ID")
            return None
        if date_time(attributes.get("START-DATE", "")) is None:
            set_aside("a date range with SCTE35-OUT but no readable START-DATE")
            return None
        if not _HEX.fullmatch(attributes.get("SCTE35-OUT", "")):
            set_aside("a date range whose SCTE35-OUT is not a hexadecimal sequence")
            return None
    splice = marker.wall
    if splice is None:
        set_aside("a cue-out with no PROGRAM-DATE-TIME to place it")
        return None
    if (splice - now).total_seconds() > AHEAD_LIMIT_S:
        set_aside(f"a cue-out splicing more than {AHEAD_LIMIT_S:g} s after the console's clock")
        return None
    twins = [m for m in markers if m.kind == "out" and m.msn == marker.msn]
    planned_values = [m.planned_s for m in twins if m.planned_s is not None]
    if any(not 0 < value <= MAX_BREAK_S for value in planned_values):
        set_aside(f"a cue-out whose planned length is not between 0 and {MAX_BREAK_S:g} s")
        planned_values = [v for v in planned_values if 0 < v <= MAX_BREAK_S]
    planned = planned_values[0] if planned_values else None
    ended = any(m.kind == "in" and m.source == "cue" for m in markers[index + 1:])
    for twin in twins:
        if twin.daterange_id is not None and twin.daterange_id in ends:
            end, saw_in = ends[twin.daterange_id]
            ended = ended or saw_in or (end is not None and end <= now)
    if planned is None and (now - splice).total_seconds() > STALE_S:
        set_aside("a cue-out more than a day old with no planned length")
        return None
    return PlaylistBreak(splice, planned, ended, marker.line)


def _from_continuation(markers: tuple[Marker, ...], now: datetime, set_aside: _Reason) -> PlaylistBreak | None:
    """A break whose out scrolled out of the window: the last CUE-OUT-CONT after any cue-in places it."""
    last = next((m for m in reversed(markers) if m.kind in ("cont", "in") and m.source == "cue"), None)
    if last is None or last.kind != "cont":
        return None
    elapsed = _elapsed(last.line)
    if last.wall is None or elapsed is None or last.planned_s is None or not 0 < last.planned_s <= MAX_BREAK_S:
        set_aside("a CUE-OUT-CONT that does not say how far into which break it is")
        return None
    if elapsed > last.planned_s:
        set_aside("a CUE-OUT-CONT past its own duration")
        return None
    try:
        splice = last.wall - timedelta(seconds=elapsed)
    except OverflowError:
        return None
    if (splice - now).total_seconds() > AHEAD_LIMIT_S:
        set_aside(f"a CUE-OUT-CONT placing its break more than {AHEAD_LIMIT_S:g} s after the console's clock")
        return None
    # Whole milliseconds: the same break read again must be the same break, not one a rounding apart.
    splice = splice.replace(microsecond=splice.microsecond // 1000 * 1000)
    return PlaylistBreak(splice, last.planned_s, False, last.line)


def _attributes(line: str) -> dict[str, str]:
    return parse_attributes(line.partition(":")[2]) if len(line) <= MAX_LINE_CHARS else {}


def _end_of(attributes: dict[str, str], start: datetime | None) -> datetime | None:
    duration = attributes.get("DURATION", "")
    if start is not None and _NUMBER.fullmatch(duration):
        try:
            return start + timedelta(seconds=float(duration))
        except OverflowError:
            return None
    return date_time(attributes.get("END-DATE", ""))


def _elapsed(line: str) -> float | None:
    """ElapsedTime= of a CUE-OUT-CONT, or the `8.308/30` form's first number."""
    value = line.partition(":")[2] if len(line) <= MAX_LINE_CHARS else ""
    for item in value.split(","):
        name, _, number = item.partition("=")
        if name.strip() == "ElapsedTime" and _NUMBER.fullmatch(number.strip()):
            return float(number)
    first = value.partition("/")[0]
    if "/" in value and _NUMBER.fullmatch(first.strip()):
        return float(first)
    return None

"""The rules the server applies to a cue after answering 200, judged before the send from the break model.

OvenMediaEngine checks each marker after the API has already said 200 (`MarkerBox::CanInsertMarker`,
reference §2.6; the 0.19.0 log: "Duration of the marker must be greater than 9000.000000 ms"); a marker
that breaks one is only logged, never written. So the console judges them first, from the same
`BreakView` the countdown draws: a cue-out inside a break, a break not longer than 1.5 x the segment
duration, a cue-in with no break (the first marker must be an out), a cue-in before the splice, and
on the open source server a cue-in sooner than 1.5 segments after the splice. Each is a warning to
confirm: the command line refuses it (exit 8) unless `--force`. When the playlist could not be read
the check did not run, and that is said and confirmed the same way; so on a server that writes no
ad markers (open source 0.18-0.20), where a cue-in finds no break the console knows of: a break sent
from elsewhere is not in the playlist, so "no break on air" cannot be told from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from omeconsole.core.adops.ad_break import BreakState, BreakView
from omeconsole.core.adops.splice_cut import KEYFRAME_INTERVAL_S, hms
from omeconsole.model.server import MarkerCapability

RuleCode = Literal["no-break-on-air", "before-splice", "cue-in-too-soon", "break-outcome-unknown",
                   "break-already-on", "short-break", "check-not-run"]
SHORT_BREAK_FACTOR = 1.5
"""Servers ignore an out whose duration is not above 1.5 x the segment duration, and an in sooner than that
after the out (reference §2.6)."""


@dataclass(frozen=True)
class Facts:
    """What the rules are judged on: the break model, what the playlist told, the server, the moment."""

    view: BreakView
    playlist_known: bool
    """The playlist was read and its last read succeeded (so "no break" means no break)."""
    playlist_problem: str | None
    """Why it could not be read, when known."""
    segment_s: float | None
    markers: MarkerCapability
    now: datetime


@dataclass(frozen=True)
class Broken:
    code: RuleCode
    message: str


def cue_out_rules(facts: Facts, duration_s: float) -> list[Broken]:
    view = facts.view
    broken: list[Broken] = []
    if view.on_air_or_ahead or view.state is BreakState.SENT:
        broken.append(Broken("break-already-on", f"a break is already {_break_words(view)} on this stream: the "
                                                 "server drops a cue-out inside a break"))
    elif view.state is BreakState.UNKNOWN:
        broken.append(Broken("break-outcome-unknown", "the last cue-out's outcome is unknown: if it is on air, the "
                                                      "server drops a cue-out inside it"))
    elif not facts.playlist_known:
        broken.append(_not_checked(facts, "a break is already on air"))
    if facts.segment_s is not None and duration_s <= SHORT_BREAK_FACTOR * facts.segment_s:
        broken.append(Broken("short-break", f"the server drops a break of {duration_s:g} s: it must be longer than "
                                            f"{SHORT_BREAK_FACTOR:g} x the segment duration "
                                            f"({SHORT_BREAK_FACTOR * facts.segment_s:g} s)"))
    return broken


def cue_in_rules(facts: Facts) -> list[Broken]:
    view = facts.view
    if view.state is BreakState.ON_AIR:
        return _too_soon(facts)
    if view.state in (BreakState.SENT, BreakState.SCHEDULED):
        when = f" (splice at {hms(view.splice_wall)})" if view.splice_wall is not None else ""
        return [Broken("before-splice", f"the break has not spliced yet{when}: the server drops a cue-in that "
                                        "comes before its out")]
    if view.state is BreakState.UNKNOWN:
        return [Broken("break-outcome-unknown", "the cue-out's outcome is unknown: there may be no break on air")]
    if not facts.playlist_known:
        return [_not_checked(facts, "a break is on air")]
    if facts.markers.cuts_segment_only:
        # Its playlist shows no break, whoever sent it: "no break on air" would be a guess, maybe false.
        return [Broken("check-not-run", "whether an ad break is on air cannot be read on this server: it writes no "
                                        "ad markers, so a break sent from elsewhere cannot be seen — and so whether "
                                        "the server would drop this cue-in (outside a break) could not be checked")]
    unsure = (" (whether this server writes ad markers is not known yet: a break sent from elsewhere may not be "
              "seen)" if facts.markers.writing == "unknown" else "")
    return [Broken("no-break-on-air", "no ad break is on air on this stream: the server drops a cue-in outside a "
                                      f"break (its first marker must be an out){unsure}")]


def _too_soon(facts: Facts) -> list[Broken]:
    """The open source server's in lands a keyframe interval after the request, and must be 1.5 segments
    after the out (its `MarkerBox::CanInsertMarker`, reference §2.6). Judged only where that code runs: an
    Enterprise server (and the simulator's) writes an in any time after the out has spliced."""
    splice, segment = facts.view.splice_wall, facts.segment_s
    if splice is None or segment is None or not facts.markers.cuts_segment_only:
        return []
    earliest = splice + timedelta(seconds=SHORT_BREAK_FACTOR * segment - KEYFRAME_INTERVAL_S)
    if facts.now >= earliest:
        return []
    return [Broken("cue-in-too-soon", f"the server drops a cue-in less than {SHORT_BREAK_FACTOR * segment:g} s "
                                      f"({SHORT_BREAK_FACTOR:g} x the segment duration) after the splice at "
                                      f"{hms(splice)}: send it after {hms(earliest)}")]


def _not_checked(facts: Facts, question: str) -> Broken:
    why = f" ({facts.playlist_problem})" if facts.playlist_problem else ""
    return Broken("check-not-run", f"the stream's playlist could not be read{why}: whether {question} — and so "
                                   "whether the server would drop this cue — could not be checked")


def _break_words(view: BreakView) -> str:
    if view.state is BreakState.SENT:
        return "being sent"
    when = f"on air since {hms(view.splice_wall)}" if view.state is BreakState.ON_AIR and view.splice_wall else (
        f"scheduled for {hms(view.splice_wall)}" if view.splice_wall else "scheduled")
    until = f" until {hms(view.ends_wall)}" if view.ends_wall is not None else ""
    return when + until

"""Ad breaks from a stream's accepted `cue` events, under the real server's rules (DECISIONS.md
"Marker timing and rules"), and their SCTE-35 splice_insert payloads.

A splice lands on the first keyframe at least one keyframe interval after the request, so it is
always in the future when the request arrives: media already published never changes. An out ends by
itself (at the first keyframe at or after its planned end) unless an in ends it earlier. A marker
that breaks a rule is answered 200 by the API (as the real server does), listed here as a
Rejection for the log, and never written.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from threefive.encode import Cue, SpliceInsert

from simulator.media.model import VIDEO_TIMESCALE
from simulator.world.events import AcceptedEvent
from simulator.world.wire import CueEventSet

PTS_MODULO = 1 << 33
EVENT_ID_MODULO = 1 << 32
"""splice_event_id is 32 bits: the accepted event's sequence number wraps."""


@dataclass(frozen=True)
class Break:
    event_seq: int
    """The accepted out event's sequence number: the splice_event_id and the DATERANGE ID."""
    requested: int
    """90 kHz media time of the out request."""
    out_time: int
    """90 kHz media time of the splice out (a keyframe)."""
    in_time: int
    """90 kHz media time of the splice back in (a keyframe): automatic or from an in."""
    planned_ms: int

    @property
    def daterange_id(self) -> str:
        return f"splice-{self.event_seq}"

    @property
    def planned_end(self) -> int:
        """90 kHz media time at which the break would end by itself."""
        return self.out_time + self.planned_ms * (VIDEO_TIMESCALE // 1000)

    @property
    def duration_ms(self) -> int:
        return (self.in_time - self.out_time) * 1000 // VIDEO_TIMESCALE


@dataclass(frozen=True)
class Rejection:
    event_seq: int
    index: int
    """Position of the cue inside its event set."""
    reason: str


def media_ticks(accepted_ms: int, created_ms: int) -> int:
    """The stream's 90 kHz media time at a world-clock time."""
    return max(0, accepted_ms - created_ms) * (VIDEO_TIMESCALE // 1000)


def splice_time(request: int, keyframe_ticks: int) -> int:
    """The first keyframe at least one keyframe interval after `request`."""
    return -(-(request + keyframe_ticks) // keyframe_ticks) * keyframe_ticks


def plan_breaks(
    events: Iterable[AcceptedEvent], created_ms: int, *, keyframe_ticks: int, segment_duration: float,
    frame_ticks: int | None = None,
) -> tuple[tuple[Break, ...], tuple[Rejection, ...]]:
    """Every break the stream's cue events make, in order, and the cues refused by the rules.

    With `frame_ticks` (open source 0.18-0.20, cue_cuts.py) a cue takes effect at the request itself, at the
    start of the frame it falls in, and a break returns by itself exactly at its planned end; otherwise
    (Enterprise) on keyframes, the splice one keyframe interval after the request."""
    breaks: list[Break] = []
    rejected: list[Rejection] = []
    minimum_ms = 1.5 * segment_duration * 1000
    for event in events:
        if not isinstance(event.event_set, CueEventSet):
            continue
        request = media_ticks(event.accepted_ms, created_ms)
        splice = splice_time(request, keyframe_ticks) if frame_ticks is None else request // frame_ticks * frame_ticks
        for index, cue in enumerate(event.event_set.events):
            current = breaks[-1] if breaks and breaks[-1].in_time > request else None
            reason = None
            if cue.cueType == "out":
                planned = cue.duration or 0
                if current is not None:
                    reason = "an out inside a break is refused"
                elif planned <= minimum_ms:
                    reason = f"an out's duration must exceed 1.5 x segment duration ({minimum_ms:.0f} ms)"
                else:
                    ends = splice + planned * (VIDEO_TIMESCALE // 1000)
                    in_time = ends if frame_ticks is not None else -(-ends // keyframe_ticks) * keyframe_ticks
                    breaks.append(Break(event.seq, request, splice, in_time, planned))
            elif not breaks:
                reason = "first marker must be an out"
            elif current is None:
                reason = "an in needs a break in progress"
            elif splice <= current.out_time:
                reason = "an in must splice after the out"
            elif splice >= current.in_time:
                reason = "the break already ends before this in"
            else:
                breaks[-1] = Break(current.event_seq, current.requested, current.out_time, splice,
                                   current.planned_ms)
            if reason is not None:
                rejected.append(Rejection(event.seq, index, reason))
    return tuple(breaks), tuple(rejected)


@functools.lru_cache(maxsize=4096)
def scte35_out(event_id: int, out_time: int, planned_ms: int) -> str:
    """`0x` + uppercase hex of a splice_insert out (break_duration = the planned duration, auto-return)."""
    return _splice_insert(event_id, out_time, planned_ms)


@functools.lru_cache(maxsize=4096)
def scte35_in(event_id: int, in_time: int) -> str:
    """`0x` + uppercase hex of the matching splice_insert in (same splice_event_id)."""
    return _splice_insert(event_id, in_time, None)


def _splice_insert(event_id: int, ticks: int, planned_ms: int | None) -> str:
    """A program splice_insert at `ticks`, an out when it has a planned duration.

    Built field by field rather than with threefive's `mk_splice_insert`, which also writes the event
    id into the 16-bit unique_program_id (so no break could be written from the 65,536th event on)
    and takes a PTS of 0 for "splice immediately" (every 2^33 ticks, about 26.5 hours)."""
    command = SpliceInsert()
    command.splice_event_id = event_id % EVENT_ID_MODULO
    command.unique_program_id = event_id & 0xFFFF
    command.splice_event_cancel_indicator = False
    command.out_of_network_indicator = planned_ms is not None
    command.program_splice_flag = True
    command.splice_immediate_flag = False
    command.time_specified_flag = True
    command.pts_time = (ticks % PTS_MODULO) / VIDEO_TIMESCALE
    command.event_id_compliance_flag = True
    command.avail_num = 0
    command.avails_expected = 0
    command.duration_flag = planned_ms is not None
    if planned_ms is not None:
        command.break_auto_return = True
        command.break_duration = planned_ms / 1000
    cue = Cue()
    cue.command = command
    cue.encode()
    return _upper_hex(cue.hex())


def _upper_hex(value: str) -> str:
    return "0x" + value[2:].upper()

"""A stream's segments, parts, ad markers and ID3 placements as a pure function of its settings,
its start, its accepted events and the clock.

Media time 0 is the stream's `created_ms`; at world time `now` the media up to now exists. Segments
follow a grid of whole keyframe intervals from the start, cut additionally at every splice point (a
keyframe), so each segment lies wholly inside or outside a break. Parts follow a fixed pattern from
each segment start (see Layout), so they start on frames and every keyframe starts one: those are the
independent parts. Splices are always in the future when requested, so nothing already published
ever changes: parts and playlists can be built once and cached.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from omeconsole.api.wire import Id3EventSet
from simulator.media.asset import FRAME_TICKS
from simulator.media.id3 import build_tag, id3_tracks
from simulator.media.markers import Break, Rejection, media_ticks, plan_breaks, scte35_in, scte35_out
from simulator.media.model import VIDEO_TIMESCALE, CueTag, DateRange, Id3Placement, Part, Segment
from simulator.world.events import EventLog
from simulator.world.scenario import MediaSettings

TICKS_PER_MS = VIDEO_TIMESCALE // 1000


@dataclass(frozen=True)
class Layout:
    """Segment and part lengths in 90 kHz ticks, from the scenario's media settings.

    Parts follow a pattern that repeats from every segment start: below one keyframe interval, the
    interval is split into the fewest nearly equal whole-frame parts not longer than the part target
    (0.5 s: 15 + 15 frames; 0.3 s: 8 + 8 + 7 + 7), so every keyframe starts a part and no part is
    shorter than 85 % of the longest; from one interval up, whole intervals.
    """

    keyframe_ticks: int
    segment_ticks: int
    part_pattern: tuple[int, ...]
    segment_count: int
    segment_duration: float
    """As configured (the marker rule uses it)."""

    @classmethod
    def from_settings(cls, settings: MediaSettings) -> Layout:
        keyframe_frames = max(1, round(settings.keyframe_interval * VIDEO_TIMESCALE / FRAME_TICKS))
        segment_frames = keyframe_frames * max(1, round(settings.segment_duration / settings.keyframe_interval))
        wanted = max(1, int(settings.part_target * VIDEO_TIMESCALE / FRAME_TICKS + 1e-9))
        if wanted < keyframe_frames:
            count = -(-keyframe_frames // wanted)
            pattern = [keyframe_frames // count + (1 if i < keyframe_frames % count else 0) for i in range(count)]
        else:
            pattern = [min(segment_frames, keyframe_frames * (wanted // keyframe_frames))]
        return cls(keyframe_frames * FRAME_TICKS, segment_frames * FRAME_TICKS,
                   tuple(frames * FRAME_TICKS for frames in pattern), settings.segment_count,
                   settings.segment_duration)

    @property
    def part_ticks(self) -> int:
        """The longest part: PART-TARGET."""
        return max(self.part_pattern)

    @property
    def target_duration(self) -> int:
        return -(-self.segment_ticks // VIDEO_TIMESCALE)

    @property
    def part_target(self) -> float:
        return self.part_ticks / VIDEO_TIMESCALE

    @property
    def advance_part_limit(self) -> int:
        """How many parts past the newest one a blocking request may ask for (HLS spec: 3 s worth)."""
        return max(3, int(3 / self.part_target)) if self.part_target < 1 else 3

    def part_offset(self, index: int) -> int:
        """Start of part `index` relative to its segment's start."""
        period = sum(self.part_pattern)
        rounds, position = divmod(index, len(self.part_pattern))
        return rounds * period + sum(self.part_pattern[:position])

    def parts_done(self, elapsed: int) -> int:
        """How many parts of a segment are complete `elapsed` ticks after its start (ignoring its end)."""
        period = sum(self.part_pattern)
        rounds, rest = divmod(elapsed, period)
        done = rounds * len(self.part_pattern)
        for length in self.part_pattern:
            if rest < length:
                break
            rest -= length
            done += 1
        return done


@dataclass(frozen=True)
class Plan:
    """What a stream's accepted events make of it (recomputed only when events arrive)."""

    event_count: int
    breaks: tuple[Break, ...]
    rejections: tuple[Rejection, ...]
    id3: tuple[Id3Placement, ...]
    cuts: tuple[int, ...]
    """Segment boundaries added by splices (off the regular grid), sorted."""


@dataclass(frozen=True)
class Snapshot:
    """The stream at one moment: the segments a playlist lists, and where the live edge is."""

    segments: tuple[Segment, ...]
    """Earlier segments that announced a date range still covering the window, then the window: up
    to `segment_count` complete segments and the segment in progress. The segment in progress is
    listed from its first moment (its markers and PROGRAM-DATE-TIME before the PRELOAD-HINT of its
    first part), so a marker at a splice is visible as soon as the splice happens."""
    window_start: int
    """Index in `segments` of the first segment of the window."""
    last_msn: int
    last_part: int
    """The newest complete part (-1, -1 before the first part completes)."""
    hint: tuple[int, int]
    """(msn, index) of the next part: the PRELOAD-HINT."""
    event_count: int

    @property
    def window(self) -> tuple[Segment, ...]:
        return self.segments[self.window_start:]


class StreamTimeline:
    """The timeline of one stream; holds only its derived plan, keyed by how many events it has seen."""

    def __init__(self, layout: Layout, created_ms: int, events: EventLog) -> None:
        self.layout = layout
        self.created_ms = created_ms
        self.events = events
        self._plan = Plan(-1, (), (), (), ())

    def plan(self) -> Plan:
        count = len(self.events.events)
        if count != self._plan.event_count:
            self._plan = self._make_plan(count)
        return self._plan

    def _make_plan(self, count: int) -> Plan:
        events = self.events.events[:count]
        breaks, rejections = plan_breaks(events, self.created_ms, keyframe_ticks=self.layout.keyframe_ticks,
                                         segment_duration=self.layout.segment_duration)
        placements = tuple(
            Id3Placement(e.seq, media_ticks(e.accepted_ms, self.created_ms), tag, id3_tracks(e.event_set))
            for e in events if isinstance(e.event_set, Id3EventSet)
            if (tag := build_tag(e.event_set)) is not None  # None: cannot be encoded (logged), left out
        )
        seg = self.layout.segment_ticks
        cuts = sorted({t for b in breaks for t in (b.out_time, b.in_time) if t % seg})
        return Plan(count, breaks, rejections, placements, tuple(cuts))

    # -- time ------------------------------------------------------------------------------------

    def ticks_at(self, now_ms: int) -> int:
        return media_ticks(now_ms, self.created_ms)

    def wall_ms(self, ticks: int) -> int:
        """The world time at which media time `ticks` has been produced (rounded up to a millisecond)."""
        return self.created_ms + -(-ticks // TICKS_PER_MS)

    # -- segment arithmetic ----------------------------------------------------------------------

    def boundary(self, msn: int) -> int:
        """Start of segment `msn`: the msn-th point of the grid merged with the splice cuts."""
        seg = self.layout.segment_ticks
        used = 0
        for cut in self.plan().cuts:
            before = -(-cut // seg) + used
            if before > msn:
                break
            if before == msn:
                return cut
            used += 1
        return (msn - used) * seg

    def msn_at(self, ticks: int) -> int:
        cuts = self.plan().cuts
        return ticks // self.layout.segment_ticks + bisect.bisect_right(cuts, ticks)

    def part_bounds(self, msn: int, index: int) -> tuple[int, int] | None:
        """[start, end) of part `index` of segment `msn`, or None if the segment has no such part."""
        if msn < 0 or index < 0:
            return None
        start, end = self.boundary(msn), self.boundary(msn + 1)
        part_start = start + self.layout.part_offset(index)
        if part_start >= end:
            return None
        length = self.layout.part_pattern[index % len(self.layout.part_pattern)]
        return part_start, min(end, part_start + length)

    def part_count(self, msn: int) -> int:
        """Parts of segment `msn` (its last one may be cut short by a splice)."""
        length = self.boundary(msn + 1) - self.boundary(msn)
        done = self.layout.parts_done(length)
        return done + (1 if self.layout.part_offset(done) < length else 0)

    def part_end(self, msn: int, index: int) -> int:
        """Media time when part (msn, index) is complete; an index past the segment means the next
        segment's first part (the blocking-reload rule)."""
        bounds = self.part_bounds(msn, index)
        if bounds is None:
            bounds = self.part_bounds(msn + 1, 0)
        assert bounds is not None
        return bounds[1]

    # -- segments --------------------------------------------------------------------------------

    def segment(self, msn: int, now_ticks: int) -> Segment:
        """Segment `msn` as far as it exists at `now_ticks` (only complete parts)."""
        plan = self.plan()
        start, end = self.boundary(msn), self.boundary(msn + 1)
        parts: list[Part] = []
        part_start = start
        pattern = self.layout.part_pattern
        while part_start < end:
            part_end = min(end, part_start + pattern[len(parts) % len(pattern)])
            if part_end > now_ticks:
                break
            parts.append(Part(msn, len(parts), part_start, part_end, part_start % self.layout.keyframe_ticks == 0))
            part_start = part_end
        return Segment(
            msn=msn, start=start, end=end, start_wall_ms=self.created_ms + start // TICKS_PER_MS,
            parts=tuple(parts), complete=end <= now_ticks,
            cues=self._cues(plan.breaks, start), dateranges=self._dateranges(plan.breaks, start, end),
            id3=tuple(p for p in plan.id3 if start <= p.media_time < end),
        )

    def _cues(self, breaks: tuple[Break, ...], start: int) -> tuple[CueTag, ...]:
        for b in breaks:
            if b.out_time == start:
                return (CueTag("out", b.event_seq, b.planned_ms),)
            if b.in_time == start:
                return (CueTag("in", b.event_seq, b.planned_ms),)
            if b.out_time < start < b.in_time:
                return (CueTag("cont", b.event_seq, b.planned_ms, (start - b.out_time) // TICKS_PER_MS),)
        return ()

    def _dateranges(self, breaks: tuple[Break, ...], start: int, end: int) -> tuple[DateRange, ...]:
        """The out range is announced with the segment in progress at the request; the in range
        (with the real DURATION) with the first segment after the break."""
        ranges = []
        for b in breaks:
            start_wall = self.created_ms + b.out_time // TICKS_PER_MS
            if start <= b.requested < end:
                ranges.append(DateRange(b.daterange_id, start_wall, planned_ms=b.planned_ms,
                                        scte35_out=scte35_out(b.event_seq, b.out_time, b.planned_ms)))
            if b.in_time == start:
                ranges.append(DateRange(b.daterange_id, start_wall, duration_ms=b.duration_ms,
                                        scte35_in=scte35_in(b.event_seq, b.in_time)))
        return tuple(ranges)

    # -- snapshot --------------------------------------------------------------------------------

    def snapshot(self, now_ms: int) -> Snapshot:
        plan = self.plan()
        now = self.ticks_at(now_ms)
        current = self.segment(self.msn_at(now), now)
        first = max(0, current.msn - self.layout.segment_count)
        window = [self.segment(msn, now) for msn in range(first, current.msn + 1)]
        listed = [part for segment in window[-2:] for part in segment.parts]
        last_msn, last_part = (listed[-1].msn, listed[-1].index) if listed else (-1, -1)
        hint = (current.msn, len(current.parts))
        window_start_ticks = self.boundary(first)
        older_msns = sorted({
            msn
            for b in plan.breaks if b.in_time > window_start_ticks
            for msn in (self.msn_at(b.requested), self.msn_at(b.in_time))
            if msn < first and b.requested < now
        })
        older = [self.segment(msn, now) for msn in older_msns]
        return Snapshot(tuple(older + window), len(older), last_msn, last_part, hint, plan.event_count)

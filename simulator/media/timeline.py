"""A stream's segments, parts, ad markers and ID3 placements as a pure function of its settings,
its start, its accepted events and the clock.

Media time 0 is the stream's `created_ms`; at world time `now` the media up to now exists. Segments
follow a grid of whole keyframe intervals from the start, cut additionally at every splice point (a
keyframe), so each segment lies wholly inside or outside a break. Each track cuts the same segments on
its own access units and splits them into parts of whole access units (see layout.py): segment `msn`
of the audio starts on the first AAC frame at or after the video's keyframe, so both tracks number
their segments alike and a marker is written on the same segment of both. Splices are always in the
future when requested, so nothing already published ever changes: parts and playlists can be built
once and cached.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from simulator.media.asset import FRAME_TICKS
from simulator.media.cue_cuts import CueSegmentation, Cut
from simulator.media.id3 import build_tag, id3_tracks
from simulator.media.layout import Layout
from simulator.media.markers import Break, Rejection, media_ticks, plan_breaks, scte35_in, scte35_out
from simulator.media.model import VIDEO_TIMESCALE, CueTag, DateRange, Id3Placement, Part, Segment, TrackKind
from simulator.world.edition import ENTERPRISE, ServerProfile
from simulator.world.events import EventLog
from simulator.world.wire import Id3EventSet

TICKS_PER_MS = VIDEO_TIMESCALE // 1000


@dataclass(frozen=True)
class Plan:
    """What a stream's accepted events make of it (recomputed only when events arrive)."""

    event_count: int
    breaks: tuple[Break, ...]
    rejections: tuple[Rejection, ...]
    id3: tuple[Id3Placement, ...]
    cuts: tuple[int, ...]
    """Segment boundaries added by splices (off the regular grid), sorted."""
    segmentation: CueSegmentation | None = None
    """Open source 0.18-0.20: the boundaries their cue cuts make (cue_cuts.py), instead of `cuts`."""


@dataclass(frozen=True)
class Snapshot:
    """One track of the stream at one moment: the segments its playlist lists, and where the live edge is."""

    segments: tuple[Segment, ...]
    """Earlier segments that announced a date range still covering the window, then the window: up
    to `segment_count` complete segments and the segment in progress. The segment in progress is
    listed from its first moment (its markers and PROGRAM-DATE-TIME before the PRELOAD-HINT of its
    first part), so a marker at a splice is visible as soon as the splice happens."""
    window_start: int
    """Index in `segments` of the first segment of the window."""
    last: tuple[int, int]
    """(msn, index) of the newest complete part ((-1, -1) before the first part completes)."""
    hint: tuple[int, int]
    """(msn, index) of the next part: the PRELOAD-HINT."""
    report: tuple[int, int]
    """The other track's newest complete part, for the RENDITION-REPORT."""
    event_count: int

    @property
    def last_msn(self) -> int:
        return self.last[0]

    @property
    def window(self) -> tuple[Segment, ...]:
        return self.segments[self.window_start:]


class StreamTimeline:
    """The timeline of one stream; holds only its derived plan, keyed by how many events it has seen."""

    def __init__(self, layout: Layout, created_ms: int, events: EventLog, profile: ServerProfile = ENTERPRISE) -> None:
        self.layout = layout
        self.created_ms = created_ms
        self.events = events
        self.profile = profile
        self._plan = Plan(-1, (), (), (), ())

    def plan(self) -> Plan:
        count = len(self.events.events)
        if count != self._plan.event_count:
            self._plan = self._make_plan(count)
        return self._plan

    def _make_plan(self, count: int) -> Plan:
        events = self.events.events[:count]
        cut_at_cue = self.profile.cuts_segment_at_cue
        breaks, rejections = plan_breaks(events, self.created_ms, keyframe_ticks=self.layout.keyframe_ticks,
                                         segment_duration=self.layout.segment_duration,
                                         frame_ticks=FRAME_TICKS if cut_at_cue else None)
        placements = tuple(
            Id3Placement(e.seq, media_ticks(e.accepted_ms, self.created_ms), tag, id3_tracks(e.event_set))
            for e in events if isinstance(e.event_set, Id3EventSet)
            if (tag := build_tag(e.event_set)) is not None  # None: cannot be encoded (logged), left out
        )
        if cut_at_cue:
            return Plan(count, breaks, rejections, placements, (), self._cue_segmentation(breaks))
        seg = self.layout.segment_ticks
        cuts = sorted({t for b in breaks for t in (b.out_time, b.in_time) if t % seg})
        return Plan(count, breaks, rejections, placements, tuple(cuts))

    def _cue_segmentation(self, breaks: tuple[Break, ...]) -> CueSegmentation:
        cuts = [Cut(b.out_time, "out") for b in breaks]
        cuts += [Cut(b.in_time, "in") for b in breaks if b.in_time < b.planned_end]
        cuts += [Cut(b.planned_end, "return") for b in breaks]
        layout = self.layout
        return CueSegmentation(cuts, segment_ticks=layout.segment_ticks, keyframe_ticks=layout.keyframe_ticks,
                               part_ticks=layout.grid("video").part_ticks)

    # -- time ------------------------------------------------------------------------------------

    def ticks_at(self, now_ms: int) -> int:
        return media_ticks(now_ms, self.created_ms)

    def wall_ms(self, ticks: int) -> int:
        """The world time at which media time `ticks` has been produced (rounded up to a millisecond)."""
        return self.created_ms + -(-ticks // TICKS_PER_MS)

    # -- segment arithmetic ----------------------------------------------------------------------

    def boundary(self, msn: int) -> int:
        """Start of segment `msn`: the msn-th point of the grid merged with the splice cuts."""
        segmentation = self.plan().segmentation
        if segmentation is not None:
            return segmentation.boundary(msn)
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

    def track_boundary(self, msn: int, track: TrackKind = "video") -> int:
        """Start of segment `msn` in `track`: its first access unit at or after the boundary."""
        return self.layout.grid(track).align(self.boundary(msn))

    def msn_at(self, ticks: int, track: TrackKind = "video") -> int:
        """The segment of `track` in progress at media time `ticks`."""
        plan = self.plan()
        if plan.segmentation is not None:
            msn = plan.segmentation.msn_at(ticks)
        else:
            msn = ticks // self.layout.segment_ticks + bisect.bisect_right(plan.cuts, ticks)
        return msn - 1 if ticks < self.track_boundary(msn, track) else msn

    def part_bounds(self, msn: int, index: int, track: TrackKind = "video") -> tuple[int, int] | None:
        """[start, end) of part `index` of segment `msn`, or None if the segment has no such part."""
        if msn < 0 or index < 0:
            return None
        grid = self.layout.grid(track)
        start, end = self.track_boundary(msn, track), self.track_boundary(msn + 1, track)
        part_start = start + grid.part_offset(index)
        if part_start >= end:
            return None
        return part_start, min(end, part_start + grid.part_pattern[index % len(grid.part_pattern)])

    def part_count(self, msn: int, track: TrackKind = "video") -> int:
        """Parts of segment `msn` (its last one may be shorter: a splice, or what is left of the audio)."""
        grid = self.layout.grid(track)
        length = self.track_boundary(msn + 1, track) - self.track_boundary(msn, track)
        done = grid.parts_done(length)
        return done + (1 if grid.part_offset(done) < length else 0)

    def part_end(self, msn: int, index: int, track: TrackKind = "video") -> int:
        """Media time when part (msn, index) is complete; an index past the segment means the next
        segment's first part (the blocking-reload rule)."""
        bounds = self.part_bounds(msn, index, track)
        if bounds is None:
            bounds = self.part_bounds(msn + 1, 0, track)
        assert bounds is not None
        return bounds[1]

    def last_part(self, now_ticks: int, track: TrackKind = "video") -> tuple[int, int]:
        """(msn, index) of the newest complete part of `track`; (-1, -1) before the first one."""
        msn = self.msn_at(now_ticks, track)
        done = self.layout.grid(track).parts_done(now_ticks - self.track_boundary(msn, track))
        if done:
            return msn, done - 1
        return (msn - 1, self.part_count(msn - 1, track) - 1) if msn > 0 else (-1, -1)

    # -- segments --------------------------------------------------------------------------------

    def segment(self, msn: int, now_ticks: int, track: TrackKind = "video") -> Segment:
        """Segment `msn` of `track` as far as it exists at `now_ticks` (only complete parts). Markers
        and ID3 follow the stream's boundaries, so both tracks carry them on the same segment."""
        plan = self.plan()
        grid = self.layout.grid(track)
        start, end = self.track_boundary(msn, track), self.track_boundary(msn + 1, track)
        parts: list[Part] = []
        part_start = start
        while part_start < end:
            part_end = min(end, part_start + grid.part_pattern[len(parts) % len(grid.part_pattern)])
            if part_end > now_ticks:
                break
            independent = grid.every_part_independent or part_start % self.layout.keyframe_ticks == 0
            parts.append(Part(msn, len(parts), part_start, part_end, independent))
            part_start = part_end
        stream_start, stream_end = self.boundary(msn), self.boundary(msn + 1)
        tags = self.profile.writes_marker_tags
        return Segment(
            msn=msn, start=start, end=end, start_wall_ms=self.created_ms + start // TICKS_PER_MS,
            parts=tuple(parts), complete=end <= now_ticks,
            cues=self._cues(plan.breaks, stream_start) if tags else (),
            dateranges=self._dateranges(plan.breaks, stream_start, stream_end) if tags else (),
            id3=tuple(p for p in plan.id3 if stream_start <= p.media_time < stream_end),
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

    def snapshot(self, now_ms: int, track: TrackKind = "video") -> Snapshot:
        plan = self.plan()
        now = self.ticks_at(now_ms)
        current = self.segment(self.msn_at(now, track), now, track)
        first = max(0, current.msn - self.layout.segment_count)
        window = [self.segment(msn, now, track) for msn in range(first, current.msn + 1)]
        window_start_ticks = self.boundary(first)
        older_msns = sorted({
            msn
            for b in plan.breaks if b.in_time > window_start_ticks and self.profile.writes_marker_tags
            for msn in (self.msn_at(b.requested), self.msn_at(b.in_time))
            if msn < first and b.requested < now
        })
        older = [self.segment(msn, now, track) for msn in older_msns]
        other: TrackKind = "audio" if track == "video" else "video"
        return Snapshot(tuple(older + window), len(older), self.last_part(now, track),
                        (current.msn, len(current.parts)), self.last_part(now, other), plan.event_count)

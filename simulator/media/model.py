"""The shapes the media modules pass between them: samples, segments, parts, markers and ID3 placements.

A stream's media is a pure function of (settings, stream start, accepted events, now): the timeline
computes Segments from those, and the packagers (fMP4 for LL-HLS, MPEG-TS for HLS) and playlist
writers turn Segments into bytes. Every time here is on the media timeline in 90 kHz ticks unless a
name says otherwise; `wall_ms` values are Unix milliseconds of the world clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

VIDEO_TIMESCALE = 90_000
AUDIO_TIMESCALE = 48_000
TrackKind = Literal["video", "audio"]


@dataclass(frozen=True)
class MediaSample:
    """One access unit on a continuous timeline (already re-timed past the asset's loop point)."""

    decode_time: int
    """In the track's timescale (90 kHz video, 48 kHz audio)."""
    duration: int
    keyframe: bool
    data: bytes
    """Video: AVCC, NAL units each with a 4-byte big-endian length. Audio: one raw AAC frame (no ADTS)."""


@dataclass(frozen=True)
class CueTag:
    """An ad-marker line to write before a segment (and before its first part)."""

    kind: Literal["out", "cont", "in"]
    break_id: int
    planned_ms: int
    """The break's planned duration (the cue-out's duration)."""
    elapsed_ms: int = 0
    """For `cont`: time from the splice to this segment's start."""


@dataclass(frozen=True)
class DateRange:
    """One EXT-X-DATERANGE line of a break (out: START-DATE, PLANNED-DURATION, SCTE35-OUT;
    in: START-DATE, DURATION, SCTE35-IN), identical in every playlist of the stream."""

    id: str
    start_wall_ms: int
    planned_ms: int | None = None
    duration_ms: int | None = None
    scte35_out: str | None = None
    scte35_in: str | None = None
    """Both payloads as `0x` + uppercase hex of a splice_info_section."""


@dataclass(frozen=True)
class Id3Placement:
    """An accepted id3v2 event set: one ID3v2.4 tag placed at the stream time it was accepted."""

    event_seq: int
    media_time: int
    """90 kHz media time of the event (its PTS)."""
    tag: bytes
    tracks: frozenset[TrackKind]
    """Which fMP4 tracks carry its emsg (eventType video / audio / event = both)."""


@dataclass(frozen=True)
class Part:
    msn: int
    index: int
    start: int
    end: int
    independent: bool
    """Starts with a video keyframe."""

    @property
    def duration_s(self) -> float:
        return (self.end - self.start) / VIDEO_TIMESCALE


@dataclass(frozen=True)
class Segment:
    msn: int
    start: int
    end: int
    start_wall_ms: int
    """PROGRAM-DATE-TIME of the segment."""
    parts: tuple[Part, ...]
    complete: bool
    """False for the segment still being produced (its EXTINF is not written yet)."""
    cues: tuple[CueTag, ...] = ()
    dateranges: tuple[DateRange, ...] = ()
    """Date ranges first announced with this segment."""
    id3: tuple[Id3Placement, ...] = field(default=())

    @property
    def duration_s(self) -> float:
        return (self.end - self.start) / VIDEO_TIMESCALE

"""How a stream is cut into segments and parts, per track, from the scenario's media settings.

Segments follow a grid of whole keyframe intervals (plus the splice cuts the timeline adds); each
track cuts them on its own access units: a video segment starts on the keyframe at the boundary, an
audio segment on the first AAC frame that starts at or after it. Parts follow a fixed pattern from
every segment start, in whole access units, never longer than PART-TARGET (the longest video part):

- video: below one keyframe interval, the interval is split into the fewest nearly equal whole-frame
  parts (0.5 s: 15 + 15 frames; 0.3 s: 8 + 8 + 7 + 7), so every keyframe starts a part and no part is
  shorter than 85 % of the longest; from one interval up, whole intervals;
- audio: as many whole AAC frames as fit PART-TARGET (0.5 s: 23 frames, 0.490667 s), or, as the captured
  0.19.0 cuts them (`audio_parts_cross_target`), up to the frame that reaches it (24 frames, 0.512 s); the
  last part of a segment holds what is left. Every AAC frame is independent, so every audio part is an
  independent part.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.media.asset import AUDIO_FRAME_TICKS_90K, FRAME_TICKS
from simulator.media.model import VIDEO_TIMESCALE, TrackKind
from simulator.world.scenario import MediaSettings


@dataclass(frozen=True)
class TrackGrid:
    """One track's cutting rule, in 90 kHz ticks."""

    unit: int
    """One access unit (a video frame, an AAC frame): segment starts round up to a multiple of it."""
    part_pattern: tuple[int, ...]
    """Part lengths from a segment start, repeated."""
    every_part_independent: bool
    """True for audio; video parts are independent when they start on a keyframe."""

    def align(self, ticks: int) -> int:
        """The first access-unit start at or after `ticks`."""
        return -(-ticks // self.unit) * self.unit

    @property
    def part_ticks(self) -> int:
        return max(self.part_pattern)

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
class Layout:
    """Segment and part lengths in 90 kHz ticks (see the module doc)."""

    keyframe_ticks: int
    segment_ticks: int
    video: TrackGrid
    audio: TrackGrid
    segment_count: int
    segment_duration: float
    """As configured (the marker rule uses it)."""

    @classmethod
    def from_settings(cls, settings: MediaSettings, *, audio_parts_cross_target: bool = False) -> Layout:
        """`audio_parts_cross_target`: an audio part ends on the AAC frame that reaches PART-TARGET (the captured
        0.19.0: 22 frames at 44.1 kHz, 0.511 s) rather than on the last one that fits in it."""
        keyframe_frames = max(1, round(settings.keyframe_interval * VIDEO_TIMESCALE / FRAME_TICKS))
        segment_frames = keyframe_frames * max(1, round(settings.segment_duration / settings.keyframe_interval))
        wanted = max(1, int(settings.part_target * VIDEO_TIMESCALE / FRAME_TICKS + 1e-9))
        if wanted < keyframe_frames:
            count = -(-keyframe_frames // wanted)
            pattern = [keyframe_frames // count + (1 if i < keyframe_frames % count else 0) for i in range(count)]
        else:
            pattern = [min(segment_frames, keyframe_frames * (wanted // keyframe_frames))]
        video = TrackGrid(FRAME_TICKS, tuple(frames * FRAME_TICKS for frames in pattern), False)
        audio_frames = max(1, (-(-video.part_ticks // AUDIO_FRAME_TICKS_90K) if audio_parts_cross_target
                               else video.part_ticks // AUDIO_FRAME_TICKS_90K))
        audio = TrackGrid(AUDIO_FRAME_TICKS_90K, (audio_frames * AUDIO_FRAME_TICKS_90K,), True)
        return cls(keyframe_frames * FRAME_TICKS, segment_frames * FRAME_TICKS, video, audio,
                   settings.segment_count, settings.segment_duration)

    def grid(self, track: TrackKind) -> TrackGrid:
        return self.video if track == "video" else self.audio

    @property
    def part_pattern(self) -> tuple[int, ...]:
        """The video part pattern."""
        return self.video.part_pattern

    @property
    def part_ticks(self) -> int:
        """The longest part of any track: PART-TARGET (a video part; audio parts fit inside it)."""
        return max(self.video.part_ticks, self.audio.part_ticks)

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

"""The timeline under other media settings, checked through the rendered chunklist with m3u8: part
and segment lengths follow the scenario, parts never exceed PART-TARGET, every segment starts with an
independent part, and the marker rules of DECISIONS.md hold for any segment duration."""

from __future__ import annotations

from typing import Literal

import m3u8
import pytest

from simulator.media.hls_playlist import render_media_playlist
from simulator.media.layout import Layout
from simulator.media.llhls_playlist import chunklist
from simulator.media.markers import plan_breaks
from simulator.media.timeline import StreamTimeline
from simulator.world.events import AcceptedEvent, EventLog
from simulator.world.scenario import MediaSettings
from simulator.world.wire import CueEvent, CueEventSet

CREATED_MS = 1_767_225_600_000


def _playlist(settings: MediaSettings, seconds: float, events: EventLog | None = None,
              track: Literal["video", "audio"] = "video") -> m3u8.M3U8:
    layout = Layout.from_settings(settings)
    timeline = StreamTimeline(layout, CREATED_MS, events or EventLog())
    snapshot = timeline.snapshot(CREATED_MS + round(seconds * 1000), track)
    return m3u8.loads(chunklist(snapshot, layout, track, "abcdefgh"))


@pytest.mark.parametrize(("part_target", "segment", "expected_part", "expected_segment"), [
    (0.5, 6.0, 0.5, 6.0), (0.3, 4.0, 8 / 30, 4.0), (0.4, 6.0, 1 / 3, 6.0), (0.2, 2.5, 0.2, 2.0),
    (2.0, 6.0, 2.0, 6.0), (1.0, 1.0, 1.0, 1.0),
])
def test_parts_and_segments_follow_the_settings(part_target: float, segment: float, expected_part: float,
                                                 expected_segment: float) -> None:
    settings = MediaSettings(part_target=part_target, segment_duration=segment, segment_count=5)
    playlist = _playlist(settings, 40.2)
    assert playlist.part_inf.part_target == pytest.approx(expected_part, abs=1e-6)
    assert playlist.target_duration == round(expected_segment + 0.49)
    assert playlist.server_control.part_hold_back >= 3 * playlist.part_inf.part_target - 1e-6
    complete = [s for s in playlist.segments if s.duration is not None]
    assert len(complete) == 5
    assert all(s.duration == pytest.approx(expected_segment) for s in complete)
    parts = [p for s in playlist.segments for p in s.parts]
    assert parts and all(p.duration <= playlist.part_inf.part_target + 1e-6 for p in parts)
    for s in playlist.segments:
        if s.parts:
            assert s.parts[0].independent == "YES"
            # every part but the last of a segment is at least 85 % of the target
            assert all(p.duration >= 0.85 * playlist.part_inf.part_target for p in s.parts[:-1])
    sequence = [(int(p.uri.split("_")[2]), int(p.uri.split("_")[3])) for p in parts]
    assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)


@pytest.mark.parametrize(("part_target", "segment", "frames"), [
    (0.5, 6.0, 23), (0.3, 4.0, 12), (0.4, 6.0, 15), (0.2, 2.5, 9), (2.0, 6.0, 93), (1.0, 1.0, 46),
])
def test_audio_parts_are_whole_aac_frames_within_the_part_target(part_target: float, segment: float,
                                                                  frames: int) -> None:
    """As many whole AAC frames (1024 / 48 kHz) as fit PART-TARGET, the rest of a segment in its last part,
    every part independent; the audio numbers its segments as the video does and states their real length."""
    settings = MediaSettings(part_target=part_target, segment_duration=segment, segment_count=5)
    audio, video = (_playlist(settings, 40.2, track=track) for track in ("audio", "video"))
    aac = 1024 / 48_000
    assert audio.part_inf.part_target == video.part_inf.part_target
    with_parts = [s for s in audio.segments if s.parts]
    assert len(with_parts) >= 2  # the newest three list theirs (the one in progress may have none yet)
    for s in with_parts:
        assert all(p.independent == "YES" for p in s.parts)
        assert all(p.duration <= audio.part_inf.part_target for p in s.parts)
        assert all(p.duration == pytest.approx(frames * aac, abs=1e-6) for p in s.parts[:-1])
        assert all(round(p.duration / aac, 3) == round(p.duration / aac) for p in s.parts)
        if s.duration is not None:
            assert sum(p.duration for p in s.parts) == pytest.approx(s.duration, abs=1e-5)
    assert audio.media_sequence == video.media_sequence and len(audio.segments) == len(video.segments)
    for a, v in zip(audio.segments, video.segments, strict=True):
        if a.duration is not None:
            assert abs(a.duration - v.duration) < aac  # each starts within one AAC frame of its keyframe


def _cue(seq: int, at_ms: int, cue_type: Literal["out", "in"], duration: int | None = None) -> AcceptedEvent:
    return AcceptedEvent(seq, CREATED_MS + at_ms, CueEventSet(events=[CueEvent(cueType=cue_type, duration=duration)]),
                         {})


@pytest.mark.parametrize("segment", [2.0, 6.0, 10.0])
def test_marker_rules_scale_with_the_segment_duration(segment: float) -> None:
    minimum = int(1.5 * segment * 1000)
    events = [_cue(1, 1_000, "out", minimum), _cue(2, 2_000, "out", minimum + 1), _cue(3, 3_000, "out", 60_000)]
    breaks, rejected = plan_breaks(events, CREATED_MS, keyframe_ticks=90_000, segment_duration=segment)
    assert [b.event_seq for b in breaks] == [2]
    assert [r.event_seq for r in rejected] == [1, 3]
    assert "1.5 x segment duration" in rejected[0].reason and "inside a break" in rejected[1].reason
    (only,) = breaks
    assert only.out_time == 3 * 90_000  # the first keyframe at least 1 s after the request at 2.0 s
    assert only.in_time == -(-(only.out_time + (minimum + 1) * 90) // 90_000) * 90_000  # next keyframe


def test_a_splice_cuts_a_long_part_and_its_segment() -> None:
    layout = Layout.from_settings(MediaSettings(part_target=2.0))
    events = EventLog()
    events.append(_cue(1, 1_500, "out", 20_000))  # splice at 3 s (first keyframe >= 2.5 s)
    timeline = StreamTimeline(layout, CREATED_MS, events)
    assert layout.part_pattern == (180_000,)
    assert [timeline.boundary(msn) for msn in range(7)] == [0, 270_000, 540_000, 1_080_000, 1_620_000, 2_070_000,
                                                            2_160_000]  # 0, 3 (out), 6, 12, 18, 23 (in), 24 s
    assert timeline.part_count(0) == 2 and timeline.part_bounds(0, 1) == (180_000, 270_000)
    assert timeline.part_bounds(1, 0) == (270_000, 450_000)
    assert timeline.msn_at(269_999) == 0 and timeline.msn_at(270_000) == 1


def test_a_date_range_stays_while_its_break_covers_the_window() -> None:
    settings = MediaSettings(segment_count=3)
    layout = Layout.from_settings(settings)
    events = EventLog()
    events.append(_cue(1, 1_000, "out", 60_000))  # splice at 2 s, back at 62 s
    timeline = StreamTimeline(layout, CREATED_MS, events)

    def ranges(seconds: float) -> tuple[list[str], list[str]]:
        snapshot = timeline.snapshot(CREATED_MS + round(seconds * 1000))
        llhls = chunklist(snapshot, layout, "video", "abcdefgh")
        hls = render_media_playlist(snapshot.segments, variant="v", segment_count=3, target_duration=6)
        return ([line for line in llhls.splitlines() if line.startswith("#EXT-X-DATERANGE")],
                [line for line in hls.splitlines() if line.startswith("#EXT-X-DATERANGE")])

    llhls, hls = ranges(50.0)  # the window (30-50 s) no longer holds the segment that announced the out
    assert m3u8.loads(chunklist(timeline.snapshot(CREATED_MS + 50_000), layout, "video", "k")).media_sequence > 0
    assert len(llhls) == 1 and "SCTE35-OUT" in llhls[0] and llhls == hls
    llhls, hls = ranges(70.0)  # the in (62 s) is in the window: both tags, one id
    assert len(llhls) == 2 and "DURATION=60.000" in llhls[1] and llhls == hls
    llhls, hls = ranges(100.0)  # the whole break left the window
    assert llhls == [] and hls == []

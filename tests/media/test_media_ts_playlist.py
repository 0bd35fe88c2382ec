"""HLSv3 playlists: parsed with the `m3u8` library, SCTE-35 payloads decoded with threefive, and the
exact tag lines DECISIONS.md prescribes checked as text."""

from __future__ import annotations

import re

import m3u8
import pytest
import threefive
from threefive.encode import mk_splice_insert

from simulator.media.hls_playlist import (
    TsVariant,
    codecs_attribute,
    daterange_line,
    media_playlist_name,
    parse_media_playlist_name,
    parse_segment_file_name,
    render_media_playlist,
    render_multivariant_playlist,
    segment_file_name,
)
from simulator.media.model import CueTag, DateRange, Part, Segment

T0_MS = 1_700_000_000_000
SEGMENT_MS = 6000
TICKS = 90


def _hex(cue: threefive.Cue) -> str:
    return "0x" + cue.hex()[2:].upper()


OUT_PAYLOAD = _hex(mk_splice_insert(7, pts=18.0, duration=30, out=True))
IN_PAYLOAD = _hex(mk_splice_insert(7, pts=36.0, out=False))
BREAK_START_MS = T0_MS + 3 * SEGMENT_MS
OUT_RANGE = DateRange("7", BREAK_START_MS, planned_ms=30_000, scte35_out=OUT_PAYLOAD)
IN_RANGE = DateRange("7", BREAK_START_MS, duration_ms=18_000, scte35_in=IN_PAYLOAD)


def _segment(msn: int, *, complete: bool = True, cues: tuple[CueTag, ...] = (),
             dateranges: tuple[DateRange, ...] = ()) -> Segment:
    start = msn * SEGMENT_MS * TICKS
    end = start + SEGMENT_MS * TICKS
    return Segment(msn=msn, start=start, end=end, start_wall_ms=T0_MS + msn * SEGMENT_MS,
                   parts=(Part(msn, 0, start, start + 45_000, True),), complete=complete,
                   cues=cues, dateranges=dateranges)


def _stream(count: int) -> list[Segment]:
    """A break requested during segment 2, spliced at segment 3, ended early by an in at segment 6."""
    segments = []
    for msn in range(count):
        cues: tuple[CueTag, ...] = ()
        ranges: tuple[DateRange, ...] = ()
        if msn == 2:
            ranges = (OUT_RANGE,)
        elif msn == 3:
            cues = (CueTag("out", 7, 30_000),)
        elif msn in (4, 5):
            cues = (CueTag("cont", 7, 30_000, (msn - 3) * SEGMENT_MS),)
        elif msn == 6:
            cues, ranges = (CueTag("in", 7, 30_000),), (IN_RANGE,)
        segments.append(_segment(msn, complete=msn < count - 1, cues=cues, dateranges=ranges))
    return segments


def test_media_playlist_has_the_real_servers_layout() -> None:
    text = render_media_playlist(_stream(4), variant="0", segment_count=10, target_duration=6)
    lines = text.splitlines()
    assert lines[:4] == ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:0"]
    assert text.endswith("\n") and "#EXT-X-ENDLIST" not in text
    assert lines[4:7] == ["#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:20.000+00:00", "#EXTINF:6.000,",
                          "seg_0_0_hls.ts"]
    playlist = m3u8.loads(text)
    assert playlist.version == 3 and playlist.target_duration == 6 and playlist.media_sequence == 0
    assert [s.uri for s in playlist.segments] == ["seg_0_0_hls.ts", "seg_0_1_hls.ts", "seg_0_2_hls.ts"]
    assert all(s.program_date_time is not None for s in playlist.segments)
    assert [s.program_date_time.timestamp() * 1000 for s in playlist.segments] == [
        T0_MS + n * SEGMENT_MS for n in range(3)]
    assert [s.duration for s in playlist.segments] == [6.0, 6.0, 6.0]
    assert all(re.fullmatch(r"#EXTINF:\d+\.\d{3},", line) for line in lines if line.startswith("#EXTINF"))


def test_window_slides_and_lists_only_complete_segments() -> None:
    segments = _stream(30)
    playlist = m3u8.loads(render_media_playlist(segments, variant="0", segment_count=5, target_duration=6,
                                                uri_query="token=a"))
    assert playlist.media_sequence == 24
    assert [s.uri for s in playlist.segments] == [f"seg_0_{n}_hls.ts?token=a" for n in range(24, 29)]
    assert not any(s.dateranges for s in playlist.segments)
    ended = render_media_playlist(segments, variant="0", segment_count=5, target_duration=6, ended=True)
    assert m3u8.loads(ended).is_endlist


def test_cue_tags_and_date_ranges_are_written_as_decided() -> None:
    text = render_media_playlist(_stream(9), variant="v1", segment_count=10, target_duration=6)
    assert "#EXT-X-CUE-OUT:DURATION=30.000\n" in text
    assert "#EXT-X-CUE-OUT-CONT:ElapsedTime=6.000,Duration=30.000\n" in text
    assert "#EXT-X-CUE-OUT-CONT:ElapsedTime=12.000,Duration=30.000\n" in text
    assert text.count("#EXT-X-CUE-IN\n") == 1
    assert (f'#EXT-X-DATERANGE:ID="7",START-DATE="2023-11-14T22:13:38.000+00:00",PLANNED-DURATION=30.000,'
            f"SCTE35-OUT={OUT_PAYLOAD}\n") in text
    assert (f'#EXT-X-DATERANGE:ID="7",START-DATE="2023-11-14T22:13:38.000+00:00",DURATION=18.000,'
            f"SCTE35-IN={IN_PAYLOAD}\n") in text

    segments = m3u8.loads(text).segments
    by_msn = {int(s.uri.split("_")[2]): s for s in segments}
    assert [msn for msn, s in by_msn.items() if s.cue_out_start] == [3]
    assert [msn for msn, s in by_msn.items() if s.cue_out] == [3, 4, 5]
    assert [msn for msn, s in by_msn.items() if s.cue_in] == [6]
    assert by_msn[5].scte35_elapsedtime == "12.000"
    out_range, = by_msn[2].dateranges
    in_range, = by_msn[6].dateranges
    assert (out_range.id, out_range.planned_duration, out_range.duration) == ("7", 30.0, None)
    assert (in_range.id, in_range.duration, in_range.start_date) == ("7", 18.0, out_range.start_date)
    out_cue, in_cue = threefive.Cue(out_range.scte35_out), threefive.Cue(in_range.scte35_in)
    out_cue.decode()
    in_cue.decode()
    assert out_cue.command.name == in_cue.command.name == "Splice Insert"
    assert (out_cue.command.out_of_network_indicator, out_cue.command.break_duration) == (True, 30.0)
    assert in_cue.command.out_of_network_indicator is False
    assert out_cue.command.splice_event_id == in_cue.command.splice_event_id == 7


def test_date_ranges_stay_while_the_break_covers_the_window() -> None:
    segments = _stream(12)
    # Window 5..10 (msn 11 in progress): the out range was announced with msn 2, which has slid out,
    # but the break runs until msn 6, so both tags of the range are still listed.
    text = render_media_playlist(segments, variant="0", segment_count=6, target_duration=6)
    playlist = m3u8.loads(text)
    assert playlist.media_sequence == 5
    ranges = [d for s in playlist.segments for d in s.dateranges]
    assert sorted((d.id, d.scte35_out is not None, d.duration) for d in ranges) == [("7", False, 18.0),
                                                                                     ("7", True, None)]
    assert text.index("SCTE35-OUT") < text.index("seg_0_5_hls.ts")
    # Window 7..10: the break ended at msn 6's start, before the window: no range is left.
    later = render_media_playlist(segments, variant="0", segment_count=4, target_duration=6)
    assert "EXT-X-DATERANGE" not in later and "EXT-X-CUE" not in later
    # The caller may pass only the window and the older segments that announced ranges.
    sparse = [segments[2], *segments[5:]]
    assert render_media_playlist(sparse, variant="0", segment_count=6, target_duration=6) == text


def test_a_break_announced_in_the_segment_in_progress_is_listed_at_once() -> None:
    text = render_media_playlist(_stream(3), variant="0", segment_count=10, target_duration=6)
    assert "seg_0_2_hls.ts" not in text, "the segment in progress is not listed"
    assert text.endswith(f"seg_0_1_hls.ts\n{daterange_line(OUT_RANGE)}\n")
    later = render_media_playlist(_stream(4), variant="0", segment_count=10, target_duration=6)
    assert later.count("#EXT-X-DATERANGE") == 1
    assert later.index("SCTE35-OUT") < later.index("seg_0_2_hls.ts")


def test_open_break_keeps_its_range_until_it_ends() -> None:
    segments = _stream(6)[:5] + [_segment(n, complete=True) for n in range(5, 12)]
    text = render_media_playlist(segments, variant="0", segment_count=3, target_duration=6)
    assert text.count("#EXT-X-DATERANGE:") == 1 and "SCTE35-OUT" in text


def test_target_duration_covers_a_longer_segment() -> None:
    long = Segment(msn=0, start=0, end=90_000 * 13 // 2, start_wall_ms=T0_MS, parts=(), complete=True)
    playlist = m3u8.loads(render_media_playlist([long], variant="0", segment_count=3, target_duration=6))
    assert playlist.target_duration == 7 and playlist.segments[0].duration == 6.5


def test_multivariant_playlist_points_at_the_media_playlists() -> None:
    codecs = codecs_attribute(b"\x67\x4d\x40\x1e\xaa", b"\x11\x90")
    assert codecs == "avc1.4d401e,mp4a.40.2"
    text = render_multivariant_playlist(
        [TsVariant("0", 1_200_000, codecs, (640, 360), 30.0), TsVariant("low", 400_000, "avc1.42c01e")],
        uri_query="format=ts")
    playlist = m3u8.loads(text)
    assert playlist.is_variant and text.startswith("#EXTM3U\n#EXT-X-VERSION:3\n")
    first, second = playlist.playlists
    assert first.uri == "medialist_0_hls.m3u8?format=ts" and second.uri == "medialist_low_hls.m3u8?format=ts"
    info = first.stream_info
    assert (info.bandwidth, info.codecs, info.resolution, info.frame_rate) == (1_200_000, codecs, (640, 360), 30.0)
    assert second.stream_info.codecs == "avc1.42c01e" and second.stream_info.resolution is None


def test_file_names_round_trip_and_reject_anything_else() -> None:
    assert segment_file_name("0", 42) == "seg_0_42_hls.ts"
    assert parse_segment_file_name("seg_0_42_hls.ts") == ("0", 42)
    assert parse_segment_file_name("seg_my_var_7_hls.ts") == ("my_var", 7)
    assert media_playlist_name("0") == "medialist_0_hls.m3u8"
    assert parse_media_playlist_name("medialist_0_hls.m3u8") == "0"
    for name in ("seg_0_42_hls.m4s", "seg_0_-1_hls.ts", "../seg_0_1_hls.ts", "seg_0_1_hls.ts/x", "seg__1_hls.ts",
                 "seg_0_007_hls.ts"):
        assert parse_segment_file_name(name) is None
    assert parse_media_playlist_name("chunklist_0_video_llhls.m3u8") is None
    with pytest.raises(ValueError, match="variant"):
        segment_file_name("a/b", 1)


def test_malformed_marker_data_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="uppercase hex"):
        daterange_line(DateRange("1", T0_MS, planned_ms=1000, scte35_out="0xfc30"))
    with pytest.raises(ValueError, match="ID"):
        daterange_line(DateRange('a"b', T0_MS))
    with pytest.raises(ValueError, match="segment_count"):
        render_media_playlist(_stream(3), variant="0", segment_count=0, target_duration=6)
    with pytest.raises(ValueError, match="SPS"):
        codecs_attribute(b"\x68\x00\x00\x00", None)

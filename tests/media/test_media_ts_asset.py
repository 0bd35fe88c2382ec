"""The packaged loop and the stream timeline through the HLSv3 packager and playlist: what a TS player
gets from a live stream with an ad break and an ID3 event. Checked with PyAV, mutagen and m3u8."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import av
import m3u8
import pytest
from media_ts_support import assert_continuity, demux_with_pyav, read_packets
from mutagen.id3 import ID3

from simulator.media.asset import LOOP_TICKS, Asset, load_asset
from simulator.media.hls_playlist import (
    media_playlist_name,
    parse_segment_file_name,
    render_media_playlist,
    segment_file_name,
)
from simulator.media.layout import Layout
from simulator.media.model import VIDEO_TIMESCALE, Segment
from simulator.media.mpegts import package_ts_segment
from simulator.media.timeline import StreamTimeline
from simulator.world.events import AcceptedEvent, EventLog
from simulator.world.scenario import MediaSettings
from simulator.world.wire import CueEvent, CueEventSet, Id3EventSet, Id3Frame

CREATED_MS = 1_700_000_000_000
ID3_AT_MS = CREATED_MS + 3_500
OUT_AT_MS = CREATED_MS + 9_200


@pytest.fixture(scope="module")
def asset() -> Asset:
    return load_asset()


def _timeline() -> StreamTimeline:
    events = EventLog()
    id3 = Id3EventSet(eventType="event", events=[Id3Frame(frameType="TXXX", info="adId", data="XYZ-123"),
                                                 Id3Frame(frameType="TIT2", data="Hello")])
    events.append(AcceptedEvent(1, ID3_AT_MS, id3, {}))
    cue = CueEventSet(events=[CueEvent(cueType="out", duration=15_000)])
    events.append(AcceptedEvent(2, OUT_AT_MS, cue, {}))
    return StreamTimeline(Layout.from_settings(MediaSettings()), CREATED_MS, events)


def _package(asset: Asset, timeline: StreamTimeline, msn: int, now_ticks: int) -> bytes:
    segment = timeline.segment(msn, now_ticks)
    return package_ts_segment(segment, asset.video_samples(segment.start, segment.end),
                              asset.audio_samples(segment.start, segment.end), sps=asset.sps, pps=asset.pps,
                              audio_config=asset.audio_specific_config)


def test_live_ts_is_continuous_across_segments_and_the_loop_point(asset: Asset) -> None:
    timeline = _timeline()
    now_ticks = 3 * LOOP_TICKS
    data = b"".join(_package(asset, timeline, msn, now_ticks) for msn in range(timeline.msn_at(now_ticks)))
    assert_continuity(read_packets(data))
    video_pts, id3, frames = demux_with_pyav(data)
    expected = len(video_pts)
    assert video_pts == [n * 3000 for n in range(expected)] and expected * 3000 == now_ticks
    assert frames == expected, "every frame decodes, including across the 8 s loop point"
    (tag_packet,) = id3
    assert tag_packet.pts == (ID3_AT_MS - CREATED_MS) * VIDEO_TIMESCALE // 1000
    tag = ID3(io.BytesIO(bytes(tag_packet)))
    assert str(tag["TXXX:adId"]) == "XYZ-123" and str(tag["TIT2"]) == "Hello"


def test_ts_playlist_of_a_live_stream_shows_the_break(asset: Asset) -> None:
    timeline = _timeline()
    now_ms = CREATED_MS + 40_000
    snapshot = timeline.snapshot(now_ms)
    text = render_media_playlist(snapshot.segments, variant="0", segment_count=timeline.layout.segment_count,
                                 target_duration=timeline.layout.target_duration)
    playlist = m3u8.loads(text)
    by_msn = {int(s.uri.split("_")[2]): s for s in playlist.segments}
    # Requested at 9.2 s: the splice is the first keyframe at least 1 s later (11 s), the break 15 s.
    splice_msn, in_msn = timeline.msn_at(11 * VIDEO_TIMESCALE), timeline.msn_at(26 * VIDEO_TIMESCALE)
    assert by_msn[splice_msn].program_date_time.timestamp() == (CREATED_MS + 11_000) / 1000
    assert [msn for msn, s in by_msn.items() if s.cue_out_start] == [splice_msn]
    assert [msn for msn, s in by_msn.items() if s.cue_out] == list(range(splice_msn, in_msn))
    assert [msn for msn, s in by_msn.items() if s.cue_in] == [in_msn]
    ranges = [d for s in playlist.segments for d in s.dateranges]
    assert sorted((d.scte35_out is not None, d.duration) for d in ranges) == [(False, 15.0), (True, None)]
    assert len({d.id for d in ranges}) == 1
    assert {d.start_date for d in ranges} == {"2023-11-14T22:13:31.000+00:00"}


def test_ffmpeg_hls_demuxer_plays_the_playlist_and_its_segments(asset: Asset, tmp_path: Path) -> None:
    """FFmpeg's own HLS client (through PyAV) follows the media playlist to the .ts files and decodes."""
    timeline = _timeline()
    now_ms = CREATED_MS + 30_000
    snapshot = timeline.snapshot(now_ms)
    text = render_media_playlist(snapshot.segments, variant="0", segment_count=timeline.layout.segment_count,
                                 target_duration=timeline.layout.target_duration, ended=True)
    listed = [parse_segment_file_name(line) for line in text.splitlines() if line.startswith("seg_")]
    msns = [name[1] for name in listed if name is not None]
    assert len(msns) >= 5
    for msn in msns:
        data = _package(asset, timeline, msn, timeline.ticks_at(now_ms))
        (tmp_path / segment_file_name("0", msn)).write_bytes(data)
    (tmp_path / media_playlist_name("0")).write_text(text)
    with av.open(str(tmp_path / media_playlist_name("0"))) as container:
        assert {s.type for s in container.streams} == {"video", "audio", "data"}
        pts = [frame.pts for frame in container.decode(video=0)]
    first, last = timeline.boundary(msns[0]), timeline.boundary(msns[-1] + 1)
    assert pts == list(range(first, last, 3000)), "every listed frame decodes, in order"


def test_the_33_bit_timestamp_wraps_without_a_jump(asset: Asset) -> None:
    """After 26.5 hours live, PTS and PCR wrap modulo 2**33 as the standard says; FFmpeg sees no gap."""
    segment_ticks = 6 * VIDEO_TIMESCALE
    first = (1 << 33) // segment_ticks * segment_ticks  # the wrap falls inside this segment
    data = b""
    for index in range(3):
        start = first + index * segment_ticks
        segment = Segment(msn=900 + index, start=start, end=start + segment_ticks, start_wall_ms=0, parts=(),
                          complete=True)
        data += package_ts_segment(segment, asset.video_samples(start, segment.end),
                                   asset.audio_samples(start, segment.end), sps=asset.sps, pps=asset.pps,
                                   audio_config=asset.audio_specific_config)
    assert_continuity(read_packets(data))
    with av.open(io.BytesIO(data), format="mpegts") as container:
        pts = [packet.pts for packet in container.demux(video=0) if packet.size]
    assert len(pts) == 3 * 180 and {b - a for a, b in itertools.pairwise(pts)} == {3000}

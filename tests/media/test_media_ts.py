"""The HLSv3 MPEG-TS muxer, checked with independent readers: PyAV (FFmpeg) demuxes and decodes the
segments, mutagen parses the ID3 payloads, and the PSI tables and packet headers are parsed here from
the ISO 13818-1 layout, not with the muxer's code."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from fractions import Fraction

import av
import numpy as np
import pytest
from media_ts_support import assert_continuity, crc32_mpeg2, read_packets, read_pcr, read_pmt, read_section
from mutagen.id3 import ID3, PRIV, TIT2, TXXX

from simulator.media.model import Id3Placement, MediaSample, Segment
from simulator.media.mpegts import package_ts_segment, parameter_sets_from_avcc

FPS = 30
FRAME_TICKS = 90_000 // FPS
SEGMENT_FRAMES = 2 * FPS
SEGMENTS = 3
AAC_FRAME = 1024


@dataclass(frozen=True)
class Media:
    video: list[MediaSample]
    audio: list[MediaSample]
    sps: bytes
    pps: bytes
    audio_config: bytes


def _annex_b_nal_units(data: bytes) -> list[bytes]:
    return [unit.lstrip(b"\x00") for unit in re.split(b"\x00\x00\x01", data) if unit.strip(b"\x00")]


def _encode_media(frames: int) -> Media:
    """Real H.264 (1 s GOP, no B-frames) and AAC from PyAV's bundled encoders, as AVCC and raw AAC."""
    video = av.CodecContext.create("libx264", "w")
    video.width, video.height, video.pix_fmt = 160, 96, "yuv420p"
    video.time_base, video.framerate = Fraction(1, FPS), Fraction(FPS)
    video.options = {"preset": "ultrafast", "x264-params": f"keyint={FPS}:min-keyint={FPS}:scenecut=0:bframes=0"}
    packets = []
    for index in range(frames):
        picture = np.zeros((96, 160, 3), np.uint8)
        picture[:, (index * 3) % 140 : (index * 3) % 140 + 20] = 255
        frame = av.VideoFrame.from_ndarray(picture, format="rgb24").reformat(format="yuv420p")
        frame.pts = index
        packets += video.encode(frame)
    packets += video.encode(None)
    sps = pps = b""
    samples = []
    for packet in packets:
        avcc = b""
        for nal in _annex_b_nal_units(bytes(packet)):
            kind = nal[0] & 0x1F
            if kind == 7:
                sps = nal
            elif kind == 8:
                pps = nal
            elif kind in (1, 5):
                avcc += len(nal).to_bytes(4, "big") + nal
        samples.append(MediaSample(packet.pts * FRAME_TICKS, FRAME_TICKS, packet.is_keyframe, avcc))

    audio = av.CodecContext.create("aac", "w")
    audio.sample_rate, audio.layout, audio.format, audio.bit_rate = 48_000, "mono", "fltp", 64_000
    audio.time_base = Fraction(1, 48_000)
    audio_packets = []
    count = frames * FRAME_TICKS * 48_000 // 90_000 // AAC_FRAME
    for index in range(count):
        t = np.arange(index * AAC_FRAME, (index + 1) * AAC_FRAME) / 48_000
        frame = av.AudioFrame.from_ndarray(np.sin(2 * np.pi * 440 * t).astype(np.float32)[None, :],
                                           format="fltp", layout="mono")
        frame.sample_rate, frame.pts = 48_000, index * AAC_FRAME
        audio_packets += audio.encode(frame)
    audio_packets += audio.encode(None)
    audio_samples = [MediaSample(i * AAC_FRAME, AAC_FRAME, True, bytes(p)) for i, p in enumerate(audio_packets)]
    return Media(samples, audio_samples, sps, pps, bytes(audio.extradata or b""))


@pytest.fixture(scope="module")
def media() -> Media:
    return _encode_media(SEGMENT_FRAMES * SEGMENTS)


def _id3_tag(title: str, ad_id: str) -> bytes:
    tag = ID3()
    tag.add(TIT2(encoding=3, text=[title]))
    tag.add(TXXX(encoding=3, desc="adId", text=[ad_id]))
    tag.add(PRIV(owner="com.example.owner", data=b"\x00\x01binary"))
    buffer = io.BytesIO()
    tag.save(buffer, v2_version=4, padding=lambda info: 0)
    return buffer.getvalue()


def _segment(msn: int, id3: tuple[Id3Placement, ...] = ()) -> Segment:
    start = msn * SEGMENT_FRAMES * FRAME_TICKS
    return Segment(msn=msn, start=start, end=start + SEGMENT_FRAMES * FRAME_TICKS,
                   start_wall_ms=1_700_000_000_000 + msn * 2000, parts=(), complete=True, id3=id3)


def _package(media: Media, segment: Segment, *, audio: bool = True) -> bytes:
    return package_ts_segment(segment, media.video, media.audio if audio else [], sps=media.sps, pps=media.pps,
                              audio_config=media.audio_config if audio else None)


def _demux(data: bytes) -> dict[str, list[av.Packet]]:
    with av.open(io.BytesIO(data), format="mpegts") as container:
        assert [s.name for s in container.streams.data] == ["timed_id3"], "FFmpeg recognises the ID3 stream"
        by_type: dict[str, list[av.Packet]] = {s.type: [] for s in container.streams}
        for packet in container.demux():
            if packet.size:
                by_type[packet.stream.type].append(packet)
        return by_type


# ---- tests ------------------------------------------------------------------------------------------

def test_pmt_declares_h264_aac_and_id3_metadata_with_both_descriptors(media: Media) -> None:
    packets = read_packets(_package(media, _segment(0)))
    assert [p.pid for p in packets[:2]] == [0, packets[1].pid] and packets[1].pid != 0
    for section in (read_section(packets, 0), read_section(packets, packets[1].pid)):
        assert crc32_mpeg2(section[:-4]) == int.from_bytes(section[-4:], "big")
    pcr_pid, program_info, streams = read_pmt(packets)
    id3_format = b"\xff\xff" + b"ID3 " + b"\xff" + b"ID3 "
    pointer = dict(program_info)[0x25]
    assert pointer[:11] == id3_format and len(pointer) == 15
    assert pointer[12] >> 5 == 0, "metadata in this transport stream, no locator record"
    assert int.from_bytes(pointer[13:15], "big") == int.from_bytes(read_section(packets, 0)[8:10], "big")
    types = {stream_type: (pid, dict(descriptors)) for stream_type, pid, descriptors in streams}
    assert set(types) == {0x1B, 0x0F, 0x15}
    assert pcr_pid == types[0x1B][0]
    metadata = types[0x15][1][0x26]
    assert metadata[:11] == id3_format and len(metadata) == 13


def test_consecutive_segments_decode_with_continuous_timestamps_and_counters(media: Media) -> None:
    data = b"".join(_package(media, _segment(msn)) for msn in range(SEGMENTS))
    packets = read_packets(data)
    assert_continuity(packets)
    pcr_pid = read_pmt(packets)[0]
    pcrs = [pcr for p in packets if p.pid == pcr_pid and (pcr := read_pcr(p.adaptation)) is not None]
    assert len(pcrs) >= SEGMENTS * SEGMENT_FRAMES and pcrs == sorted(pcrs)

    streams = _demux(data)
    video_pts = [p.pts for p in streams["video"]]
    assert video_pts == [i * FRAME_TICKS for i in range(SEGMENTS * SEGMENT_FRAMES)]
    assert not any(p.is_corrupt for p in streams["video"] + streams["audio"])
    audio_pts = [p.pts for p in streams["audio"]]
    assert audio_pts == [i * 1920 for i in range(len(audio_pts))]
    assert len(audio_pts) == -(-SEGMENTS * SEGMENT_FRAMES * FRAME_TICKS // 1920), "frames starting in the segments"

    decoder = av.CodecContext.create("h264", "r")
    decoded = [frame for packet in streams["video"] for frame in decoder.decode(packet)]
    decoded += decoder.decode(None)
    assert len(decoded) == SEGMENTS * SEGMENT_FRAMES
    assert (decoded[0].width, decoded[0].height) == (160, 96)


def test_each_segment_starts_with_a_decodable_keyframe_and_a_pcr(media: Media) -> None:
    data = _package(media, _segment(1))
    packets = read_packets(data)
    pcr_pid = read_pmt(packets)[0]
    first_video = next(p for p in packets if p.pid == pcr_pid)
    assert first_video.start and first_video.adaptation[0] & 0x40, "random_access_indicator on the keyframe"
    assert read_pcr(first_video.adaptation) is not None
    assert first_video.payload.startswith(b"\x00\x00\x01\xe0")
    with av.open(io.BytesIO(data), format="mpegts") as container:
        frames = list(container.decode(video=0))
    assert len(frames) == SEGMENT_FRAMES and frames[0].key_frame


def test_id3_pes_carries_the_tag_at_its_pts_and_parses_to_the_frames_sent(media: Media) -> None:
    segment = _segment(1, id3=(
        Id3Placement(7, 65_000, _id3_tag("First", "XYZ-123"), frozenset({"video", "audio"})),
        Id3Placement(8, 90_000 * 3 + 123, _id3_tag("Zweite Ä", "ad-2"), frozenset({"video"})),
    ))
    data = _package(media, _segment(0)) + _package(media, segment) + _package(media, _segment(2))
    streams = _demux(data)
    id3_packets = streams["data"]
    assert [p.pts for p in id3_packets] == [65_000, 270_123]
    tags = [ID3(io.BytesIO(bytes(p))) for p in id3_packets]
    assert [str(t["TIT2"]) for t in tags] == ["First", "Zweite Ä"]
    assert [str(t["TXXX:adId"]) for t in tags] == ["XYZ-123", "ad-2"]
    assert [(f.owner, f.data) for f in tags[0].getall("PRIV")] == [("com.example.owner", b"\x00\x01binary")]
    assert tags[0].version == (2, 4, 0)

    packets = read_packets(_package(media, segment))
    id3_pid = next(pid for stream_type, pid, _ in read_pmt(packets)[2] if stream_type == 0x15)
    starts = [p.payload for p in packets if p.pid == id3_pid and p.start]
    assert len(starts) == 2
    for payload in starts:
        assert payload[:4] == b"\x00\x00\x01\xbd", "private_stream_1"
        assert payload[6] & 0x04, "data_alignment_indicator"
        assert payload[7] >> 6 == 0b10, "PTS present"


def test_stream_without_audio_declares_no_audio_pid(media: Media) -> None:
    data = _package(media, _segment(0), audio=False)
    _, _, streams = read_pmt(read_packets(data))
    assert sorted(stream_type for stream_type, _, _ in streams) == [0x15, 0x1B]
    assert set(_demux(data)) == {"video", "data"}


def test_sps_and_pps_come_from_an_avcc_record(media: Media) -> None:
    record = (bytes((1, media.sps[1], media.sps[2], media.sps[3], 0xFF, 0xE1))
              + len(media.sps).to_bytes(2, "big") + media.sps + b"\x01" + len(media.pps).to_bytes(2, "big")
              + media.pps)
    assert parameter_sets_from_avcc(record) == (media.sps, media.pps)
    with pytest.raises(ValueError, match="avcC"):
        parameter_sets_from_avcc(record[:8])


def test_bad_input_is_a_clear_error(media: Media) -> None:
    empty = Segment(msn=9, start=10**9, end=10**9 + 1000, start_wall_ms=0, parts=(), complete=True)
    with pytest.raises(ValueError, match="no video sample"):
        _package(media, empty)
    broken = [MediaSample(0, FRAME_TICKS, True, b"\x00\x00\x00\x09abc")]
    with pytest.raises(ValueError, match="malformed AVCC"):
        package_ts_segment(_segment(0), broken, [], sps=media.sps, pps=media.pps, audio_config=None)
    huge = _segment(0, id3=(Id3Placement(1, 0, b"ID3" + bytes(70_000), frozenset({"video"})),))
    with pytest.raises(ValueError, match="ID3 tag"):
        _package(media, huge)
    with pytest.raises(ValueError, match="AudioSpecificConfig"):
        package_ts_segment(_segment(0), media.video, media.audio, sps=media.sps, pps=media.pps, audio_config=None)

"""The TS packet layer under generated inputs (frame, audio and ID3 sizes around packet boundaries):
every PES comes back byte for byte with its PTS, and the continuity counters stay continuous from one
segment to the next. Read with the independent reader in media_ts_support."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from media_ts_support import assert_continuity, read_packets, read_pes, read_pmt

from simulator.media.model import Id3Placement, MediaSample, Segment
from simulator.media.mpegts import package_ts_segment

SPS = b"\x67\x42\xc0\x1e\xda\x02\x80\xbf\xe5\x84"
PPS = b"\x68\xce\x3c\x80"
AUDIO_CONFIG = b"\x11\x90"  # AAC-LC, 48 kHz, stereo
FRAME = 3000


def _nal(size: int, kind: int, fill: int) -> bytes:
    return bytes((0x60 | kind,)) + bytes((fill,)) * (size - 1)


def _segment(msn: int, frames: list[int], audio: list[int], id3: list[int]) -> tuple[Segment, list[MediaSample],
                                                                                   list[MediaSample]]:
    start = msn * len(frames) * FRAME
    video = [MediaSample(start + i * FRAME, FRAME, i == 0,
                         (size := frames[i]).to_bytes(4, "big") + _nal(size, 5 if i == 0 else 1, i % 250))
             for i in range(len(frames))]
    audio_start = -(-start * 48 // 90 // 1024)
    samples = [MediaSample((audio_start + k) * 1024, 1024, True, bytes((k % 200,)) * size)
               for k, size in enumerate(audio)]
    placements = tuple(Id3Placement(n, start + n * 700, b"ID3\x04" + bytes((n % 256,)) * (size - 4),
                                    frozenset({"video"})) for n, size in enumerate(id3))
    end = start + len(frames) * FRAME
    return Segment(msn, start, end, 0, (), True, id3=placements), video, samples


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frames=st.lists(st.integers(1, 1200), min_size=1, max_size=8),
    audio=st.lists(st.integers(1, 800), max_size=5),
    id3=st.lists(st.integers(10, 700), max_size=3),
    msn=st.integers(0, 40),
)
def test_pes_round_trip_and_continuity(frames: list[int], audio: list[int], id3: list[int], msn: int) -> None:
    data = b""
    segments = []
    for n in (msn, msn + 1):
        segment, video, samples = _segment(n, frames, audio, id3)
        samples = [s for s in samples if segment.start <= s.decode_time * 90 // 48 < segment.end]
        segments.append((segment, video, samples))
        data += package_ts_segment(segment, video, samples, sps=SPS, pps=PPS, audio_config=AUDIO_CONFIG)
    packets = read_packets(data)
    assert_continuity(packets)
    _, _, streams = read_pmt(packets)
    pids = {stream_type: pid for stream_type, pid, _ in streams}

    video_pes = read_pes(packets, pids[0x1B])
    expected_video = [s for _, video, _ in segments for s in video]
    assert [p.pts for p in video_pes] == [s.decode_time for s in expected_video]
    for pes, sample in zip(video_pes, expected_video, strict=True):
        assert pes.stream_id == 0xE0 and pes.payload.startswith(b"\x00\x00\x00\x01\x09\xf0")
        assert pes.payload.endswith(b"\x00\x00\x00\x01" + sample.data[4:])
        assert (b"\x00\x00\x00\x01" + SPS + b"\x00\x00\x00\x01" + PPS in pes.payload) == sample.keyframe

    audio_bytes = b"".join(p.payload for p in read_pes(packets, pids[0x0F]))
    expected_audio = [s.data for _, _, samples in segments for s in samples]
    frames_back = []
    while audio_bytes:
        assert audio_bytes[:2] == b"\xff\xf1", "ADTS sync word, MPEG-4, no CRC"
        length = ((audio_bytes[3] & 0x03) << 11) | (audio_bytes[4] << 3) | (audio_bytes[5] >> 5)
        frames_back.append(audio_bytes[7:length])
        audio_bytes = audio_bytes[length:]
    assert frames_back == expected_audio

    id3_pes = read_pes(packets, pids[0x15])
    expected_id3 = [p for segment, _, _ in segments for p in segment.id3]
    assert [(p.stream_id, p.pts, p.payload) for p in id3_pes] == [(0xBD, e.media_time, e.tag) for e in expected_id3]

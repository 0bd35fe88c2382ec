"""LL-HLS media bytes checked by independent parsers: PyAV demuxes and decodes init + segments and
init + parts (timestamps continuous across segments and the asset's loop point); emsg boxes found
by a plain box walk carry a mutagen-parseable ID3 tag in the part that covers the event time."""

from __future__ import annotations

import io
import itertools
import struct
from collections.abc import Iterator

import av
from mutagen.id3 import ID3

from simulator.media.asset import LOOP_TICKS, load_asset
from simulator.media.layout import Layout
from simulator.media.live import LiveMedia
from simulator.world.events import AcceptedEvent, EventLog
from simulator.world.scenario import MediaSettings
from simulator.world.wire import Id3EventSet, Id3Frame

CREATED_MS = 1_767_225_600_000


def _media(events: EventLog | None = None) -> LiveMedia:
    return LiveMedia(Layout.from_settings(MediaSettings()), "default", "app", "s", CREATED_MS, events or EventLog())


def _decode(data: bytes, kind: str) -> list[tuple[int, float]]:
    """(pts in stream time base units, seconds) of every decoded frame; raises on any decode error."""
    out = []
    with av.open(io.BytesIO(data), format="mp4") as container:
        stream = container.streams.video[0] if kind == "video" else container.streams.audio[0]
        for frame in container.decode(stream):
            assert frame.pts is not None and frame.time is not None
            out.append((frame.pts, frame.time))
    return out


def test_video_segments_decode_with_continuous_timestamps_across_the_loop_point() -> None:
    media = _media()
    segments = [media.segment("video", msn) for msn in range(3)]  # 0-18 s: crosses 8 s and 16 s loops
    frames = _decode(media.init("video") + b"".join(segments), "video")
    assert len(frames) == 18 * 30
    times = [t for _, t in frames]
    steps = {round(b - a, 6) for a, b in itertools.pairwise(times)}
    assert steps == {round(1 / 30, 6)}
    assert times[0] == 0.0


def test_video_parts_decode_and_match_the_segment() -> None:
    media = _media()
    parts = [media.part("video", 1, index) for index in range(12)]
    assert b"".join(parts) == media.segment("video", 1)
    frames = _decode(media.init("video") + parts[0] + parts[1], "video")
    assert [round(t, 4) for _, t in frames][:2] == [6.0, round(6 + 1 / 30, 4)]
    assert len(frames) == 30


def test_audio_track_decodes_continuously() -> None:
    media = _media()
    frames = _decode(media.init("audio") + media.segment("audio", 0) + media.segment("audio", 1), "audio")
    times = [t for _, t in frames]
    assert abs(times[-1] - 12.0) < 0.03
    steps = {round(b - a, 6) for a, b in itertools.pairwise(times)}
    assert steps == {round(1024 / 48000, 6)}


def test_loop_is_the_lcm_of_frame_lengths_and_small() -> None:
    asset = load_asset()
    assert LOOP_TICKS == 8 * 90_000
    assert (asset.width, asset.height) == (640, 360)
    assert len(asset.video_frames) == 240 and len(asset.audio_frames) == 375
    assert sum(map(len, asset.video_frames)) + sum(map(len, asset.audio_frames)) < 1_000_000
    samples = asset.video_samples(LOOP_TICKS - 3000, LOOP_TICKS + 3000)
    assert [s.decode_time for s in samples] == [LOOP_TICKS - 3000, LOOP_TICKS]
    assert samples[1].keyframe and samples[1].data == asset.video_frames[0]


def _boxes(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    position = 0
    while position < len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        assert size >= 8
        yield kind, data[position + 8:position + size]
        position += size


def _emsgs(data: bytes) -> list[dict[str, object]]:
    found = []
    for kind, body in _boxes(data):
        if kind != b"emsg":
            continue
        version = body[0]
        timescale, presentation, duration, event_id = struct.unpack(">IQII", body[4:24])
        rest = body[24:]
        scheme, rest = rest.split(b"\x00", 1)
        value, message = rest.split(b"\x00", 1)
        found.append({"version": version, "timescale": timescale, "time": presentation, "duration": duration,
                      "id": event_id, "scheme": scheme.decode(), "value": value.decode(), "tag": message})
    return found


def test_emsg_v1_carries_the_id3_tag_in_the_part_covering_the_event() -> None:
    events = EventLog()
    event_set = Id3EventSet(eventType="video", events=[Id3Frame(frameType="TXXX", info="adId", data="XYZ-123"),
                                                      Id3Frame(frameType="TIT2", data="Hello")])
    accepted_ms = CREATED_MS + 7_250  # media time 7.25 s: segment 1 (6-12 s), part 2 (7.0-7.5 s)
    events.append(AcceptedEvent(5, accepted_ms, event_set, {}))
    media = _media(events)
    carrying = [(msn, index) for msn in range(2) for index in range(12) if _emsgs(media.part("video", msn, index))]
    assert carrying == [(1, 2)]  # [7.0, 7.5) s
    (box,) = _emsgs(media.part("video", 1, 2))
    assert box["version"] == 1 and box["scheme"] == "https://aomedia.org/emsg/ID3"
    assert box["value"] == "OvenMediaEngine"
    assert box["timescale"] == 1000 and box["time"] == 7_250  # the real server's: milliseconds
    assert box["duration"] == 0xFFFFFFFF
    assert isinstance(box["tag"], bytes)
    tag = ID3(io.BytesIO(box["tag"]))
    assert tag.version == (2, 4, 0)
    assert str(tag["TXXX:adId"]) == "XYZ-123" and str(tag["TIT2"]) == "Hello"
    # eventType video: the audio track carries nothing; the emsg sits before the moof
    assert not _emsgs(media.part("audio", 1, 2))
    assert [kind for kind, _ in _boxes(media.part("video", 1, 2))] == [b"emsg", b"moof", b"mdat"]
    # the part still decodes with the emsg in front of it
    assert len(_decode(media.init("video") + media.part("video", 1, 2), "video")) == 15


def test_event_type_event_puts_the_tag_on_both_tracks_in_milliseconds() -> None:
    """The real server times every emsg in its data track's timescale, 1000, whatever the media track's
    (captures/ome-0.19.0 markers/id3_emsg_part.json): video (90 kHz) and audio (48 kHz) say the same."""
    events = EventLog()
    events.append(AcceptedEvent(9, CREATED_MS + 2_000, Id3EventSet(events=[Id3Frame(frameType="TIT2", data="x")]), {}))
    media = _media(events)
    (video,) = _emsgs(media.part("video", 0, 4))
    (audio,) = _emsgs(media.part("audio", 0, 4))
    assert (video["timescale"], video["time"]) == (1000, 2000)
    assert (audio["timescale"], audio["time"]) == (1000, 2000)
    assert video["tag"] == audio["tag"]

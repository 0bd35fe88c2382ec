"""Hypothesis on the media's pure parts, checked with readers that are not ours: ID3 tags read byte by
byte from the ID3v2.4 layout, SCTE-35 decoded by threefive with the CRC checked here, and playlists
parsed by m3u8, for any sequence of accepted cue events."""

from __future__ import annotations

import binascii
import io
import re
from typing import Any

import m3u8
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutagen.id3 import ID3
from threefive import Cue

from simulator.http.event_validation import EventRejected, validate_event_set
from simulator.media.id3 import build_tag
from simulator.media.layout import Layout
from simulator.media.live import LiveMedia
from simulator.media.markers import PTS_MODULO, scte35_in, scte35_out
from simulator.world.edition import ENTERPRISE
from simulator.world.events import AcceptedEvent, EventLog
from simulator.world.scenario import MediaSettings
from simulator.world.wire import CueEvent, CueEventSet, Id3EventSet, Id3Frame

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CREATED_MS = 1_767_225_600_000
LAYOUT = Layout.from_settings(MediaSettings())


def _syncsafe(data: bytes) -> int:
    assert all(b < 0x80 for b in data), "a syncsafe integer has the top bit of each byte clear"
    value = 0
    for byte in data:
        value = value << 7 | byte
    return value


def read_id3v24(tag: bytes) -> list[tuple[str, bytes]]:
    """(frame id, payload) of every frame, from the ID3v2.4 layout (header, syncsafe sizes, no padding)."""
    assert tag[:3] == b"ID3" and tag[3:5] == b"\x04\x00" and tag[5] == 0
    assert _syncsafe(tag[6:10]) == len(tag) - 10
    frames, at = [], 10
    while at < len(tag):
        frame_id, size = tag[at:at + 4].decode("ascii"), _syncsafe(tag[at + 4:at + 8])
        assert tag[at + 8:at + 10] == b"\x00\x00"
        frames.append((frame_id, tag[at + 10:at + 10 + size]))
        at += 10 + size
    assert at == len(tag)
    return frames


texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
owners = st.text(st.characters(max_codepoint=255, blacklist_characters="\x00"), max_size=40)  # ISO-8859-1
frames = st.one_of(
    st.builds(lambda i, d: Id3Frame(frameType="TXXX", info=i, data=d), texts, st.none() | texts),
    st.builds(lambda t, d: Id3Frame(frameType=t, data=d), st.sampled_from(["TIT2", "TPE1", "TALB", "TCOP"]),
              st.none() | texts),
    st.builds(lambda i, d: Id3Frame(frameType="PRIV", info=i, data=d), owners, texts),
)


def _sent(frame: Id3Frame) -> tuple[str, str | None, str]:
    """(frame id, owner or description, text) of a frame as sent; absent text is empty text."""
    return (frame.frameType, frame.info or "" if frame.frameType in ("PRIV", "TXXX") else None, frame.data or "")


def _written(frame_id: str, payload: bytes) -> tuple[str, str | None, str]:
    """The same triple, decoded from a frame's bytes by the ID3v2.4 layout."""
    if frame_id == "PRIV":
        owner, _, data = payload.partition(b"\x00")
        return (frame_id, owner.decode("latin-1"), data.decode())
    assert payload[0] == 3  # UTF-8
    if frame_id == "TXXX":
        description, _, value = payload[1:].partition(b"\x00")
        return (frame_id, description.decode(), value.rstrip(b"\x00").decode())
    return (frame_id, None, payload[1:].rstrip(b"\x00").decode())


@FAST
@given(st.lists(frames, min_size=1, max_size=6), st.sampled_from(["video", "audio", "event"]))
def test_every_id3_tag_holds_exactly_the_frames_sent(sent: list[Id3Frame], event_type: str) -> None:
    """Every frame sent is written once, in order, even two with the same key (as the real server does)."""
    tag = build_tag(Id3EventSet(eventType=event_type, events=sent))  # type: ignore[arg-type]
    assert tag is not None
    assert [_written(frame_id, payload) for frame_id, payload in read_id3v24(tag)] == [_sent(f) for f in sent]
    parsed = ID3(io.BytesIO(tag))  # type: ignore[no-untyped-call]
    # mutagen drops a text frame whose text is empty when reading it (no trailing NUL, as the real server writes)
    readable = {f.frameType for f in sent if f.frameType == "PRIV" or f.data}
    assert parsed.version == (2, 4, 0) and {key[:4] for key in parsed} == readable


def _accepted_then_built(value: dict[str, Any]) -> bytes | None:
    """The tag of an event set the API accepts; None when the API refuses it (a 400 is a fine answer too)."""
    try:
        event_set = validate_event_set(value, ENTERPRISE)
    except EventRejected:
        return None
    assert isinstance(event_set, Id3EventSet)
    return build_tag(event_set)


@FAST
@given(owners | texts.map(lambda t: "Ā" + t))
def test_a_priv_owner_is_written_when_latin_1_and_refused_otherwise(owner: str) -> None:
    body = {"eventFormat": "id3v2", "events": [{"frameType": "PRIV", "info": owner, "data": "x"}]}
    if all(ord(c) <= 0xFF for c in owner):
        tag = _accepted_then_built(body)
        assert tag is not None and read_id3v24(tag) == [("PRIV", owner.encode("latin-1") + b"\x00x")]
    else:
        with pytest.raises(EventRejected, match=r"^info of a PRIV frame must be Latin-1 text$"):
            validate_event_set(body, ENTERPRISE)


def test_an_event_set_that_cannot_be_encoded_is_skipped_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    """Second line behind the API's check: no tag (logged), never an exception in the media path."""
    unencodable = Id3EventSet(eventType="event", events=[Id3Frame(frameType="PRIV", info="ĀB", data="x")])
    assert build_tag(unencodable) is None
    assert "cannot be encoded" in caplog.text


def test_a_text_frame_without_data_is_written_with_empty_text() -> None:
    """The encoding byte alone, as the real server writes it (no NUL); mutagen skips such a frame on reading."""
    tag = _accepted_then_built({"eventFormat": "id3v2", "events": [{"frameType": "TIT2"}]})
    assert tag is not None and read_id3v24(tag) == [("TIT2", b"\x03")]
    assert "TIT2" not in ID3(io.BytesIO(tag))  # type: ignore[no-untyped-call]


def _crc32_mpeg2(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc


def _decoded(hex_text: str) -> dict[str, Any]:
    assert re.fullmatch(r"0x(?:[0-9A-F]{2})+", hex_text)
    raw = binascii.unhexlify(hex_text[2:])
    assert raw[0] == 0xFC  # splice_info_section
    assert _crc32_mpeg2(raw) == 0  # the CRC_32 at the end covers the whole section
    cue = Cue(hex_text)
    cue.decode()
    command: dict[str, Any] = cue.command.get()
    return command


@pytest.mark.parametrize("event_id", [65_535, 65_536, 1_000_003, 2**32 - 1, 2**32 + 7])
def test_a_break_from_the_65536th_event_of_the_server_on_can_be_written(event_id: int) -> None:
    """splice_event_id is 32 bits (the id wraps), unique_program_id 16 bits: neither may overflow."""
    for hex_text in (scte35_out(event_id, 90_000, 30_000), scte35_in(event_id, 180_000)):
        command = _decoded(hex_text)
        assert command["splice_event_id"] == event_id % 2**32
        assert command["unique_program_id"] == event_id & 0xFFFF


def test_a_splice_where_the_pts_wraps_to_zero_is_still_timed() -> None:
    """PTS 0 (every 2^33 ticks) is a time like any other, not "splice immediately"."""
    command = _decoded(scte35_out(7, PTS_MODULO * 2, 30_000))
    assert (command["splice_immediate_flag"], command["time_specified_flag"], command["pts_time"]) == (False, True, 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 65_535), st.integers(1, 2**20).map(lambda k: k * 90_000), st.integers(1, 86_400_000))
def test_scte35_out_and_in_decode_to_the_same_splice_event(event_id: int, ticks: int, planned_ms: int) -> None:
    """Splices fall on keyframes (whole seconds of 90 kHz ticks) after the stream's first second."""
    out = _decoded(scte35_out(event_id, ticks, planned_ms))
    back = _decoded(scte35_in(event_id, ticks + 90_000))
    assert out["name"] == back["name"] == "Splice Insert"
    assert out["splice_event_id"] == back["splice_event_id"] == event_id
    assert (out["out_of_network_indicator"], back["out_of_network_indicator"]) == (True, False)
    assert not out["splice_immediate_flag"]
    assert round(out["pts_time"] * 90_000) == ticks % PTS_MODULO
    assert abs(out["break_duration"] - planned_ms / 1000) < 1 / 90_000 + 1e-6


cue_steps = st.lists(st.tuples(st.integers(0, 25_000), st.sampled_from(["out", "in"]), st.integers(1, 40_000)),
                     max_size=8)


def _events(steps: list[tuple[int, str, int]]) -> tuple[EventLog, int]:
    log, at = EventLog(), CREATED_MS
    for seq, (gap, kind, duration) in enumerate(steps, start=1):
        at += gap
        cue = CueEvent(cueType="out", duration=duration) if kind == "out" else CueEvent(cueType="in")
        log.append(AcceptedEvent(seq, at, CueEventSet(events=[cue]), {}))
    return log, at


_DATERANGE = re.compile(r"^#EXT-X-DATERANGE:(.*)$", re.MULTILINE)


def _attributes(line: str) -> dict[str, str]:
    return dict(re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', line))


def _check_dateranges(text: str) -> None:
    by_id: dict[str, list[dict[str, str]]] = {}
    for match in _DATERANGE.finditer(text):
        attributes = _attributes(match.group(1))
        by_id.setdefault(attributes["ID"], []).append(attributes)
    starts = [tags[0]["START-DATE"] for tags in by_id.values()]
    assert len(set(starts)) == len(starts), "two breaks share a START-DATE"
    for daterange_id, tags in by_id.items():
        assert len({t["START-DATE"] for t in tags}) == 1, daterange_id
        assert sum("SCTE35-OUT" in t for t in tags) <= 1, daterange_id
        assert sum("SCTE35-IN" in t for t in tags) <= 1, daterange_id
        for tag in tags:
            for key in ("SCTE35-OUT", "SCTE35-IN"):
                if key in tag:
                    assert _decoded(tag[key])["splice_event_id"] == int(daterange_id.strip('"').split("-")[1])


@FAST
@given(cue_steps, st.integers(0, 90_000))
def test_any_cue_sequence_gives_parsable_playlists_with_unique_dateranges(
    steps: list[tuple[int, str, int]], after_ms: int
) -> None:
    log, last = _events(steps)
    media = LiveMedia(LAYOUT, "default", "app", "fuzz", CREATED_MS, log)
    now = max(last, CREATED_MS + 7_000) + after_ms
    for text in (media.ts_media_playlist(now).data.decode(), media.chunklist("video", now).data.decode(),
                 media.chunklist("audio", now).data.decode()):
        playlist = m3u8.loads(text)
        assert playlist.segments, text
        assert playlist.target_duration is not None
        assert all(s.duration <= playlist.target_duration + 0.5 for s in playlist.segments if s.duration)
        _check_dateranges(text)
        outs = text.count("#EXT-X-CUE-OUT:")
        assert outs <= text.count("SCTE35-OUT=") + 1  # every break written with its date range (one may start earlier)

"""The emsg walk: ID3 found in a part's emsg v1 box and decoded frame by frame."""

from __future__ import annotations

import io
import struct

import pytest
from mutagen.id3 import ID3, PRIV, TIT2, TXXX

from omeconsole.api.emsg import (
    ID3_SCHEME,
    MAX_BOXES,
    MAX_EMSGS,
    BoxError,
    DecodedFrame,
    decode_id3,
    find_id3_emsgs,
    iter_boxes,
    parse_emsg,
)


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def _emsg_v1(scheme: str, message: bytes, *, pts: int = 900_000, event_id: int = 7) -> bytes:
    body = struct.pack(">IQII", 90_000, pts, 0xFFFFFFFF, event_id) + scheme.encode() + b"\0" + b"\0" + message
    return _box(b"emsg", b"\x01\0\0\0" + body)


def _tag() -> bytes:
    tag = ID3()
    tag.add(TXXX(encoding=3, desc="adId", text=["spot-42 é"]))
    tag.add(TIT2(encoding=3, text=["Now playing"]))
    tag.add(PRIV(owner="com.example", data=b"opaque"))
    out = io.BytesIO()
    tag.save(out, v2_version=4, padding=lambda info: 0)
    return out.getvalue()


def test_id3_emsg_before_moof_is_found_and_decoded() -> None:
    part = (_emsg_v1(ID3_SCHEME, _tag())
            + _emsg_v1("urn:scte:scte35:2013:bin", b"\xfc\x30")
            + _box(b"moof", b"\0" * 24) + _box(b"mdat", b"\1" * 100))
    [box] = find_id3_emsgs(part)
    assert (box.version, box.timescale, box.presentation_time, box.id) == (1, 90_000, 900_000, 7)
    assert box.message_data == _tag()
    assert sorted(decode_id3(box.message_data), key=lambda f: f.frame_type) == [
        DecodedFrame("PRIV", "com.example", "opaque"),
        DecodedFrame("TIT2", None, "Now playing"),
        DecodedFrame("TXXX", "adId", "spot-42 é"),
    ]


def test_emsg_version_0_and_large_boxes_are_understood() -> None:
    body = ID3_SCHEME.encode() + b"\0" + b"v\0" + struct.pack(">IIII", 1000, 5, 0, 3) + b"ID3"
    payload = b"\0\0\0\0" + body
    large = struct.pack(">I4sQ", 1, b"emsg", 16 + len(payload)) + payload
    [(kind, data)] = iter_boxes(large)
    box = parse_emsg(data)
    assert kind == "emsg" and box.version == 0 and box.value == "v" and box.presentation_time == 5
    assert box.message_data == b"ID3"


@pytest.mark.parametrize("data", [b"\0\0\0\x20moof", b"\0\0\0", _box(b"emsg", b"\x01\0\0\0\0\0")])
def test_broken_parts_raise_a_clear_error(data: bytes) -> None:
    with pytest.raises(BoxError):
        find_id3_emsgs(data)


def test_not_an_id3_tag_is_a_box_error() -> None:
    with pytest.raises(BoxError, match="not an ID3v2 tag"):
        decode_id3(b"garbage!")


def test_a_part_of_too_many_boxes_is_refused_not_walked() -> None:
    tiny = _box(b"free", b"")
    with pytest.raises(BoxError, match=f"more than {MAX_BOXES}"):
        find_id3_emsgs(tiny * (MAX_BOXES + 1))
    assert find_id3_emsgs(tiny * (MAX_BOXES - 1) + _emsg_v1(ID3_SCHEME, _tag()))  # up to the bound: read


def test_no_more_than_the_bound_of_id3_boxes_is_taken_from_one_part() -> None:
    part = b"".join(_emsg_v1(ID3_SCHEME, _tag(), event_id=i) for i in range(MAX_EMSGS * 3)) + _box(b"mdat", b"x")
    found = find_id3_emsgs(part)
    assert [box.id for box in found] == list(range(MAX_EMSGS))  # the first ones, in file order

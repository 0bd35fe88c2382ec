"""Finds ID3 timed metadata in fetched LL-HLS parts: `emsg` boxes with the AOM ID3 scheme.

The console confirms an ID3 send by reading it back out of the media players receive. A part is a
run of top-level ISO-BMFF boxes (`emsg`* `moof` `mdat`); the walk reads only box headers and the
emsg payloads, so a part of any size costs little (and the part itself is capped by the reader).
The number of boxes walked and of emsg boxes decoded is bounded. The ID3 tag is parsed by mutagen.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mutagen import id3 as _mutagen_id3

_ID3: Any = _mutagen_id3.ID3  # mutagen is untyped; kept at arm's length

ID3_SCHEME = "https://aomedia.org/emsg/ID3"


class BoxError(ValueError):
    """The bytes are not a well-formed sequence of ISO-BMFF boxes."""


@dataclass(frozen=True)
class EmsgBox:
    version: int
    scheme_id_uri: str
    value: str
    timescale: int
    presentation_time: int
    """v1: absolute time in `timescale` units. v0: the delta from the segment's earliest time."""
    event_duration: int
    id: int
    message_data: bytes


@dataclass(frozen=True)
class DecodedFrame:
    """One ID3 frame in the API's own terms (frameType, info, data), so it compares with what was sent."""

    frame_type: str
    info: str | None
    data: str | None


MAX_BOXES = 10_000
"""A real part has three to a few dozen top-level boxes; a part claiming more is not scanned further."""
MAX_EMSGS = 64
"""ID3 emsg boxes read from one part at most (each is decoded by mutagen)."""


def _box_spans(data: bytes, max_boxes: int = MAX_BOXES) -> Iterator[tuple[str, int, int]]:
    """(type, payload start, payload end) of each top-level box, reading headers only: linear in the
    number of boxes, no copy of any payload."""
    offset = 0
    count = 0
    while offset < len(data):
        count += 1
        if count > max_boxes:
            raise BoxError(f"more than {max_boxes} top-level boxes")
        if len(data) - offset < 8:
            raise BoxError(f"{len(data) - offset} stray bytes at offset {offset}")
        size, raw_type = struct.unpack_from(">I4s", data, offset)
        header = 8
        if size == 1:
            if len(data) - offset < 16:
                raise BoxError(f"truncated large box header at offset {offset}")
            (size,) = struct.unpack_from(">Q", data, offset + 8)
            header = 16
        elif size == 0:
            size = len(data) - offset
        if size < header or offset + size > len(data):
            raise BoxError(f"box {raw_type!r} at offset {offset} claims {size} bytes, {len(data) - offset} left")
        yield raw_type.decode("latin-1"), offset + header, offset + size
        offset += size


def iter_boxes(data: bytes) -> list[tuple[str, bytes]]:
    """The top-level boxes as (type, payload after the header)."""
    return [(kind, data[start:end]) for kind, start, end in _box_spans(data)]


def parse_emsg(payload: bytes) -> EmsgBox:
    """Decodes one emsg payload (the bytes after the box header), version 0 or 1."""
    if not payload or payload[0] not in (0, 1):
        raise BoxError(f"emsg version {payload[0] if payload else None} is not defined")
    version = payload[0]
    body = payload[4:]
    try:
        if version == 1:
            timescale, presentation_time, duration, event_id = struct.unpack_from(">IQII", body, 0)
            scheme, rest = _cstring(body[20:])
            value, message = _cstring(rest)
        else:
            scheme, rest = _cstring(body)
            value, rest = _cstring(rest)
            timescale, presentation_time, duration, event_id = struct.unpack_from(">IIII", rest, 0)
            message = rest[16:]
    except (IndexError, ValueError, struct.error) as exc:
        raise BoxError(f"truncated emsg box: {exc}") from exc
    return EmsgBox(version, scheme, value, timescale, presentation_time, duration, event_id, bytes(message))


def find_id3_emsgs(part: bytes) -> list[EmsgBox]:
    """The top-level emsg boxes of a part whose scheme is the AOM ID3 one, in file order (at most
    `MAX_EMSGS`); only emsg payloads are copied, never the media."""
    found: list[EmsgBox] = []
    for kind, start, end in _box_spans(part):
        if kind != "emsg":
            continue
        box = parse_emsg(part[start:end])
        if box.scheme_id_uri == ID3_SCHEME:
            found.append(box)
            if len(found) >= MAX_EMSGS:
                break
    return found


def decode_id3(tag: bytes) -> list[DecodedFrame]:
    """The frames of an ID3v2 tag, as frameType/info/data the way the API's sendEvent names them."""
    try:
        id3 = _ID3(io.BytesIO(tag))
    except Exception as exc:  # mutagen raises several unrelated types for bad tags
        raise BoxError(f"not an ID3v2 tag: {exc}") from exc
    return [_decoded(frame) for frame in id3.values()]


def _decoded(frame: Any) -> DecodedFrame:
    frame_id = str(frame.FrameID)
    if frame_id == "PRIV":
        raw: bytes = frame.data
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            data = "0x" + raw.hex().upper()
        return DecodedFrame("PRIV", str(frame.owner), data)
    if frame_id == "TXXX":
        return DecodedFrame("TXXX", str(frame.desc), "\x00".join(str(t) for t in frame.text))
    if frame_id.startswith("T") and hasattr(frame, "text"):
        return DecodedFrame(frame_id, None, "\x00".join(str(t) for t in frame.text))
    return DecodedFrame(frame_id, None, None)


def _cstring(data: bytes) -> tuple[str, bytes]:
    end = data.index(b"\x00")
    return data[:end].decode("utf-8", errors="replace"), data[end + 1 :]

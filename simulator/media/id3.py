"""One ID3v2.4 tag per accepted id3v2 event set, written byte for byte as the real server writes it (no
padding), cached by content.

Frames, one per event sent, in order (a second TIT2, or a second TXXX with one description, is a frame
of its own, and an empty text is written too): TXXX (info = description, data = value) is 0x03 (UTF-8),
the description, 0x00, the value; any other T*** text frame is 0x03 then its text; PRIV (info = owner,
data = the UTF-8 bytes of the text) is the owner, 0x00, the data. No text ends with a NUL
(captures/ome-0.19.0 `markers/id3_emsg_part.json`, ome-api.md), unlike mutagen's own writer, which
appends one. The frame header is the id, a syncsafe size and two zero flag bytes.
"""

from __future__ import annotations

import functools
import logging

from simulator.media.model import TrackKind
from simulator.world.wire import Id3EventSet

log = logging.getLogger("simulator.media.id3")

_TRACKS: dict[str, frozenset[TrackKind]] = {
    "video": frozenset({"video"}),
    "audio": frozenset({"audio"}),
    "event": frozenset({"video", "audio"}),
}


def id3_tracks(event_set: Id3EventSet) -> frozenset[TrackKind]:
    """The fMP4 tracks whose parts carry the tag: eventType video, audio, or event (both)."""
    return _TRACKS[event_set.eventType]


def build_tag(event_set: Id3EventSet) -> bytes | None:
    """The whole ID3v2.4 tag (10-byte header + frames) for one event set, or None if it cannot be
    encoded. The API refuses such sets; this is the second line, so that one bad event is logged and
    left out of the media instead of failing every request for the stream from then on."""
    frames = tuple((f.frameType, f.info, f.data) for f in event_set.events)
    try:
        return _build(frames)
    except (ValueError, UnicodeError) as error:  # UnicodeEncodeError is a ValueError too
        log.error("an ID3 event set cannot be encoded and is left out of the media: %s", error)
        return None


@functools.lru_cache(maxsize=1024)
def _build(frames: tuple[tuple[str, str | None, str | None], ...]) -> bytes:
    body = b"".join(_frame_bytes(frame_type, info, data) for frame_type, info, data in frames)
    return b"ID3\x04\x00\x00" + _syncsafe(len(body)) + body


def _frame_bytes(frame_type: str, info: str | None, data: str | None) -> bytes:
    """Frame header (id, syncsafe size, no flags) + the payload."""
    payload = _payload(frame_type, info or "", data or "")
    return frame_type.encode("ascii") + _syncsafe(len(payload)) + b"\x00\x00" + payload


def _syncsafe(size: int) -> bytes:
    if size >= 1 << 28:
        raise ValueError("an ID3 frame of 256 MiB or more")
    return bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))


def _payload(frame_type: str, info: str, data: str) -> bytes:
    if frame_type == "TXXX":
        return b"\x03" + info.encode("utf-8") + b"\x00" + data.encode("utf-8")
    if frame_type == "PRIV":  # the owner identifier is ISO-8859-1 (ID3v2.4 4.27)
        return info.encode("latin-1") + b"\x00" + data.encode("utf-8")
    if not frame_type.startswith("T"):
        raise ValueError(f"unsupported ID3 frame type {frame_type!r}")
    return b"\x03" + data.encode("utf-8")

"""One ID3v2.4 tag per accepted id3v2 event set, built from mutagen's frames (no padding), cached by content.

Frames: TXXX (info = description, data = value), any other T*** text frame (data), PRIV
(info = owner, data = the UTF-8 bytes of the text). Text is UTF-8 (encoding 3), which v2.4 allows.

The tag is assembled here from each frame's own mutagen serialisation rather than with `ID3.add` /
`ID3.save`, because the real server writes every frame it is sent, one frame each, in order:
`ID3.add` keeps one frame per key (a second TIT2, or a second TXXX with the same description,
replaced the first) and `save` leaves out a text frame whose text is empty.
"""

from __future__ import annotations

import functools
import logging

from mutagen.id3 import PRIV, TXXX, Frame, Frames, TextFrame
from mutagen.id3._util import BitPaddedInt, ID3SaveConfig

from simulator.media.model import TrackKind
from simulator.world.wire import Id3EventSet

log = logging.getLogger("simulator.media.id3")

_TRACKS: dict[str, frozenset[TrackKind]] = {
    "video": frozenset({"video"}),
    "audio": frozenset({"audio"}),
    "event": frozenset({"video", "audio"}),
}
_V24 = ID3SaveConfig(4)  # type: ignore[no-untyped-call]


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
    """Frame header (id, syncsafe size, no flags) + mutagen's v2.4 serialisation of the frame."""
    payload: bytes = _frame(frame_type, info, data)._writeData(_V24)  # type: ignore[no-untyped-call]
    return frame_type.encode("ascii") + _syncsafe(len(payload)) + b"\x00\x00" + payload


def _syncsafe(size: int) -> bytes:
    encoded: bytes = BitPaddedInt.to_str(size, bits=7, width=4)
    return encoded


def _frame(frame_type: str, info: str | None, data: str | None) -> Frame:
    if frame_type == "TXXX":
        return TXXX(encoding=3, desc=info or "", text=[data or ""])  # type: ignore[no-untyped-call]
    if frame_type == "PRIV":
        return PRIV(owner=info or "", data=(data or "").encode("utf-8"))  # type: ignore[no-untyped-call]
    if not frame_type.startswith("T"):
        raise ValueError(f"unsupported ID3 frame type {frame_type!r}")
    # Text frames mutagen does not name (any T*** the API accepts) get a plain text-frame class.
    frame_class = Frames.get(frame_type) or type(frame_type, (TextFrame,), {})
    frame: Frame = frame_class(encoding=3, text=[data or ""])
    return frame

"""One ID3v2.4 tag per accepted id3v2 event set, built with mutagen (no padding), cached by content.

Frames: TXXX (info = description, data = value), any other T*** text frame (data), PRIV
(info = owner, data = the UTF-8 bytes of the text). Text is UTF-8 (encoding 3), which v2.4 allows.
"""

from __future__ import annotations

import functools
import io

from mutagen.id3 import ID3, PRIV, TXXX, Frame, Frames, TextFrame

from omeconsole.api.wire import Id3EventSet
from simulator.media.model import TrackKind

_TRACKS: dict[str, frozenset[TrackKind]] = {
    "video": frozenset({"video"}),
    "audio": frozenset({"audio"}),
    "event": frozenset({"video", "audio"}),
}


def id3_tracks(event_set: Id3EventSet) -> frozenset[TrackKind]:
    """The fMP4 tracks whose parts carry the tag: eventType video, audio, or event (both)."""
    return _TRACKS[event_set.eventType]


def build_tag(event_set: Id3EventSet) -> bytes:
    """The whole ID3v2.4 tag (10-byte header + frames) for one event set."""
    frames = tuple((f.frameType, f.info, f.data) for f in event_set.events)
    return _build(frames)


@functools.lru_cache(maxsize=1024)
def _build(frames: tuple[tuple[str, str | None, str | None], ...]) -> bytes:
    tag = ID3()  # type: ignore[no-untyped-call]
    for frame_type, info, data in frames:
        tag.add(_frame(frame_type, info, data))  # type: ignore[no-untyped-call]
    out = io.BytesIO()
    tag.save(out, v2_version=4, padding=lambda _info: 0)
    return out.getvalue()


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

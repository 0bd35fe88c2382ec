"""Decides, from playlists and part bytes alone, whether what was sent reached what players read.

Pure: no I/O, no tasks, no clock of its own. The follower feeds it each chunklist it read and the
bytes of the parts it asked for, and asks it which deadlines have passed; every answer is a list of
`Sighting`s (seen after N s, or not seen within N s). An expectation is matched by its kind: a new
CUE-OUT / DATERANGE out line for a cue-out, a new cue-in line for a cue-in, and for ID3 an `emsg`
in a new part carrying the same frames. When no playlist had been read before the send, a marker
counts only if it splices after the send (less a small slack for clock differences), and a part only
if it ends after it, so that a break or tag from before the send is never taken for this one. On a
server that writes no marker (open source 0.18 to 0.20) a cue is matched by the segment it cuts
(`splice_cut`): nothing else of it reaches the playlist.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from omeconsole.api.emsg import BoxError, DecodedFrame, decode_id3, find_id3_emsgs
from omeconsole.api.hls import MediaPlaylist, PartRef
from omeconsole.core.adops.splice_cut import hms, segment_cut, server_offset

ExpectKind = Literal["cue-out", "cue-in", "id3"]
Rendition = Literal["video", "audio"]
SPLICE_SLACK_S = 2.0
"""Without a playlist read before the send, a marker counts only if it splices at most this long
before the send (a marker cannot splice before it was asked for, allowing for clock differences)."""
MAX_SEEN = 4096
"""Markers and parts remembered as already seen; older ones have long left any live playlist."""


@dataclass(frozen=True)
class Expectation:
    """Something sent that the playlist (or the media) should show, and by when."""

    send_id: str
    kind: ExpectKind
    sent_at: float
    """Console monotonic seconds when the request left."""
    sent_wall: datetime
    deadline: float
    """Console monotonic seconds after which it is "not seen"."""
    baseline: bool
    """True when a playlist had been read before the send (then any new marker counts)."""
    frames: tuple[DecodedFrame, ...] = ()
    """For ID3: the frames as the media should give them back."""
    rendition: Rendition = "video"
    """Where an ID3 event is carried: audio-only events are looked for in the audio rendition."""
    by_cut: bool = False
    """The server writes no marker: the cue shows only as the segment it cuts at its splice point."""
    from_msn: int | None = None
    """The first segment not complete at the last read before the send: a cut is never older."""

    @property
    def timeout_s(self) -> float:
        return self.deadline - self.sent_at


@dataclass(frozen=True)
class Sighting:
    """The verdict on one Expectation: seen after N seconds, or not seen within its time."""

    kind: ExpectKind
    send_id: str
    seen_after_s: float | None
    detail: str
    line: str | None = None
    """The playlist line that showed it (a marker), verbatim: outside text."""
    splice_wall: datetime | None = None
    frames: tuple[DecodedFrame, ...] = ()
    by_cut: bool = False
    """Seen (or looked for) as a segment cut, on a server that writes no marker."""

    @property
    def seen(self) -> bool:
        return self.seen_after_s is not None


@dataclass(frozen=True)
class Id3Found:
    """An ID3 tag read out of a part (whether or not anything waited for it)."""

    frames: tuple[DecodedFrame, ...]
    part_uri: str
    presentation_time: int
    timescale: int


@dataclass(frozen=True)
class PlaylistBreak:
    """The latest ad break a playlist shows, whoever sent it."""

    splice_wall: datetime | None
    planned_s: float | None
    ended: bool
    """A cue-in follows the break's out in the playlist."""
    line: str


class _Seen:
    """A bounded set that forgets the oldest keys first."""

    def __init__(self) -> None:
        self._keys: dict[object, None] = {}

    def add(self, key: object) -> bool:
        """True if the key is new."""
        if key in self._keys:
            return False
        self._keys[key] = None
        if len(self._keys) > MAX_SEEN:
            del self._keys[next(iter(self._keys))]
        return True

    def __contains__(self, key: object) -> bool:
        return key in self._keys


class ConfirmationMatcher:
    """Pending expectations of one stream, matched against what the follower reads."""

    def __init__(self) -> None:
        self._pending: dict[str, Expectation] = {}
        self._markers = _Seen()
        self._parts = _Seen()
        self.reads = 0
        """Video chunklists fed so far: 0 means no baseline yet."""

    @property
    def pending(self) -> tuple[Expectation, ...]:
        return tuple(self._pending.values())

    def expect(self, expectation: Expectation) -> None:
        self._pending[expectation.send_id] = expectation

    def forget(self, send_id: str) -> None:
        """Drop an expectation without a verdict (its send failed: nothing to confirm)."""
        self._pending.pop(send_id, None)

    def next_deadline(self) -> float | None:
        return min((e.deadline for e in self._pending.values()), default=None)

    def on_playlist(self, playlist: MediaPlaylist, now: float, rendition: Rendition = "video", *,
                    wall: datetime | None = None) -> list[Sighting]:
        """Match the markers of a newly read chunklist (video only: markers are in the video rendition)."""
        if rendition == "video":
            self.reads += 1
        sightings: list[Sighting] = []
        for marker in playlist.markers if rendition == "video" else ():
            if not self._markers.add(marker.key) or marker.kind == "cont":
                continue
            kind: ExpectKind = "cue-out" if marker.kind == "out" else "cue-in"
            for expectation in self._pending.values():
                if expectation.kind != kind:
                    continue
                if not expectation.baseline and not _splices_after(marker.wall, expectation.sent_wall):
                    continue
                after = max(0.0, now - expectation.sent_at)
                sightings.append(self._resolve(expectation, Sighting(
                    kind, expectation.send_id, after, f"seen in playlist after {after:.1f} s",
                    line=marker.line, splice_wall=marker.wall)))
                break
        if rendition == "video":
            sightings.extend(self._cuts(playlist, now, wall))
        return sightings

    def _cuts(self, playlist: MediaPlaylist, now: float, wall: datetime | None) -> list[Sighting]:
        """Cues on a server that writes no marker: each is matched by the first new cut after its request,
        judged on the server's clock; the splice is given back on the console's (for the countdown)."""
        sightings: list[Sighting] = []
        offset = server_offset(playlist, wall) if wall is not None else timedelta(0)
        for expectation in [e for e in self._pending.values() if e.by_cut]:
            cut = segment_cut(playlist, expectation.sent_wall - offset, exclude=self._markers,
                              from_msn=expectation.from_msn)
            if cut is None:
                continue
            self._markers.add(("cut", cut.isoformat()))
            after = max(0.0, now - expectation.sent_at)
            sightings.append(self._resolve(expectation, Sighting(
                expectation.kind, expectation.send_id, after,
                f"splice seen (segment cut at {hms(cut)}), no marker written", splice_wall=cut + offset,
                by_cut=True)))
        return sightings

    def parts_to_scan(self, playlist: MediaPlaylist, rendition: Rendition = "video") -> list[PartRef]:
        """The new parts whose bytes an ID3 expectation needs; every listed part is remembered as seen."""
        new = [part for part in playlist.parts if self._parts.add((rendition, part.uri))]
        waiting = [e for e in self._pending.values() if e.kind == "id3" and e.rendition == rendition]
        if not waiting:
            return []
        if all(e.baseline for e in waiting):
            return new
        earliest = min(e.sent_wall for e in waiting) - timedelta(seconds=SPLICE_SLACK_S)
        return [p for p in new if p.wall is None or p.wall + timedelta(seconds=p.duration or 0) >= earliest]

    def on_part(self, part_uri: str, content: bytes, now: float) -> tuple[list[Id3Found], list[Sighting]]:
        """The ID3 tags in a part's bytes, and the expectations they meet. Malformed parts find nothing."""
        try:
            found = [Id3Found(tuple(decode_id3(box.message_data)), part_uri, box.presentation_time, box.timescale)
                     for box in find_id3_emsgs(content)]
        except BoxError:
            return [], []
        sightings: list[Sighting] = []
        for tag in found:
            for expectation in self._pending.values():
                if expectation.kind == "id3" and _same_frames(expectation.frames, tag.frames):
                    after = max(0.0, now - expectation.sent_at)
                    sightings.append(self._resolve(expectation, Sighting(
                        "id3", expectation.send_id, after, f"ID3 seen in the media after {after:.1f} s",
                        frames=tag.frames)))
                    break
        return found, sightings

    def expire(self, now: float, why: str | None = None) -> list[Sighting]:
        """Every expectation whose deadline has come: not seen within its time (and `why`, if known)."""
        due = [e for e in self._pending.values() if e.deadline <= now + 1e-9]
        return [self._resolve(e, not_seen(e, why)) for e in due]

    def _resolve(self, expectation: Expectation, sighting: Sighting) -> Sighting:
        self._pending.pop(expectation.send_id, None)
        return sighting


def not_seen(expectation: Expectation, why: str | None = None) -> Sighting:
    reason = f" ({why})" if why else ""
    if expectation.by_cut:
        return Sighting(expectation.kind, expectation.send_id, None,
                        f"splice not seen: no segment cut within {expectation.timeout_s:g} s of the request "
                        f"(this server writes no marker){reason}", by_cut=True)
    noun = "ID3 in the media" if expectation.kind == "id3" else f"{expectation.kind} in the playlist"
    return Sighting(expectation.kind, expectation.send_id, None,
                    f"{noun} not seen within {expectation.timeout_s:g} s{reason}")


def playlist_break(playlist: MediaPlaylist) -> PlaylistBreak | None:
    """The last break whose out the playlist lists, and whether a cue-in follows it."""
    markers = playlist.markers
    last_out = next((i for i in range(len(markers) - 1, -1, -1) if markers[i].kind == "out"), None)
    if last_out is None:
        return None
    out = markers[last_out]
    # The CUE-OUT line and its DATERANGE twin come together; the planned length is on either.
    twins = [m for m in markers if m.kind == "out" and m.msn == out.msn]
    planned = next((m.planned_s for m in twins if m.planned_s is not None), None)
    wall = next((m.wall for m in twins if m.wall is not None), None)
    ended = any(m.kind == "in" for m in markers[last_out + 1:])
    return PlaylistBreak(wall, planned, ended, out.line)


def expected_frames(frames: Iterable[tuple[str, str | None, str | None]]) -> tuple[DecodedFrame, ...]:
    """What the media should give back for (frameType, info, data) sent; ids are upper-cased by servers."""
    return tuple(DecodedFrame(kind.upper(), info, data) for kind, info, data in frames)


def _splices_after(wall: datetime | None, sent_wall: datetime) -> bool:
    return wall is None or wall >= sent_wall - timedelta(seconds=SPLICE_SLACK_S)


def _same_frames(sent: Sequence[DecodedFrame], seen: Sequence[DecodedFrame]) -> bool:
    """Same frames in any order (tag writers sort frames); info counts only for TXXX and PRIV."""
    return {_frame_key(f) for f in sent} == {_frame_key(f) for f in seen}


def _frame_key(frame: DecodedFrame) -> tuple[str, str, str]:
    info = (frame.info or "") if frame.frame_type in ("TXXX", "PRIV") else ""
    return frame.frame_type, info, frame.data or ""

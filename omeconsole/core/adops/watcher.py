"""Watches one stream's LL-HLS playlist to confirm that sent cues and ID3 reached what players read.

The API answering 200 only says the server took the request; the operator needs to know the
marker is in the playlist. The watcher follows the multivariant playlist to the video chunklist,
reloads it (blocking reload when the server offers it, plain polling otherwise), and matches new
CUE / DATERANGE lines, and ID3 `emsg` boxes in newly listed parts, against what was sent. Every
outcome is reported to listeners in plain words, including "playlist cannot be read: <why>",
because then the console must say it relies on the API answer alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from omeconsole.api.emsg import BoxError, DecodedFrame, decode_id3, find_id3_emsgs
from omeconsole.api.hls import MediaPlaylist, PartRef
from omeconsole.api.publisher import PlaylistUnreadable, PublisherReader
from omeconsole.core.clock import Clock

ExpectKind = Literal["cue-out", "cue-in", "id3"]
SPLICE_SLACK_S = 2.0
"""Without a playlist read before the send, a marker counts only if it splices at most this long
before the send (a marker cannot splice before it was asked for, allowing for clock differences)."""


@dataclass
class Expectation:
    """Something sent that the playlist (or the media) should show."""

    kind: ExpectKind
    sent_at: float
    """Console monotonic seconds when the send began."""
    sent_wall: datetime
    timeout_s: float
    send_id: str | None = None
    frames: tuple[DecodedFrame, ...] = ()
    """For ID3: the frames sent, as the media should give them back."""
    rendition: Literal["video", "audio"] = "video"
    """Where an ID3 event is carried: audio-only events are looked for in the audio rendition."""
    baseline: bool = False
    """True when the playlist had been read before the send (then only new markers count)."""
    future: asyncio.Future[Sighting] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Sighting:
    """The outcome for one Expectation: seen after N seconds, or not seen within the timeout."""

    kind: ExpectKind
    send_id: str | None
    seen_after_s: float | None
    detail: str
    line: str | None = None
    splice_wall: datetime | None = None
    frames: tuple[DecodedFrame, ...] = ()

    @property
    def seen(self) -> bool:
        return self.seen_after_s is not None


@dataclass(frozen=True)
class PlaylistRead:
    playlist: MediaPlaylist
    url: str


@dataclass(frozen=True)
class PlaylistUnavailable:
    reason: str

    @property
    def message(self) -> str:
        return f"playlist cannot be read: {self.reason}"


@dataclass(frozen=True)
class Id3Found:
    frames: tuple[DecodedFrame, ...]
    part_uri: str
    presentation_time: int
    timescale: int


WatcherEvent = PlaylistRead | PlaylistUnavailable | Sighting | Id3Found


class PlaylistWatcher:
    """One stream's playlist: `run()` follows it; `expect()` registers a send to confirm."""

    def __init__(self, reader: PublisherReader, *, clock: Clock, poll_interval: float = 1.0) -> None:
        self.reader = reader
        self.url = reader.url
        self._clock = clock
        self._poll_interval = poll_interval
        self._blocking_ok = True
        self._seen_audio_parts: set[str] = set()
        self._seen_markers: set[tuple[str, ...]] = set()
        self._seen_parts: set[str] = set()
        self._expectations: list[Expectation] = []
        self._listeners: list[Callable[[WatcherEvent], None]] = []
        self._reads = 0
        self._stopped = False
        self.latest: MediaPlaylist | None = None
        self.unavailable: str | None = None

    def __repr__(self) -> str:
        return f"PlaylistWatcher(url={self.url!r})"

    def add_listener(self, callback: Callable[[WatcherEvent], None]) -> None:
        self._listeners.append(callback)

    @property
    def pending(self) -> Sequence[Expectation]:
        return tuple(self._expectations)

    def expect(
        self,
        kind: ExpectKind,
        *,
        sent_at: float,
        sent_wall: datetime,
        timeout_s: float,
        send_id: str | None = None,
        frames: Sequence[DecodedFrame] = (),
        rendition: Literal["video", "audio"] = "video",
    ) -> Expectation:
        """Register a send; its Sighting is reported to listeners and set on `expectation.future`."""
        loop = asyncio.get_running_loop()
        expectation = Expectation(kind, sent_at, sent_wall, timeout_s, send_id, tuple(frames), rendition,
                                  baseline=self._reads > 0, future=loop.create_future())
        self._expectations.append(expectation)
        return expectation

    def forget(self, expectation: Expectation) -> None:
        """Drop an expectation without a report (its send failed: nothing to confirm)."""
        if expectation in self._expectations:
            self._expectations.remove(expectation)
        if expectation.future is not None and not expectation.future.done():
            expectation.future.cancel()

    async def run(self) -> None:
        """Read the playlist until `stop()`; deadlines are checked by a companion task."""
        deadlines = asyncio.create_task(self._deadline_loop(), name="playlist-deadlines")
        try:
            while not self._stopped:
                try:
                    ok = await self.poll_once(block=True)
                except Exception as exc:  # a watcher must never die silently behind a panel
                    self.unavailable = f"unexpected error: {type(exc).__name__}: {exc}"
                    self._emit(PlaylistUnavailable(self.unavailable))
                    ok = False
                if self._stopped:
                    break
                if not ok:
                    await self._clock.sleep(max(self._poll_interval, 2.0))
                elif self.latest is None or not self.latest.can_block_reload or self.latest.ended:
                    await self._clock.sleep(self._poll_interval)
        finally:
            deadlines.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await deadlines

    def stop(self) -> None:
        self._stopped = True

    async def aclose(self) -> None:
        self.stop()
        await self.reader.aclose()

    async def poll_once(self, *, block: bool = False) -> bool:
        """One read of the chunklist (blocking for the next part if asked and offered)."""
        try:
            playlist, url = await self._read(block and self._blocking_ok)
        except PlaylistUnreadable as exc:
            # Start over from the multivariant next time: the stream may have restarted with new
            # chunklist names, and a blocking directive from the old one would fail forever.
            self.reader.forget_chunklist()
            self._blocking_ok = False
            self.unavailable = str(exc)
            self._emit(PlaylistUnavailable(str(exc)))
            return False
        self._blocking_ok = True
        self.unavailable = None
        first_read = self._reads == 0
        self._reads += 1
        self.latest = playlist
        self._emit(PlaylistRead(playlist, url))
        self._match_markers(playlist)
        await self._match_id3(playlist, url, first_read)
        await self._match_audio_id3()
        self.check_deadlines()
        return True

    def check_deadlines(self) -> None:
        now = self._clock.monotonic()
        for expectation in list(self._expectations):
            waited = now - expectation.sent_at
            if waited >= expectation.timeout_s:
                why = f" ({self.unavailable})" if self.unavailable else ""
                noun = "ID3 in the media" if expectation.kind == "id3" else f"{expectation.kind} in the playlist"
                self._resolve(expectation, Sighting(
                    expectation.kind, expectation.send_id, None,
                    f"{noun} not seen within {expectation.timeout_s:g} s{why}",
                ))

    async def _deadline_loop(self) -> None:
        while not self._stopped:
            await self._clock.sleep(0.25)
            self.check_deadlines()

    async def _read(self, block: bool) -> tuple[MediaPlaylist, str]:
        params: dict[str, str] = {}
        latest = self.latest
        if block and latest is not None and latest.can_block_reload and not latest.ended:
            last = latest.last_part
            if last is not None:
                params = {"_HLS_msn": str(last.msn), "_HLS_part": str(last.index + 1)}
            else:
                params = {"_HLS_msn": str(latest.next_msn)}
        return await self.reader.chunklist(params)

    def _match_markers(self, playlist: MediaPlaylist) -> None:
        now = self._clock.monotonic()
        for marker in playlist.markers:
            if marker.key in self._seen_markers:
                continue
            self._seen_markers.add(marker.key)
            if marker.kind == "cont":
                continue
            kind: ExpectKind = "cue-out" if marker.kind == "out" else "cue-in"
            for expectation in self._expectations:
                if expectation.kind != kind:
                    continue
                if not expectation.baseline and not _splices_after_send(marker.wall, expectation.sent_wall):
                    continue
                after = max(0.0, now - expectation.sent_at)
                self._resolve(expectation, Sighting(
                    kind, expectation.send_id, after, f"seen in playlist after {after:.1f} s",
                    line=marker.line, splice_wall=marker.wall,
                ))
                break

    async def _match_id3(self, playlist: MediaPlaylist, url: str, first_read: bool) -> None:
        new_parts = [p for p in playlist.parts if p.uri not in self._seen_parts]
        self._seen_parts.update(p.uri for p in new_parts)
        if first_read and not self._expectations:
            return
        if any(e.kind == "id3" and e.rendition == "video" for e in self._expectations):
            await self._scan_parts(new_parts, url)

    async def _match_audio_id3(self) -> None:
        """Audio-only ID3 is only in the audio rendition: read it (plainly) while such a send waits."""
        waiting = [e for e in self._expectations if e.kind == "id3" and e.rendition == "audio"]
        if not waiting:
            return
        try:
            found = await self.reader.audio_chunklist()
        except PlaylistUnreadable:
            return
        if found is None:
            return
        audio, audio_url = found
        earliest = min(e.sent_wall for e in waiting) - timedelta(seconds=SPLICE_SLACK_S)
        new_parts = [p for p in audio.parts if p.uri not in self._seen_audio_parts
                     and (p.wall is None or p.wall + timedelta(seconds=p.duration or 0) >= earliest)]
        self._seen_audio_parts.update(p.uri for p in new_parts)
        await self._scan_parts(new_parts, audio_url)

    async def _scan_parts(self, parts: Sequence[PartRef], base_url: str) -> None:
        for part in parts:
            content = await self.reader.part(base_url, part.uri)
            if content is None:
                continue
            try:
                found = [(box, tuple(decode_id3(box.message_data))) for box in find_id3_emsgs(content)]
            except BoxError:
                continue
            for box, frames in found:
                self._emit(Id3Found(frames, part.uri, box.presentation_time, box.timescale))
                self._match_id3_frames(frames)

    def _match_id3_frames(self, frames: tuple[DecodedFrame, ...]) -> None:
        now = self._clock.monotonic()
        for expectation in self._expectations:
            if expectation.kind == "id3" and _same_frames(expectation.frames, frames):
                after = max(0.0, now - expectation.sent_at)
                self._resolve(expectation, Sighting(
                    "id3", expectation.send_id, after, f"ID3 seen in the media after {after:.1f} s", frames=frames,
                ))
                return

    def _resolve(self, expectation: Expectation, sighting: Sighting) -> None:
        if expectation in self._expectations:
            self._expectations.remove(expectation)
        if expectation.future is not None and not expectation.future.done():
            expectation.future.set_result(sighting)
        self._emit(sighting)

    def _emit(self, event: WatcherEvent) -> None:
        for listener in list(self._listeners):
            listener(event)


def _splices_after_send(wall: datetime | None, sent_wall: datetime) -> bool:
    return wall is None or wall >= sent_wall - timedelta(seconds=SPLICE_SLACK_S)


def _same_frames(sent: Sequence[DecodedFrame], seen: Sequence[DecodedFrame]) -> bool:
    """Same frames in any order (tag writers sort frames); info counts only for TXXX and PRIV."""
    return {_frame_key(f) for f in sent} == {_frame_key(f) for f in seen}


def _frame_key(frame: DecodedFrame) -> tuple[str, str, str]:
    info = (frame.info or "") if frame.frame_type in ("TXXX", "PRIV") else ""
    return frame.frame_type, info, frame.data or ""

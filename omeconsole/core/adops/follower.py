"""Follows one stream's LL-HLS: reads it with the api's `PublisherReader`, lets the matcher judge.

The reading is I/O (the reader, in `api`); the judging is pure (the matcher). This class only joins
them: it reloads the chunklist (blocking reload when the server offers it), fetches the parts the
matcher asks for, and keeps one timer on the injected clock for the earliest deadline, re-armed when
an expectation is added or met, so a verdict of "not seen within N s" comes at N s, not at the next
tick of a polling loop. It reads only while its owner says so (`run()` as a task, or `read_once()`);
deadlines run without it and then say that the playlist was not being read.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from omeconsole.api.hls import MediaPlaylist
from omeconsole.api.publisher import PlaylistUnreadable, PublisherReader
from omeconsole.core.adops.matcher import ConfirmationMatcher, Expectation, Id3Found, Rendition, Sighting
from omeconsole.core.clock import Clock

RETRY_AFTER_FAILURE_S = 2.0


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


FollowerEvent = PlaylistRead | PlaylistUnavailable | Sighting | Id3Found


class PlaylistFollower:
    """One stream's playlist reads and the deadlines of what waits for them; reports to one callback."""

    def __init__(self, reader: PublisherReader, clock: Clock, report: Callable[[FollowerEvent], None], *,
                 poll_interval: float = 1.0) -> None:
        self.reader = reader
        self.url = reader.url
        self.matcher = ConfirmationMatcher()
        self.latest: MediaPlaylist | None = None
        self.unavailable: str | None = None
        self.first_read = asyncio.Event()
        """Set after the first read, successful or not (a baseline wait ends on it)."""
        self._clock = clock
        self._report = report
        self._poll_interval = poll_interval
        self._blocking_ok = True
        self._last_read_at: float | None = None
        self._reading_since: float | None = None
        self._timer: asyncio.Task[None] | None = None
        self._armed_for: float | None = None

    def __repr__(self) -> str:
        return f"PlaylistFollower(url={self.url!r})"

    def expect(self, expectation: Expectation) -> None:
        self.matcher.expect(expectation)
        self._arm()

    def forget(self, send_id: str) -> None:
        self.matcher.forget(send_id)
        self._arm()

    async def run(self) -> None:
        """Read until cancelled: blocking reloads back to back, or one read per interval without them."""
        while True:
            try:
                ok = await self.read_once(block=True)
            except Exception as exc:  # a reader must never die silently behind a panel
                self.unavailable = f"unexpected error: {type(exc).__name__}: {exc}"
                self.first_read.set()
                self._report(PlaylistUnavailable(self.unavailable))
                ok = False
            if not ok:
                await self._clock.sleep(max(self._poll_interval, RETRY_AFTER_FAILURE_S))
            elif self.latest is None or not self.latest.can_block_reload or self.latest.ended:
                await self._clock.sleep(self._poll_interval)

    async def read_once(self, *, block: bool = False) -> bool:
        """One read of the chunklist (blocking for the next part if asked and offered), then matching."""
        self._reading_since = self._clock.monotonic()
        try:
            playlist, url = await self.reader.chunklist(self._block_params() if block and self._blocking_ok else None)
        except PlaylistUnreadable as exc:
            self._last_read_at = self._clock.monotonic()
            # Start over from the multivariant next time: the stream may have restarted with new
            # chunklist names, and a blocking directive from the old one would fail forever.
            self.reader.forget_chunklist()
            self._blocking_ok = False
            self.unavailable = str(exc)
            self.first_read.set()
            self._report(PlaylistUnavailable(str(exc)))
            return False
        finally:
            self._reading_since = None
        self._blocking_ok = True
        self.unavailable = None
        self.latest = playlist
        self._last_read_at = self._clock.monotonic()
        self.first_read.set()
        self._report(PlaylistRead(playlist, url))
        now = self._clock.monotonic()
        self._deliver(self.matcher.on_playlist(playlist, now, wall=self._clock.wall()))
        await self._scan(playlist, url, "video")
        if any(e.kind == "id3" and e.rendition == "audio" for e in self.matcher.pending):
            await self._scan_audio()
        self._arm()
        return True

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
            self._timer = None
        await self.reader.aclose()

    def _block_params(self) -> dict[str, str] | None:
        latest = self.latest
        if latest is None or not latest.can_block_reload or latest.ended:
            return None
        last = latest.last_part
        if last is not None:
            return {"_HLS_msn": str(last.msn), "_HLS_part": str(last.index + 1)}
        return {"_HLS_msn": str(latest.next_msn)}

    async def _scan_audio(self) -> None:
        """Audio-only ID3 is only in the audio rendition: read it (plainly) while such a send waits."""
        try:
            found = await self.reader.audio_chunklist()
        except PlaylistUnreadable:
            return
        if found is not None:
            await self._scan(found[0], found[1], "audio")

    async def _scan(self, playlist: MediaPlaylist, base_url: str, rendition: Rendition) -> None:
        for part in self.matcher.parts_to_scan(playlist, rendition):
            content = await self.reader.part(base_url, part.uri)
            if content is None:
                continue
            tags, sightings = self.matcher.on_part(part.uri, content, self._clock.monotonic())
            for tag in tags:
                self._report(tag)
            self._deliver(sightings)

    def _deliver(self, sightings: list[Sighting]) -> None:
        for sighting in sightings:
            self._report(sighting)

    def _arm(self) -> None:
        """One timer for the earliest deadline; replaced whenever the earliest deadline changes."""
        deadline = self.matcher.next_deadline()
        if self._timer is not None and deadline == self._armed_for:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._armed_for = deadline
        if deadline is not None:
            self._timer = asyncio.get_running_loop().create_task(self._expire_at(deadline), name="adops-deadline")

    async def _expire_at(self, deadline: float) -> None:
        await self._clock.sleep(deadline - self._clock.monotonic())
        now = self._clock.monotonic()
        sent = min((e.sent_at for e in self.matcher.pending if e.deadline <= now + 1e-9), default=now)
        if self._last_read_at is not None and self._last_read_at >= sent:
            why = self.unavailable
        elif self._reading_since is not None:
            why = "no playlist read finished: the publisher is slow or silent"
        else:
            why = "the playlist was not being read"
        self._timer = None
        self._deliver(self.matcher.expire(now, why))
        self._arm()

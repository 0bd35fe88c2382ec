"""`--wait-confirm` for the command line: send once, then wait until the playlist shows it.

A script that starts an ad break needs an exit status that means "players will see it", not just
"the API said OK". The playlist is read once before the send (so only a new marker counts), the
expectation is registered before the request leaves (so a fast marker is not missed), and the
wait ends with the delay, or with "not seen within N s" and a non-zero status.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from omeconsole.api.publisher import PublisherReader
from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import id3_expected_frames
from omeconsole.core.adops.watcher import Expectation, ExpectKind, PlaylistWatcher, Sighting
from omeconsole.core.clock import Clock, SystemClock
from omeconsole.model.paths import NodePath


class PlaylistConfirmer:
    """Open before the send, `finish()` after it: returns the Sighting (seen or not)."""

    def __init__(self, watcher: PlaylistWatcher, expectation: Expectation) -> None:
        self.watcher = watcher
        self.expectation = expectation

    @classmethod
    async def open(
        cls,
        publisher_url: str,
        path: NodePath,
        kind: ExpectKind,
        *,
        timeout_s: float,
        frames: Sequence[Id3Frame] = (),
        event_type: str = "event",
        clock: Clock | None = None,
        verify: bool = True,
    ) -> PlaylistConfirmer:
        if path.app is None or path.stream is None:
            raise ValueError(f"confirmation needs a stream path, not {path}")
        clock = clock or SystemClock()
        watcher = PlaylistWatcher(PublisherReader(publisher_url, path.app, path.stream, verify=verify), clock=clock)
        await watcher.poll_once()  # the baseline; if it fails, the run below keeps trying
        expectation = watcher.expect(kind, sent_at=clock.monotonic(), sent_wall=clock.wall(), timeout_s=timeout_s,
                                     frames=id3_expected_frames(frames),
                                     rendition="audio" if event_type == "audio" else "video")
        return cls(watcher, expectation)

    async def finish(self, audit: AuditLog | None = None, send_id: str | None = None) -> Sighting:
        """Follow the playlist until the expectation is met or times out; record it if audited."""
        assert self.expectation.future is not None
        runner = asyncio.create_task(self.watcher.run(), name="confirm-watcher")
        try:
            sighting = await self.expectation.future
        finally:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
            await self.watcher.aclose()
        if audit is not None and send_id is not None:
            with contextlib.suppress(OSError):
                audit.record_confirmation(send_id, sighting.seen_after_s, sighting.detail)
        return sighting

    async def cancel(self) -> None:
        """The send failed: nothing to wait for."""
        self.watcher.forget(self.expectation)
        await self.watcher.aclose()

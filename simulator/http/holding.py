"""Requests the publisher holds: blocking playlist reloads (HLS spec 6.2.5.2) and hinted parts, each
waiting on the world clock (a ManualClock in tests) until its part exists.

A request is held at most 3 x the target duration, then answered 503; a client that hangs up is let
go at once, so held requests never outlive their connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from simulator.http.asgi import Receive
from simulator.http.hls_requests import ClientGone, HttpError, directive
from simulator.media.live import LiveMedia
from simulator.media.model import TrackKind
from simulator.world.clock import Clock
from simulator.world.topology import Stream


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def hold(clock: Clock, stream: Stream, ready_ms: Callable[[], int | None], receive: Receive,
               hold_ms: int) -> None:
    """Sleep on `clock` until `ready_ms()` is reached; 503 after `hold_ms` or if the stream ends
    meanwhile (or `ready_ms()` is None); ClientGone if the client hangs up."""
    now = clock.now_ms()
    ready = ready_ms()
    if stream.live and ready is not None and now >= ready:
        return  # most requests: no need to watch the connection
    deadline = now + hold_ms
    hang_up = asyncio.ensure_future(_disconnected(receive))
    try:
        while True:
            now = clock.now_ms()
            ready = ready_ms()
            if not stream.live or ready is None:
                raise HttpError(503, "Service Unavailable")
            if now >= ready:
                return
            if now >= deadline:
                raise HttpError(503, "Service Unavailable")
            nap = asyncio.ensure_future(clock.sleep((min(ready, deadline) - now) / 1000))
            await asyncio.wait((nap, hang_up), return_when=asyncio.FIRST_COMPLETED)
            if hang_up.done():
                nap.cancel()
                raise ClientGone
    finally:
        hang_up.cancel()


async def blocking_reload(clock: Clock, stream: Stream, media: LiveMedia, track: TrackKind,
                          query: dict[str, list[str]], receive: Receive, hold_ms: int) -> None:
    """Hold a chunklist request until the part its directives ask for exists in `track` (a request
    without them waits for the first part only). 400 for directives the spec says to refuse."""
    msn = directive(query, "_HLS_msn")
    part = directive(query, "_HLS_part")
    if part is not None and msn is None:
        raise HttpError(400, "_HLS_part requires _HLS_msn")
    snapshot = media.snapshot(clock.now_ms(), track)
    if msn is None:
        if snapshot.last_msn >= 0:
            return
        msn, part = 0, 0
    if msn > snapshot.last_msn + 2:
        raise HttpError(400, f"_HLS_msn {msn} is beyond the last segment {snapshot.last_msn} + 2")
    wanted = (msn, part or 0)
    timeline = media.timeline
    if part is not None:
        layout = media.layout
        ahead = timeline.part_end(*wanted, track) - timeline.ticks_at(clock.now_ms())
        if ahead > layout.advance_part_limit * layout.grid(track).part_ticks:
            raise HttpError(400, f"_HLS_part {part} of segment {msn} is beyond the advance part limit")
    await hold(clock, stream, lambda: timeline.wall_ms(timeline.part_end(*wanted, track)), receive, hold_ms)

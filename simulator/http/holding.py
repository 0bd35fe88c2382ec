"""Requests the publisher holds: blocking playlist reloads (HLS spec 6.2.5.2) and hinted parts, each
waiting on the world clock (a ManualClock in tests) until its part exists.

As the real server does, a held request is answered when its part exists, however far ahead it asked
(captures/ome-0.19.0: `_HLS_msn=999999` was never answered; curl gave up after 40 s). A server must not
hold requests without bound, so past `max_hold_ms` the request is given up: its connection is closed
without a reply (`Unanswered`), which is what its client would have seen from the real server had it
waited that long. A stream that ends meanwhile answers 404, and a client that hangs up is let go at
once, so held requests never outlive their connections.
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


class Unanswered(Exception):
    """A held request given up after the hold bound: its connection is closed without a reply."""


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def hold(clock: Clock, stream: Stream, ready_ms: Callable[[], int | None], receive: Receive,
               max_hold_ms: int) -> None:
    """Sleep on `clock` until `ready_ms()` is reached; 404 if the stream ends meanwhile (or `ready_ms()` is
    None); Unanswered after `max_hold_ms`; ClientGone if the client hangs up."""
    now = clock.now_ms()
    ready = ready_ms()
    if stream.live and ready is not None and now >= ready:
        return  # most requests: no need to watch the connection
    deadline = now + max_hold_ms
    hang_up = asyncio.ensure_future(_disconnected(receive))
    try:
        while True:
            now = clock.now_ms()
            ready = ready_ms()
            if not stream.live or ready is None:
                raise HttpError(404)
            if now >= ready:
                return
            if now >= deadline:
                raise Unanswered
            nap = asyncio.ensure_future(clock.sleep((min(ready, deadline) - now) / 1000))
            await asyncio.wait((nap, hang_up), return_when=asyncio.FIRST_COMPLETED)
            if hang_up.done():
                nap.cancel()
                raise ClientGone
    finally:
        hang_up.cancel()


async def blocking_reload(clock: Clock, stream: Stream, media: LiveMedia, track: TrackKind,
                          query: dict[str, list[str]], receive: Receive, max_hold_ms: int) -> bool:
    """Hold a chunklist request until the part its directives ask for exists in `track` (a request
    without them waits for the first part only); True when it was a blocking reload (`_HLS_msn` given).
    404 for directives that are not numbers, or `_HLS_part` without `_HLS_msn`."""
    msn = directive(query, "_HLS_msn")
    part = directive(query, "_HLS_part")
    if part is not None and msn is None:
        raise HttpError(404)
    blocking = msn is not None
    snapshot = media.snapshot(clock.now_ms(), track)
    if msn is None:
        if snapshot.last_msn >= 0:
            return False
        msn, part = 0, 0
    wanted = (msn, part or 0)
    timeline = media.timeline
    await hold(clock, stream, lambda: timeline.wall_ms(timeline.part_end(*wanted, track)), receive, max_hold_ms)
    return blocking

"""Follows the playlists of the streams in front of the operator, so a break shows whoever sent it.

The console learns of its own breaks from its sends; a break that automation, a second operator or a
script POSTed is only in the stream's playlist. So, once per polling interval, this reads (one plain
read, no blocking reload) the playlist of:

1. the selected stream, and every stream with a break the console knows of (at most
   `MAX_PRIORITY`): these are read every interval, taking their requests from the polling engine's
   token bucket when it has them and going anyway when it has not (a bounded overrun:
   1 + `MAX_PRIORITY` reads per interval at most);
2. the other streams visible on screen, within the request budget: at most `FOLLOW_SHARE` of the
   bucket's rate, and only requests the bucket grants (the engine and this share one budget, so
   their sum over any stretch of time stays under it), least recently read first.

A stream whose ad-break screen is open is read by that screen's own follower (blocking reload) and
skipped here. A stream that leaves the screen (and has no break) is no longer read. On a server that
writes no ad markers only the selected stream is read: the others could show nothing.

Each read goes through the stream's controller (`StreamController.follower.read_once`), so a break
found is fed into the one break model (`AdBreak.on_playlist`) that the console's own sends drive.
Reads run concurrently, each with a deadline (`READ_DEADLINE_S`), and a failure is the stream's
playlist problem (shown where its break is), never the watch's end. Breaks the console did not send
are remembered with the time first seen (`first_seen`), for the events screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.clock import Clock
from omeconsole.core.polling.budget import TokenBucket
from omeconsole.model.paths import NodePath

FOLLOW_SHARE = 0.25
"""Of the request budget, the most that reading visible streams' playlists may take."""
MAX_PRIORITY = 8
"""Streams with a known break read every interval whatever the budget (the selected one comes on top)."""
READ_DEADLINE_S = 2.0
"""The longest one playlist read may take (a stalled server does not hold the next round)."""
FIRST_SEEN_KEPT = 500
"""Breaks seen in playlists remembered for the events screen (the oldest are forgotten first)."""
_SHOWN = (BreakState.SCHEDULED, BreakState.ON_AIR)


class WatchedScreen(Protocol):
    """What the watch reads of the polling engine: what is on screen, the interval and the budget."""

    @property
    def selected(self) -> NodePath | None: ...

    @property
    def on_screen(self) -> tuple[NodePath, ...]: ...

    @property
    def interval(self) -> float: ...

    @property
    def budget(self) -> TokenBucket: ...


@dataclass(frozen=True)
class FirstSeen:
    """A break the console did not send, as first seen in a stream's playlist."""

    path: NodePath
    seen_at: datetime
    """The console's wall clock when a playlist read first showed it."""
    splice_wall: datetime | None
    planned_s: float | None


class PlaylistWatch:
    """One server's following of playlists; `run()` as a task while its screens are shown."""

    def __init__(self, screen: WatchedScreen, controller_of: Callable[[NodePath], StreamController],
                 with_break: Callable[[], Iterable[NodePath]], clock: Clock, *,
                 markers_written: Callable[[], bool | None] = lambda: None, share: float = FOLLOW_SHARE) -> None:
        """`with_break`: the streams with a break the console knows of; `markers_written`: whether the
        server writes ad markers into playlists (False: external breaks cannot be seen; None: not known)."""
        self._screen = screen
        self._controller_of = controller_of
        self._with_break = with_break
        self._clock = clock
        self._markers_written = markers_written
        self._share = share
        self._last_read: dict[NodePath, float] = {}
        self._reading: set[NodePath] = set()
        self._first_seen: deque[FirstSeen] = deque(maxlen=FIRST_SEEN_KEPT)
        self._seen_keys: dict[tuple[NodePath, datetime | None], None] = {}
        self.reads: Counter[NodePath] = Counter()
        """Playlist reads started, per stream (since the watch began)."""
        self.following: frozenset[NodePath] = frozenset()
        """The streams the last round followed (read, or due in the visible rotation)."""
        self.rounds = 0
        """Rounds finished (every read of the round ended or gave up)."""
        self._round_waiters: list[tuple[int, asyncio.Future[None]]] = []

    def __repr__(self) -> str:
        return f"PlaylistWatch(following {len(self.following)})"

    @property
    def first_seen(self) -> tuple[FirstSeen, ...]:
        """Breaks the console did not send, oldest first, each once."""
        return tuple(self._first_seen)

    async def run(self) -> None:
        """A round now, then one per polling interval (console clock), until cancelled."""
        while True:
            await self.round()
            await self._clock.sleep(self._screen.interval)

    async def round(self) -> None:
        """Read what is due this round, concurrently; returns when every read finished or gave up."""
        chosen = self._choose()
        reads = [self._read(path) for path in chosen]
        if reads:
            await asyncio.gather(*reads)
        self.rounds += 1
        waiting, self._round_waiters = self._round_waiters, []
        for count, future in waiting:
            if count <= self.rounds and not future.done():
                future.set_result(None)
            elif not future.done():
                self._round_waiters.append((count, future))

    async def rounds_done(self, count: int) -> None:
        """Returns once `count` rounds have finished: what a test or a benchmark waits on, not time."""
        if self.rounds >= count:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._round_waiters.append((count, future))
        await future

    def _choose(self) -> list[NodePath]:
        selected = self._screen.selected
        priority: list[NodePath] = []
        if selected is not None and selected.level == "stream" and selected.addressable:
            priority.append(selected)
        for path in self._with_break():
            if len(priority) > MAX_PRIORITY:
                break
            if path not in priority:
                priority.append(path)
        visible: list[NodePath] = []
        if self._markers_written() is not False:
            visible = [p for p in self._screen.on_screen
                       if p.level == "stream" and p.addressable and p not in priority]
        visible.sort(key=lambda p: self._last_read.get(p, -math.inf))
        self.following = frozenset(priority + visible)
        budget = self._screen.budget
        quota = min(len(visible), int(budget.rate * self._screen.interval * self._share))
        granted = budget.take(len(priority) + quota)
        chosen = priority + visible[:max(0, granted - len(priority))]
        return [p for p in chosen if p not in self._reading and not self._controller_of(p).watched]

    async def _read(self, path: NodePath) -> None:
        controller = self._controller_of(path)
        self._reading.add(path)
        self._last_read[path] = self._clock.monotonic()
        self.reads[path] += 1
        try:
            await controller.follower.read_once(deadline=READ_DEADLINE_S)
        except Exception as error:  # one stream's unexpected failure is its playlist problem, said
            controller.follower.unavailable = f"unexpected error: {type(error).__name__}: {error}"
        finally:
            self._reading.discard(path)
        self._forget_gone()

    def _forget_gone(self) -> None:
        """Read times of streams no longer followed are dropped (a scroll through 10,000 rows)."""
        if len(self._last_read) > 4 * max(64, len(self.following)):
            self._last_read = {p: t for p, t in self._last_read.items() if p in self.following}

    def noted(self, controller: StreamController) -> FirstSeen | None:
        """Called on each change report of a stream: a break it did not send, the first time it shows."""
        view = controller.view()
        if view.sent_here or not view.from_playlist or view.state not in _SHOWN:
            return None
        key = (controller.path, view.splice_wall)
        if key in self._seen_keys:
            return None
        self._seen_keys[key] = None
        if len(self._seen_keys) > 4 * FIRST_SEEN_KEPT:
            del self._seen_keys[next(iter(self._seen_keys))]
        seen = FirstSeen(controller.path, self._clock.wall(), view.splice_wall, view.planned_s)
        self._first_seen.append(seen)
        return seen


async def stop(task: asyncio.Task[None] | None) -> None:
    """Cancel a watch's `run()` task and wait for it to end."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

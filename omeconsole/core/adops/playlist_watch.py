"""Follows the playlists of the streams in front of the operator, so a break shows whoever sent it.

The console learns of its own breaks from its sends; a break that automation, a second operator or a
script POSTed is only in the stream's playlist. So, after each polling round (once its requests are
answered: see `run`), at most once per interval, this reads (one plain
read, no blocking reload, on a connection closed after the reply: a publisher counts an open reader
as a viewer; each read entered in the ledger of the console's own reads, `own`, so the statistics leave
its bytes and its connection out) the playlist of:

1. the selected stream, and every stream with a break the console knows of (at most
   `MAX_PRIORITY`): these are read every interval, taking their requests from the polling engine's
   token bucket when it has them and going anyway when it has not (a bounded overrun:
   1 + `MAX_PRIORITY` reads per interval at most);
2. the other streams visible on screen, within the request budget: at most `FOLLOW_SHARE` of the
   bucket's rate, and only requests the bucket grants (the engine and this share one budget, so
   their sum over any stretch of time stays under it), least recently read first. That share is
   `reserve`d in the bucket while the watch runs: an engine polling 10,000 streams would otherwise
   take every token and leave the rows on screen unread (a reserve with nothing to read spills back to
   the engine). A visible stream whose playlist carried no ad marker at its last reads is read less
   often (every `QUIET_BACKOFF` more intervals, up to `QUIET_MAX_S`): reads are the watch's whole
   cost, and a quiet row is where a break is least likely to be missed for long.

A stream whose ad-break screen is open is read by that screen's own follower (blocking reload) and
skipped here. Nothing is read while polling is paused (`p`). A stream that leaves the screen (and
has no break) is no longer read, and what was kept for it (its reader, its last verdict) is dropped.
On a server that writes no ad markers only the selected stream is read: the others could show nothing.

What a read shows is judged by `seen_break` and fed into the one break model (`AdBreak.on_playlist`)
of the stream's controller; a controller is made only for a stream that has a break (or already has
one), so following thousands of rows costs a reader object each, not a controller. Reads run
concurrently, each with a deadline (`READ_DEADLINE_S`); a failure is the stream's playlist problem
(`problem(path)`, shown where its break is), never the watch's end. Breaks the console did not send
are remembered with the time first seen (`first_seen`), for the events screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from omeconsole.api.http import HttpTransport, Transport
from omeconsole.api.own_reads import OwnReads
from omeconsole.api.publisher import PlaylistUnreadable, PublisherReader
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.seen_break import SeenBreak, seen_break
from omeconsole.core.clock import Clock
from omeconsole.core.polling.budget import TokenBucket
from omeconsole.model.paths import NodePath

FOLLOW_SHARE = 0.1
"""Of the request budget, the most that reading visible streams' playlists may take (2 reads/s at 20)."""
MAX_PRIORITY = 8
"""Streams with a known break read every interval whatever the budget (the selected one comes on top)."""
READ_DEADLINE_S = 2.0
"""The longest one playlist read may take (a stalled server does not hold the next round)."""
ROUND_GAP = 0.9
"""A polling report starts a round once this share of an interval has passed since the last one."""
FALLBACK_INTERVALS = 2.0
"""Without polling reports (the link is down), a round every this many intervals."""
QUIET_BACKOFF = 2.0
"""A visible stream's rereads are this many times further apart after each read that showed no marker."""
QUIET_MAX_S = 8.0
"""The longest a visible stream (not the selected one, not one in a break) waits between reads for back-off."""
FIRST_SEEN_KEPT = 500
"""Breaks seen in playlists remembered for the events screen (the oldest are forgotten first)."""
_SHOWN = (BreakState.SCHEDULED, BreakState.ON_AIR)


@dataclass
class _Followed:
    """What the watch keeps of one followed stream: its reader and what its last read showed."""

    reader: PublisherReader
    last_read: float = -math.inf
    located: bool = False
    """Its chunklist's address is known (a read succeeded since the last failure): a read is one request."""
    quiet: int = 0
    """Reads in a row that showed no ad marker at all (the back-off's step)."""
    problem: str | None = None
    seen: SeenBreak | None = None
    reading: bool = field(default=False)


class WatchedScreen(Protocol):
    """What the watch reads of the polling engine: what is on screen, the interval and the budget."""

    @property
    def selected(self) -> NodePath | None: ...

    @property
    def on_screen(self) -> tuple[NodePath, ...]: ...

    @property
    def interval(self) -> float: ...

    @property
    def paused(self) -> bool: ...

    @property
    def requests_in_flight(self) -> int: ...

    def add_listener(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...

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

    def __init__(self, screen: WatchedScreen, publisher_url: str,
                 controller_of: Callable[[NodePath], StreamController],
                 known: Callable[[NodePath], StreamController | None],
                 with_break: Callable[[], Iterable[NodePath]], changed: Callable[[NodePath], None], clock: Clock, *,
                 markers_written: Callable[[], bool | None] = lambda: None, share: float = FOLLOW_SHARE,
                 verify: bool = True, transport: Transport | None = None, own: OwnReads | None = None) -> None:
        """`publisher_url`: where playlists are read, every stream's reader on one `transport` (by default
        connections closed after each reply, made and closed by `run()`); `controller_of` makes the
        stream's controller, `known` only finds it; `with_break`: the streams with a break the console knows
        of; `changed(path)`: what a read changed, for the screens; `markers_written`: whether the server
        writes ad markers into playlists (False: breaks of others cannot be seen; None: not known); `own`: the
        session's ledger of the console's own publisher reads (`OmeClient.own_reads`), which every read enters."""
        self._screen = screen
        self._publisher_url = publisher_url
        self._verify = verify
        self._transport = transport
        self._own = own
        self._controller_of = controller_of
        self._known = known
        self._with_break = with_break
        self._changed = changed
        self._clock = clock
        self._markers_written = markers_written
        self._share = share
        self._followed: dict[NodePath, _Followed] = {}
        self._first_seen: deque[FirstSeen] = deque(maxlen=FIRST_SEEN_KEPT)
        self._seen_keys: dict[tuple[NodePath, datetime | None], None] = {}
        self.reads: Counter[NodePath] = Counter()
        """Playlist reads started, per stream (since the watch began)."""
        self.following: frozenset[NodePath] = frozenset()
        """The streams the last round followed (read, or due in the visible rotation)."""
        self.waiting: frozenset[NodePath] = frozenset()
        """The streams on screen the watch follows but has not read (successfully) yet: their break is not known."""
        self.rounds = 0
        """Rounds finished (every read of the round ended or gave up)."""
        self._round_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._kick = asyncio.Event()
        self._in_round = False
        self._idle_waiters: list[asyncio.Future[None]] = []

    def __repr__(self) -> str:
        return f"PlaylistWatch(following {len(self.following)})"

    @property
    def first_seen(self) -> tuple[FirstSeen, ...]:
        """Breaks the console did not send, oldest first, each once."""
        return tuple(self._first_seen)

    def problem(self, path: NodePath) -> str | None:
        """Why the followed stream's playlist could not be read at its last read (outside text)."""
        followed = self._followed.get(path)
        return followed.problem if followed is not None else None

    def unread(self, path: NodePath) -> bool:
        """Whether `path` is on screen and its playlist not read (successfully) yet: its break is not known."""
        return path in self.waiting

    def seen(self, path: NodePath) -> SeenBreak | None:
        """What the followed stream's last read showed of breaks, and the markers it set aside."""
        followed = self._followed.get(path)
        return followed.seen if followed is not None else None

    async def run(self) -> None:
        """A round now, then one after each polling round (at most one per interval), until cancelled.

        A round starts when the engine's requests of the moment are all answered, or at least the selected
        node's (its report), not beside them: a server counts a playlist reader as a viewer while its
        connection is open, and a read open while the statistics request is served would be counted in the
        answer. Without reports (the link is down) a round comes every `FALLBACK_INTERVALS` intervals."""
        made = self._transport is None
        if made:
            self._transport = HttpTransport(verify=self._verify, follow_redirects=True, fresh_reads=True)
        kick = self._kick
        last = -math.inf

        def heard(update: Any) -> None:
            answered = self._screen.requests_in_flight == 0 or self._screen.selected in update.changed
            if answered and self._clock.monotonic() - last >= ROUND_GAP * self._screen.interval:
                kick.set()

        stop = self._screen.add_listener(heard)
        budget = self._screen.budget
        try:
            while True:
                kick.clear()
                last = self._clock.monotonic()
                await self.round()
                timer = asyncio.ensure_future(self._clock.sleep(FALLBACK_INTERVALS * self._screen.interval))
                waiter = asyncio.ensure_future(kick.wait())
                try:
                    await asyncio.wait((timer, waiter), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    timer.cancel()
                    waiter.cancel()
        finally:
            stop()
            budget.release(self)
            self._followed.clear()
            self.waiting = frozenset()
            kick.clear()
            self._wake_idle()
            if made and self._transport is not None:
                transport, self._transport = self._transport, None
                await transport.aclose()

    def _reader_of(self, path: NodePath) -> PublisherReader:
        assert path.app is not None and path.stream is not None
        return PublisherReader(self._publisher_url, path.app, path.stream, timeout=READ_DEADLINE_S,
                               verify=self._verify, transport=self._transport, own=self._own, vhost=path.vhost)

    @property
    def idle(self) -> bool:
        """No round is under way or asked for (every read made has been judged and shown)."""
        return not self._in_round and not self._kick.is_set()

    async def until_idle(self) -> None:
        """Returns once `idle`: what a test waits on before it looks at the screen, not time."""
        while not self.idle:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._idle_waiters.append(future)
            await future

    async def round(self) -> None:
        """Read what is due this round, concurrently; returns when every read finished or gave up."""
        self._in_round = True
        try:
            chosen = self._choose()
            reads = [self._read(path) for path in chosen]
            if reads:
                await asyncio.gather(*reads)
        finally:
            self._in_round = False
        self.rounds += 1
        waiting, self._round_waiters = self._round_waiters, []
        for count, future in waiting:
            if count <= self.rounds and not future.done():
                future.set_result(None)
            elif not future.done():
                self._round_waiters.append((count, future))
        if self.idle:
            self._wake_idle()

    def _wake_idle(self) -> None:
        idle, self._idle_waiters = self._idle_waiters, []
        for future in idle:
            if not future.done():
                future.set_result(None)

    async def rounds_done(self, count: int) -> None:
        """Returns once `count` rounds have finished: what a test or a benchmark waits on, not time."""
        if self.rounds >= count:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._round_waiters.append((count, future))
        await future

    def _choose(self) -> list[NodePath]:
        if self._screen.paused:
            return []  # the operator stopped the polling: no request goes out, playlists included
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
        followed = self._followed
        self.following = frozenset(priority + visible)
        for gone in [p for p, f in followed.items() if p not in self.following and not f.reading]:
            del followed[gone]  # left the screen: its reader and last verdict go
        self.waiting = frozenset(p for p in visible if p not in followed or followed[p].seen is None)
        now = self._clock.monotonic()
        interval = self._screen.interval
        due = sorted((p for p in visible if p not in followed or self._due(followed[p], now, interval)),
                     key=lambda p: followed[p].last_read if p in followed else -math.inf)
        budget = self._screen.budget
        per_round = budget.rate * interval * self._share
        budget.reserve(self, budget.rate * self._share, max(2.0, per_round))
        budget.take(sum(self._cost(p) for p in priority))  # these go whatever the bucket holds (a bounded overrun)
        chosen = list(priority)
        tokens = max(2, int(per_round))  # a small reserve gives a first read (2 requests) every few rounds
        for path in due:
            cost = self._cost(path)
            if cost > tokens or budget.held(self) + budget.available() < cost:
                break  # (asked only when the whole read can be had: a token taken alone would be lost)
            granted = budget.take_reserved(self, cost)
            budget.take(cost - granted)
            tokens -= cost
            chosen.append(path)
        return [p for p in chosen if not (p in followed and followed[p].reading) and not self._leased(p)]

    def _cost(self, path: NodePath) -> int:
        """Requests a read of `path` makes: 1 for the chunklist, 2 until its address is known (the
        multivariant playlist first)."""
        followed = self._followed.get(path)
        return 1 if followed is not None and followed.located else 2

    @staticmethod
    def _due(followed: _Followed, now: float, interval: float) -> bool:
        """A visible stream is due once its back-off has passed (none until its playlist has been quiet)."""
        wait = min(QUIET_MAX_S, interval * QUIET_BACKOFF ** followed.quiet) if followed.quiet else 0.0
        return now - followed.last_read >= wait

    def _leased(self, path: NodePath) -> bool:
        """An open ad-break screen reads this stream itself (blocking reload)."""
        controller = self._known(path)
        return controller is not None and controller.watched

    async def _read(self, path: NodePath) -> None:
        followed = self._followed.get(path)
        if followed is None:
            followed = self._followed[path] = _Followed(self._reader_of(path))
        followed.reading = True
        followed.last_read = self._clock.monotonic()
        self.reads[path] += 1
        try:
            playlist, _ = await followed.reader.chunklist(deadline=READ_DEADLINE_S)
        except PlaylistUnreadable as error:
            followed.reader.forget_chunklist()  # the stream may have restarted under new chunklist names
            followed.located = False
            self._judged(path, followed, str(error), None)
        except Exception as error:  # one stream's unexpected failure is its playlist problem, said
            followed.reader.forget_chunklist()
            followed.located = False
            self._judged(path, followed, f"unexpected error: {type(error).__name__}: {error}", None)
        else:
            followed.located = True
            followed.quiet = 0 if playlist.markers else min(followed.quiet + 1, 8)
            self._judged(path, followed, None, seen_break(playlist, self._clock.wall()))
        finally:
            followed.reading = False
            if path in self.waiting and followed.seen is not None:
                self.waiting = self.waiting - {path}
                self._changed(path)  # the row's break is known now (no break, or one)

    def _judged(self, path: NodePath, followed: _Followed, problem: str | None, seen: SeenBreak | None) -> None:
        """Feed what a read showed into the stream's break model; tell the screens if anything they show moved."""
        before = (followed.problem, followed.seen.ignored if followed.seen is not None else ())
        followed.problem, followed.seen = problem, seen
        controller = self._known(path)
        if controller is None and seen is not None and seen.current is not None and not seen.current.ended:
            controller = self._controller_of(path)  # a break: from now on it is shown everywhere
        if controller is not None and not controller.watched:
            controller.ad_break.playlist_status(problem is None)
            if seen is not None:
                controller.ad_break.on_playlist(seen.current)
            self._changed(path)
        elif before != (problem, seen.ignored if seen is not None else ()):
            self._changed(path)

    def noted(self, controller: StreamController) -> FirstSeen | None:
        """Called on each change report of a stream: a break it did not send, the first time it shows."""
        view = controller.view()
        if view.origin != "playlist" or view.state not in _SHOWN:
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

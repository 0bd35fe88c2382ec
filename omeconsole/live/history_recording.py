"""The console records what it polls: every sample its engine takes goes into the history store.

`ConsoleRecording` owns the store's writer for the app's whole life. `start()` opens it off the event
loop (opening and the first prune touch the disk); `follow(session, ...)` feeds it the sessions' samples,
each under its own server's name (one session, or every server of a fleet: one writer for all; a new
session, after a reconnection, replaces the old one's feed); `close()` writes out everything
taken and closes the file, off the loop too. Samples taken while the store is still opening wait in
a bounded list and are handed over once it is open, so the first seconds are recorded as well.

`follow_events(live)` records the ad breaks and alerts a session's charts draw (`ChartEvents`), as spans
written when they begin, change and end, each under a name of this recording's own, so that `--replay` and
`history` show them.

A store that cannot be opened (locked by another program past the busy timeout, on a read-only disk,
not a database) is said once, through `problem`, and the console runs on without history. The
`[history] enabled = false` setting (and the demo and replay, which have nothing of their own to
record) never open it.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from omeconsole.core.clock import Clock
from omeconsole.core.history.observations import Observation, ObservedSpan, ServerId, epoch_of
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.session import Session
from omeconsole.core.timeline import NodeEvent
from omeconsole.live.session import LiveSession

if TYPE_CHECKING:  # the store's modules load with the writer, off the first frame's path
    from omeconsole.core.history.writer import HistoryWriter, WriterStats


def server_of(session: Session) -> ServerId:
    """The name the store keeps the session's server under (host:port, labelled with the profile)."""
    return ServerId.from_url(session.context.api_url, session.context.profile)


class ConsoleRecording:
    def __init__(self, settings: HistorySettings, clock: Clock, *, path: Path | None = None) -> None:
        """`clock`: the console's; retention counts from its wall time."""
        self.settings = settings
        self._clock = clock
        self.path = path if path is not None else settings.database_path()
        self._writer: HistoryWriter | None = None
        self._waiting: list[Observation] = []
        self._failed = False
        self._closed = False
        self._unsubscribe: list[Callable[[], None]] = []
        self._run = secrets.token_hex(6)
        """Names this console's spans apart from those of other runs on the same store."""
        self._numbers = itertools.count(1)
        self._span_names: dict[tuple[int, Hashable], str] = {}
        """Spans going on, by (timeline, its key): the name their row is written under."""
        self.problem: str | None = None
        """Why nothing is recorded, once the store could not be opened (None while it records)."""
        self.settled = asyncio.Event()
        """Set once `start()` has opened the store or given up: readers of the store wait for it, so that
        they never read a file the writer is still creating."""

    @property
    def recording(self) -> bool:
        return self._writer is not None

    async def start(self) -> str | None:
        """Opens the store in a thread; returns what went wrong (also kept in `problem`), or None."""
        from omeconsole.core.history.database import HistoryError
        from omeconsole.core.history.writer import HistoryWriter

        try:
            writer = await asyncio.to_thread(HistoryWriter.start, self.path, self.settings, now=self._wall_now)
        except (HistoryError, OSError) as error:
            self._failed = True
            self._waiting = []
            self.problem = f"history is not recorded: {error}"
            return self.problem
        finally:
            self.settled.set()
        if self._closed:  # the app quit while the store was opening
            await asyncio.to_thread(writer.close)
            return None
        self._writer = writer
        waiting, self._waiting = self._waiting, []
        for observation in waiting:
            writer.offer(observation)
        return None

    def _wall_now(self) -> float:
        return self._clock.wall().timestamp()

    def follow(self, *sessions: Session) -> None:
        """Records the samples of `sessions` from now on, each under its server's name (and no longer the
        previously followed sessions')."""
        from omeconsole.core.history.engine_source import EngineSampleSource

        self.unfollow()
        if self._failed or self._closed:
            return
        sources = [EngineSampleSource(session.engine, session.clock, server_of(session)) for session in sessions]
        self._unsubscribe = [source.subscribe(self._offer) for source in sources]

    def follow_events(self, live: LiveSession) -> None:
        """Records the ad breaks and alerts `live`'s charts draw from now on (until `follow` or `unfollow`)."""
        if self._failed or self._closed:
            return
        server, clock, timeline = server_of(live.session), live.clock, live.events.timeline

        def store(key: Hashable, event: NodeEvent) -> None:
            known = (id(timeline), key)
            name = self._span_names.get(known)
            if name is None:
                name = self._span_names[known] = f"{self._run}-{next(self._numbers)}"
            if event.end is not None:
                del self._span_names[known]  # bounded by the spans going on
            self._offer(ObservedSpan(server, name, event.kind.value, event.path, epoch_of(clock, event.start),
                                     None if event.end is None else epoch_of(clock, event.end), event.label,
                                     event.severity, event.origin))

        self._unsubscribe.append(timeline.add_span_listener(store))

    def unfollow(self) -> None:
        self._span_names.clear()  # those sessions' spans are told no more (a new session's take their rows over)
        unsubscribe, self._unsubscribe = self._unsubscribe, []
        for stop in unsubscribe:
            stop()

    def _offer(self, observation: Observation) -> None:
        if self._writer is not None:
            self._writer.offer(observation)
        elif not self._failed and len(self._waiting) < self.settings.queue_size:
            self._waiting.append(observation)

    def stats(self) -> WriterStats | None:
        return None if self._writer is None else self._writer.stats()

    async def close(self) -> WriterStats | None:
        """Stops following, writes out every sample taken and closes the store (in a thread)."""
        self.unfollow()
        self._closed = True
        writer, self._writer = self._writer, None
        return None if writer is None else await asyncio.to_thread(writer.close)

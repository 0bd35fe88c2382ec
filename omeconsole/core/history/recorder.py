"""Headless recording: the console's polling with every listed node on "screen", every sample stored.

What `omeconsole record` runs under systemd. The engine's request budget is shared by all nodes as
it is in the console (listings first when the tree is unknown, then the nodes least recently read),
so at 10,000 streams and 20 requests/s each stream is read every few minutes, not every second: the
store says so per node ("sampled every N s"). Stopping (SIGTERM, SIGINT) stops the polling first and
then writes out everything taken, so no sample the engine took is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from omeconsole.core.clock import Clock
from omeconsole.core.history.engine_source import EngineSampleSource
from omeconsole.core.history.observations import Observation, ObservedSample, ServerId
from omeconsole.core.history.writer import HistoryWriter, WriterStats
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState


@dataclass(frozen=True, slots=True)
class RecorderStatus:
    server: ServerId
    link: LinkState
    listed: int
    """Nodes the server lists now (vhosts, apps and streams)."""
    sampled: int
    """Distinct nodes sampled since the recorder started."""
    requests: int
    writer: WriterStats


class Recorder:
    def __init__(self, engine: PollingEngine, clock: Clock, server: ServerId, writer: HistoryWriter) -> None:
        self.engine = engine
        self.writer = writer
        self.server = server
        self._source = EngineSampleSource(engine, clock, server)
        self._listed: list[NodePath] = []
        self._sampled: set[NodePath] = set()

    def status(self) -> RecorderStatus:
        return RecorderStatus(self.server, self.engine.connection, len(self._listed), len(self._sampled),
                              self.engine.requests_sent, self.writer.stats())

    def _store(self, observation: Observation) -> None:
        if isinstance(observation, ObservedSample):
            self._sampled.add(observation.path)
        self.writer.offer(observation)

    def _follow_listing(self, update: EngineUpdate) -> None:
        if update.tree_changed or update.connection_changed:
            self._listed = self._source.listed()
            self.engine.set_on_screen(self._listed, expanded=[p for p in self._listed if p.level == "app"])

    def attach(self) -> Callable[[], None]:
        """Starts recording whatever the engine polls; returns the function that stops it (the engine's
        own `run()` is the caller's, as in the console)."""
        unsubscribe = self._source.subscribe(self._store)
        stop_following = self.engine.add_listener(self._follow_listing)

        def detach() -> None:
            stop_following()
            unsubscribe()

        return detach

    async def run(self, stop: asyncio.Event) -> RecorderStatus:
        """Polls and records until `stop` is set, then stops polling and writes everything out."""
        detach = self.attach()
        polling = asyncio.create_task(self.engine.run())
        stopped = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({polling, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            self.engine.stop()
            (outcome,) = await asyncio.gather(polling, return_exceptions=True)
            detach()
            await asyncio.to_thread(self.writer.flush)
        if isinstance(outcome, Exception):
            raise outcome  # the engine never raises for server trouble: this is a bug, not an outage
        return self.status()

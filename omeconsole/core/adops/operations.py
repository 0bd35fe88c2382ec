"""The ad operations of one server: a controller per stream, and what they share.

A session holds one `AdOps`; screens and commands ask it for a stream's `StreamController` and work
with that alone (plan, send, watch). Observers learn that a stream's state changed — a read, a
sighting, a send — by path, to redraw; outcomes are not broadcast: each send's caller gets its own.
"""

from __future__ import annotations

from collections.abc import Callable

from omeconsole.api.client import OmeClient
from omeconsole.api.publisher import PublisherReader
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.controller import DEFAULT_CONFIRM_TIMEOUT_S, Shared, StreamController
from omeconsole.core.clock import Clock
from omeconsole.core.context import ServerContext
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.model.paths import NodePath

ReaderFactory = Callable[[NodePath], PublisherReader]


class AdOps:
    """Every stream controller of one server connection, created on first use."""

    def __init__(self, client: OmeClient, audit: AuditLog, clock: Clock, context: ServerContext, *,
                 publisher_url: str, verify: bool = True, confirm_timeout_s: float = DEFAULT_CONFIRM_TIMEOUT_S,
                 reader: ReaderFactory | None = None) -> None:
        self.client = client
        self.audit = audit
        self.clock = clock
        self.context = context
        self.publisher_url = publisher_url
        self._verify = verify
        self._listeners: Listeners[[NodePath]] = Listeners("ad operations")
        self._shared = Shared(client, audit, clock, context, reader or self._reader, self._changed, confirm_timeout_s)
        self._streams: dict[NodePath, StreamController] = {}

    def __repr__(self) -> str:
        return f"AdOps({self.context.host}, {len(self._streams)} stream(s))"

    @property
    def read_only(self) -> bool:
        return self.context.read_only

    def stream(self, path: NodePath) -> StreamController:
        """The stream's controller (nothing is read until someone `watch()`es it)."""
        controller = self._streams.get(path)
        if controller is None:
            controller = self._streams[path] = StreamController(path, self._shared)
        return controller

    def in_flight(self) -> list[str]:
        """The sends that left and are not answered yet, in words (`cue-out to default/app/news`)."""
        return [f"{controller.ad_break.in_flight} to {path}" for path, controller in self._streams.items()
                if controller.ad_break.in_flight is not None]

    def add_listener(self, callback: Callable[[NodePath], None]) -> Unsubscribe:
        """`callback(path)` whenever that stream's state changed (to redraw what shows it)."""
        return self._listeners.add(callback)

    async def aclose(self) -> None:
        for controller in self._streams.values():
            await controller.aclose()

    def _changed(self, path: NodePath) -> None:
        self._listeners.tell(path)

    def _reader(self, path: NodePath) -> PublisherReader:
        assert path.app is not None and path.stream is not None
        return PublisherReader(self.publisher_url, path.app, path.stream, verify=self._verify,
                               own=self.client.own_reads, vhost=path.vhost)

"""What the alerts and the exporter read from a polling engine, and nothing more.

`NodeSource` is the narrow protocol: the listing, a node's view, the link state, listeners told the
engine's own `EngineUpdate`s, and the set of nodes to keep fresh. `EngineSource` fits the `PollingEngine`
to it (its updates pass through as they are).

`Observed` sits on any `NodeSource` and keeps the few facts the rules need that no single view holds:
what changed since the last evaluation (the updates merged with `|`), when the last successful read
arrived, and how many reads failed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import EngineUpdate, Listener, PollingEngine
from omeconsole.model.nodes import Listing, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState

FIRST_DRAIN = EngineUpdate(tree_changed=True)
"""What the first evaluation has to assume: the whole listing is new to it."""


class NodeSource(Protocol):
    """The engine as the alerts and the exporter see it (one server)."""

    @property
    def connection(self) -> LinkState: ...

    def listing(self) -> Listing: ...

    def node(self, path: NodePath) -> NodeView: ...

    def add_listener(self, listener: Listener) -> Unsubscribe: ...

    def watch(self, paths: Iterable[NodePath]) -> None:
        """Keep these nodes fresh (in this order of importance where the engine can honour it)."""
        ...


class EngineSource:
    """Today's `PollingEngine` behind `NodeSource`."""

    def __init__(self, engine: PollingEngine) -> None:
        self._engine = engine

    @property
    def connection(self) -> LinkState:
        return self._engine.connection

    def listing(self) -> Listing:
        return self._engine.listing()

    def node(self, path: NodePath) -> NodeView:
        return self._engine.node(path)

    def add_listener(self, listener: Listener) -> Unsubscribe:
        return self._engine.add_listener(listener)

    def watch(self, paths: Iterable[NodePath]) -> None:
        watched = list(paths)
        self._engine.set_on_screen(watched, expanded=[p for p in watched if p.level == "app"])


class Observed:
    """A `NodeSource` plus what the rules and metrics derive from its updates over time."""

    def __init__(self, source: NodeSource) -> None:
        self.source = source
        self.last_success_at: float | None = None
        """Console monotonic time of the newest successful reading of any node."""
        self.read_errors = 0
        """Failed reads reported by the engine (a node's poll that ended in an error, a failed connect)."""
        self._pending = FIRST_DRAIN
        self._link_failures = 0
        source.add_listener(self._on_change)  # for the source's life: the rules and metrics live as long

    def _on_change(self, update: EngineUpdate) -> None:
        self._pending |= update
        for path in update.changed:
            view = self.source.node(path)
            if view.error is not None:
                self.read_errors += 1
            elif view.latest is not None and (self.last_success_at is None or view.latest.at > self.last_success_at):
                self.last_success_at = view.latest.at
        link = self.source.connection
        if link.last_success_at is not None and (self.last_success_at is None
                                                 or link.last_success_at > self.last_success_at):
            self.last_success_at = link.last_success_at
        if link.status != "connected" and link.failures > self._link_failures and not update.changed:
            self.read_errors += link.failures - self._link_failures
        self._link_failures = link.failures

    def drain(self) -> tuple[frozenset[NodePath], bool]:
        """Paths changed since the last drain, and whether the listing changed meanwhile."""
        pending, self._pending = self._pending, EngineUpdate()
        return pending.changed, pending.tree_changed

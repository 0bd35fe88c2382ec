"""What the alerts and the exporter read from a polling engine, and nothing more.

`NodeSource` is the narrow protocol: the listing, a node's view, the link state, a listener told which
paths changed, and the set of nodes to keep fresh. `EngineSource` fits today's `PollingEngine` to it;
when the polling package's façade lands, it can implement `NodeSource` directly (or this adapter can be
re-pointed) without touching the rules or the exporter.

`Observed` sits on any `NodeSource` and keeps the few facts the rules need that no single view holds:
which paths changed since the last evaluation, when the last successful read arrived, and how many
reads failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.model.nodes import Listing, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState


@dataclass(frozen=True, slots=True)
class Changes:
    """What one engine update touched."""

    paths: frozenset[NodePath] = frozenset()
    listing: bool = False
    link: bool = False


ChangeListener = Callable[[Changes], None]


class NodeSource(Protocol):
    """The engine as the alerts and the exporter see it (one server)."""

    @property
    def connection(self) -> LinkState: ...

    def listing(self) -> Listing: ...

    def node(self, path: NodePath) -> NodeView: ...

    def add_change_listener(self, callback: ChangeListener) -> None: ...

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

    def add_change_listener(self, callback: ChangeListener) -> None:
        def forward(update: EngineUpdate) -> None:
            callback(Changes(update.changed, update.tree_changed, update.connection_changed))

        self._engine.add_listener(forward)

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
        self._changed: set[NodePath] = set()
        self._listing_changed = True
        self._link_failures = 0
        source.add_change_listener(self._on_change)

    def _on_change(self, changes: Changes) -> None:
        self._changed |= changes.paths
        self._listing_changed = self._listing_changed or changes.listing
        for path in changes.paths:
            view = self.source.node(path)
            if view.error is not None:
                self.read_errors += 1
            elif view.latest is not None and (self.last_success_at is None or view.latest.at > self.last_success_at):
                self.last_success_at = view.latest.at
        link = self.source.connection
        if link.last_success_at is not None and (self.last_success_at is None
                                                 or link.last_success_at > self.last_success_at):
            self.last_success_at = link.last_success_at
        if link.status != "connected" and link.failures > self._link_failures and not changes.paths:
            self.read_errors += link.failures - self._link_failures
        self._link_failures = link.failures

    def drain(self) -> tuple[frozenset[NodePath], bool]:
        """Paths changed since the last drain, and whether the listing changed meanwhile."""
        changed, listing = frozenset(self._changed), self._listing_changed
        self._changed.clear()
        self._listing_changed = False
        return changed, listing

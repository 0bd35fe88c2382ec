"""The polling engine as a `SampleSource`: the one place that knows how the engine reports its readings.

Today's `PollingEngine` tells listeners which nodes changed; the adapter reads each changed node's
view and passes on what is new: a sample it has not passed on yet, the node's end (once, until it is
live again), a stream description that changed. Re-pointing the store at another engine (the polling
façade with `listing()` and `node(path)`) means rewriting this file only.
"""

from __future__ import annotations

from collections.abc import Callable

from omeconsole.core.clock import Clock
from omeconsole.core.history.observations import (
    ObservationSink,
    ObservedEnd,
    ObservedInfo,
    ObservedSample,
    ServerId,
    epoch_of,
)
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import StreamInfo


class EngineSampleSource:
    def __init__(self, engine: PollingEngine, clock: Clock, server: ServerId) -> None:
        self.engine = engine
        self.server = server
        self._clock = clock
        self._passed_on: dict[NodePath, float] = {}
        """The `at` of the latest sample passed on, per node."""
        self._ended: set[NodePath] = set()
        self._info: dict[NodePath, StreamInfo] = {}

    def subscribe(self, sink: ObservationSink) -> Callable[[], None]:
        """`sink` gets what the engine reads from now on, and first what it has read already: the console's
        first session polls while the UI loads, before anything records it, and its first readings count."""
        def listener(update: EngineUpdate) -> None:
            for path in update.changed:
                self._observe(path, sink)

        unsubscribe = self.engine.add_listener(listener)
        selected = self.engine.selected
        for path in dict.fromkeys([*([selected] if selected is not None else []), *self.listed()]):
            self._observe(path, sink)
        return unsubscribe

    def _observe(self, path: NodePath, sink: ObservationSink) -> None:
        view = self.engine.node(path)
        latest = view.latest
        if latest is not None and self._passed_on.get(path) != latest.at:
            self._passed_on[path] = latest.at
            sink(ObservedSample(self.server, path, latest, epoch_of(self._clock, latest.at)))
        if view.info is not None and self._info.get(path) is not view.info:
            self._info[path] = view.info
            sink(ObservedInfo(self.server, path, view.info, self._clock.wall().timestamp()))
        if view.state is NodeState.ENDED:
            if path not in self._ended:
                self._ended.add(path)
                self._info.pop(path, None)
                self._passed_on.pop(path, None)  # bounded however many streams come and go
                sink(ObservedEnd(self.server, path, self._clock.wall().timestamp()))
        else:
            self._ended.discard(path)

    def listed(self) -> list[NodePath]:
        """Every node the engine's listings hold now (vhosts, apps, streams) that the API can be asked about."""
        paths: list[NodePath] = []
        for vhost, apps in self.engine.listing().items():
            paths.append(NodePath(vhost))
            for app, streams in apps.items():
                paths.append(NodePath(vhost, app))
                paths.extend(NodePath(vhost, app, stream) for stream in streams.live)
        return [path for path in paths if path.addressable]

"""What happened to a node, for its chart: ad breaks, alerts firing, a stream's start, end and restarts.

One `NodeEvent` per happening: its kind, the node it happened to, when it began and ended, and a label
(an alert's rule name; nothing else needs one). Times are the console clock's monotonic seconds, the clock
of the readings, so an event sits on the chart's time axis exactly where the readings it explains are; a
span still going on (a break on air, an alert firing) has no end yet (`end` None).

A `Timeline` keeps the last `per_node` events of each node, for at most `max_nodes` nodes (the nodes
least recently given an event are forgotten first), so a console up for days holds a bounded amount.

What a node's chart shows of the nodes below it (the operator's question on an application's or host's
chart is "why did the sum move?"):
- a stream's ad breaks, restarts and end are drawn on its application's and its host's charts too,
  labelled with the stream's name (`news`, or `app/news` on the host's);
- a stream's start is drawn on them only when the stream started while the console was running (a
  stream found already up does not change the sum at its start: the console was not looking then);
- an alert firing on a node is drawn on that node and its ancestors; an alert of the whole server (no
  node) on every node's chart.
"""

from __future__ import annotations

import enum
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.model.paths import NodePath

PER_NODE = 40
"""Events kept per node (its own and those of the nodes below it), newest kept."""
MAX_NODES = 2_000
"""Nodes with a timeline at most; the least recently told an event is dropped first."""


class EventKind(enum.Enum):
    AD_BREAK = "ad break"
    ALERT = "alert"
    START = "start"
    END = "end"
    RESTART = "restart"

    @property
    def spans(self) -> bool:
        """Ad breaks and alerts last a while (a band on the chart); the others are instants (a column)."""
        return self in (EventKind.AD_BREAK, EventKind.ALERT)


TO_ANCESTORS = frozenset({EventKind.AD_BREAK, EventKind.ALERT, EventKind.RESTART, EventKind.END})
"""Kinds of a stream's events that its application's and host's charts show too (START: see the module)."""


@dataclass(frozen=True, slots=True)
class NodeEvent:
    kind: EventKind
    path: NodePath | None
    """The node it happened to; None for the whole server (a server-level alert)."""
    start: float
    """Console monotonic seconds."""
    end: float | None = None
    """None while it goes on (spans) and always for instants."""
    label: str = ""
    """Server or config text (an alert's rule name): display it through `core.text.visible`."""
    severity: str = ""
    """An alert's rule's severity ("" for the other kinds)."""
    origin: str = ""
    """An ad break's: "sent" by this console, seen in the "playlist", recalled from the "audit" log ("" else)."""

    @property
    def is_open(self) -> bool:
        return self.kind.spans and self.end is None


def name_under(event: NodeEvent, viewed: NodePath) -> str:
    """How `event`'s node is named on `viewed`'s chart: "" for the node itself (or the whole server), else
    its path below `viewed` (`news` on its application, `app/news` on its host)."""
    path = event.path
    if path is None or path == viewed:
        return ""
    parts = [p for p in (path.vhost, path.app, path.stream) if p is not None]
    depth = sum(1 for p in (viewed.vhost, viewed.app, viewed.stream) if p is not None)
    return "/".join(parts[depth:])


def wall_at(at: float, now: float, wall_now: datetime) -> datetime:
    """The wall time of console instant `at`, from one instant read of both clocks (`now`, `wall_now`)."""
    return wall_now - timedelta(seconds=now - at)


def ancestors(path: NodePath) -> Iterator[NodePath]:
    parent = path.parent
    while parent is not None:
        yield parent
        parent = parent.parent


class Timeline:
    """Per-node event lists, bounded. `open`/`close` a span under a key of the caller's, `point` an instant."""

    def __init__(self, began: float, *, per_node: int = PER_NODE, max_nodes: int = MAX_NODES) -> None:
        """`began`: when the console started looking (monotonic); a stream that started earlier is not drawn
        on its ancestors' charts."""
        self.began = began
        self._per_node = per_node
        self._max_nodes = max_nodes
        self._nodes: OrderedDict[NodePath | None, deque[NodeEvent]] = OrderedDict()
        self._open: dict[Hashable, NodeEvent] = {}
        self._spans: Listeners[[Hashable, NodeEvent]] = Listeners("timeline")

    def add_span_listener(self, listener: Callable[[Hashable, NodeEvent], None]) -> Unsubscribe:
        """`listener(key, span)` each time a span begins, is corrected or ends (the history store keeps them)."""
        return self._spans.add(listener)

    def __len__(self) -> int:
        """Nodes holding events (the server's own list counts as one)."""
        return len(self._nodes)

    def open(self, key: Hashable, kind: EventKind, path: NodePath | None, start: float, label: str = "", *,
             severity: str = "", origin: str = "") -> None:
        """A span begins (again under the same key: its start and label are corrected, nothing is added)."""
        known = self._open.get(key)
        event = NodeEvent(kind, path, start, None, label, severity, origin)
        if known is not None:
            if known != event:
                self._swap(known, event)
                self._open[key] = event
                self._spans.tell(key, event)
            return
        self._open[key] = event
        self._add(event)
        self._spans.tell(key, event)

    def close(self, key: Hashable, end: float) -> None:
        """The span under `key` ends at `end` (never before it began); an unknown key is ignored."""
        known = self._open.pop(key, None)
        if known is not None:
            ended = replace(known, end=max(end, known.start))
            self._swap(known, ended)
            self._spans.tell(key, ended)

    def is_open(self, key: Hashable) -> bool:
        return key in self._open

    def open_keys(self) -> list[Hashable]:
        return list(self._open)

    def point(self, kind: EventKind, path: NodePath, at: float, label: str = "") -> None:
        """An instant; told again (a replay played over it twice), it is kept once."""
        event = NodeEvent(kind, path, at, None, label)
        if event not in self._nodes.get(path, ()):
            self._add(event)

    def events(self, path: NodePath, since: float | None = None) -> list[NodeEvent]:
        """What `path`'s chart and list show: its events, those of the nodes below it that it shows (see the
        module), and the server's own; newest first; only those still going on or ended at or after `since`."""
        found = [*self._nodes.get(path, ()), *(() if path is None else self._nodes.get(None, ()))]
        if since is not None:
            found = [e for e in found if (e.end if e.end is not None else e.start) >= since or e.is_open]
        return sorted(found, key=lambda e: e.start, reverse=True)

    def _holders(self, event: NodeEvent) -> list[NodePath | None]:
        path = event.path
        if path is None:
            return [None]
        if event.kind in TO_ANCESTORS or (event.kind is EventKind.START and event.start > self.began):
            return [path, *ancestors(path)]
        return [path]

    def _add(self, event: NodeEvent) -> None:
        for holder in self._holders(event):
            events = self._nodes.get(holder)
            if events is None:
                events = self._nodes[holder] = deque(maxlen=self._per_node)
                while len(self._nodes) > self._max_nodes:
                    self._nodes.popitem(last=False)  # an open span there can still be closed on the others
            else:
                self._nodes.move_to_end(holder)
            events.append(event)

    def _swap(self, old: NodeEvent, new: NodeEvent) -> None:
        for holder in self._holders(old):
            events = self._nodes.get(holder)
            if events is None:
                continue
            for index, event in enumerate(events):
                if event is old:
                    events[index] = new
                    break

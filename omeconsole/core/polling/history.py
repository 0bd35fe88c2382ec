"""Bounded history: a ring of samples per watched node, and a short memory of recently watched ones.

Memory stays bounded however long the console runs and however many streams the server has:
only watched nodes (selected or on screen) get a ring, each ring holds at most `capacity` samples,
and at most `keep_recent` nodes that are no longer watched keep theirs (so scrolling away and back
does not empty a chart). Every other node keeps only its latest sample, outside this store.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable

from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample


class HistoryStore:
    def __init__(self, capacity: int, keep_recent: int = 16) -> None:
        if capacity < 1:
            raise ValueError("a history ring needs room for at least one sample")
        self.capacity = capacity
        self.keep_recent = keep_recent
        self._rings: dict[NodePath, deque[Sample]] = {}
        self._watched: frozenset[NodePath] = frozenset()
        self._recent: OrderedDict[NodePath, None] = OrderedDict()

    @property
    def watched(self) -> frozenset[NodePath]:
        return self._watched

    def watch(self, paths: Iterable[NodePath]) -> None:
        """Sets which nodes are watched now; rings of nodes no longer watched join the recent list."""
        new = frozenset(paths)
        for path in self._watched - new:
            if path in self._rings:
                self._recent[path] = None
                self._recent.move_to_end(path)
        for path in new:
            self._recent.pop(path, None)
        self._watched = new
        while len(self._recent) > self.keep_recent:
            dropped, _ = self._recent.popitem(last=False)
            self._rings.pop(dropped, None)

    def record(self, path: NodePath, sample: Sample) -> None:
        ring = self._rings.get(path)
        if ring is None:
            if path not in self._watched:
                return
            ring = self._rings[path] = deque(maxlen=self.capacity)
        ring.append(sample)

    def history(self, path: NodePath) -> tuple[Sample, ...]:
        ring = self._rings.get(path)
        return tuple(ring) if ring is not None else ()

    def forget(self, path: NodePath) -> None:
        self._rings.pop(path, None)
        self._recent.pop(path, None)

    def sample_count(self) -> int:
        """Samples held in all rings (the figure that must stay bounded)."""
        return sum(len(ring) for ring in self._rings.values())

    def ring_count(self) -> int:
        return len(self._rings)

"""The ordered, filtered shape of the node tree, computed without Textual.

The tree widget only mirrors what `arrange` returns, so filtering and sorting rules are plain
functions a unit test can check, and the widget rebuilds its nodes only when this shape changes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from omeconsole.model.nodes import NodeView
from omeconsole.model.paths import NodePath


class SortOrder(enum.Enum):
    NAME = "name"
    VIEWERS = "viewers"
    BITRATE = "bit rate"

    def next(self) -> SortOrder:
        members = list(SortOrder)
        return members[(members.index(self) + 1) % len(members)]


@dataclass(frozen=True)
class Branch:
    """One node of the arranged tree and its children, in display order."""

    path: NodePath
    children: tuple[Branch, ...] = ()

    def paths(self) -> list[NodePath]:
        """This node and every descendant, depth first (display order)."""
        out = [self.path]
        for child in self.children:
            out.extend(child.paths())
        return out


Listing = Mapping[str, Mapping[str, Sequence[str]]]
"""vhost -> app -> stream names, as `PollingEngine.tree()` returns it (plus ended streams kept on)."""


def with_ended(listing: Listing, ended: Iterable[NodePath]) -> dict[str, dict[str, list[str]]]:
    """The live listing plus streams that ended recently (shown as ended, with their history)."""
    merged = {v: {a: list(names) for a, names in apps.items()} for v, apps in listing.items()}
    for path in ended:
        streams = merged.setdefault(path.vhost, {}).setdefault(path.app or "", [])
        if path.stream is not None and path.stream not in streams:
            streams.append(path.stream)
    return merged


def children_in(shape: Iterable[Branch], path: NodePath) -> list[NodePath]:
    """The children of `path` in an arranged shape, in display order ([] when it is not there)."""
    for branch in shape:
        if branch.path == path:
            return [child.path for child in branch.children]
        found = children_in(branch.children, path)
        if found:
            return found
    return []


def matches(path: NodePath, needle: str) -> bool:
    """Case-insensitive substring match on any segment of the path."""
    if not needle:
        return True
    lowered = needle.lower()
    return any(lowered in part.lower() for part in (path.vhost, path.app, path.stream) if part)


def _sort_key(order: SortOrder, view_of: Callable[[NodePath], NodeView]) -> Callable[[NodePath], tuple[object, ...]]:
    def key(path: NodePath) -> tuple[object, ...]:
        name = str(path).lower()
        if order is SortOrder.NAME:
            return (name,)
        latest = view_of(path).latest
        if order is SortOrder.VIEWERS:
            viewers = latest.viewers if latest is not None and latest.viewers is not None else -1
            return (-viewers, name)
        rate = latest.rate_in_bps if latest is not None and latest.rate_in_bps is not None else -1.0
        return (-rate, name)

    return key


def arrange(listing: Listing, view_of: Callable[[NodePath], NodeView], needle: str = "",
            order: SortOrder = SortOrder.NAME) -> tuple[Branch, ...]:
    """Filter then sort. A parent stays when it or any descendant matches; a match keeps all its children."""
    key = _sort_key(order, view_of)
    vhosts: list[Branch] = []
    for vhost_name, apps in listing.items():
        vhost = NodePath(vhost_name)
        vhost_hit = matches(vhost, needle) if needle else True
        app_branches: list[Branch] = []
        for app_name, streams in apps.items():
            app = NodePath(vhost_name, app_name)
            app_hit = vhost_hit or matches(app, needle)
            stream_paths = [NodePath(vhost_name, app_name, s) for s in streams]
            kept = stream_paths if app_hit else [p for p in stream_paths if matches(p, needle)]
            if not app_hit and not kept:
                continue
            app_branches.append(Branch(app, tuple(Branch(p) for p in sorted(kept, key=key))))
        if not vhost_hit and not app_branches:
            continue
        app_branches.sort(key=lambda b: key(b.path))
        vhosts.append(Branch(vhost, tuple(app_branches)))
    vhosts.sort(key=lambda b: key(b.path))
    return tuple(vhosts)

"""The tree of virtual hosts → applications → streams as the console shows it, without Textual.

`TreeArranger` turns a `Listing` into an `Arrangement` (filtered, sorted), sized by what changed, never by
the whole server: an application whose `AppStreams` object is the one it arranged before (`is`) keeps its
branch; one that changed is updated by inserting and removing the names that came and went. Sorting by a
live value (viewers, bit rate) moves only the streams whose readings were reported changed, and at most
every `resort_every` seconds, so rows do not jump every second and 10,000 streams are not re-sorted.
`tree_rows.TreeRows` lays an arrangement out as display rows.

An application's ended streams (`AppStreams.ended`: gone from the server's listing, still known to the
engine or recorded in the history store) are not mixed with its live ones: they sit under one "ended"
group row after the live streams, closed unless opened, and the filter applies to them as to any name.
"""

from __future__ import annotations

import enum
import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample

LatestOf = Callable[[NodePath], Sample | None]
"""The latest reading of a node (None when never read): what live sort orders look at."""

SortKey = tuple[float, str, str]


class SortOrder(enum.Enum):
    NAME = "name"
    VIEWERS = "viewers"
    RATE_IN = "input rate"
    RATE_OUT = "output rate"

    def next(self) -> SortOrder:
        members = list(SortOrder)
        return members[(members.index(self) + 1) % len(members)]

    @property
    def live(self) -> bool:
        """Whether the order follows readings (and so must be refreshed as they change)."""
        return self is not SortOrder.NAME


def sort_key(order: SortOrder, name: str, latest: Sample | None) -> SortKey:
    """Busiest first for the live orders (a node never read goes after the idle ones), then by name.

    The name itself ends the key, so no two siblings share one and a position can be found by bisection.
    """
    if order is SortOrder.VIEWERS:
        value = -float(latest.viewers) if latest is not None and latest.viewers is not None else 1.0
    elif order is SortOrder.RATE_IN or order is SortOrder.RATE_OUT:
        rate = None if latest is None else latest.rate_in_bps if order is SortOrder.RATE_IN else latest.rate_out_bps
        value = -rate if rate is not None and math.isfinite(rate) else 1.0
    else:
        value = 0.0
    return (value, name.casefold(), name)


def matches(path: NodePath, needle: str) -> bool:
    """Case-insensitive substring match on any segment of the path."""
    if not needle:
        return True
    lowered = needle.casefold()
    return any(lowered in part.casefold() for part in path.segments)


@dataclass(frozen=True, slots=True, eq=False)
class AppBranch:
    """One application's streams as shown: filtered, in display order. Compared by identity."""

    path: NodePath
    streams: tuple[str, ...]
    """The live streams shown."""
    ended: tuple[str, ...] = ()
    """The ended streams shown (`AppStreams.ended`), in the same order: the rows of the "ended" group."""


@dataclass(frozen=True, slots=True, eq=False)
class VhostBranch:
    path: NodePath
    apps: tuple[AppBranch, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Arrangement:
    """The whole arranged tree. A new object only when something in it changed."""

    vhosts: tuple[VhostBranch, ...] = ()

    def children(self, path: NodePath) -> list[NodePath]:
        """The children of `path` in display order ([] when it is not shown or is a stream)."""
        for vhost in self.vhosts:
            if path == vhost.path:
                return [app.path for app in vhost.apps]
            if path.vhost == vhost.path.vhost and path.level == "app":
                for app in vhost.apps:
                    if app.path == path:
                        return [NodePath(path.vhost, path.app, s) for s in (*app.streams, *app.ended)]
        return []

    def ended_app(self, path: NodePath) -> NodePath | None:
        """The application whose "ended" group holds stream `path` (None: not an ended stream shown)."""
        app = path.parent
        for vhost in self.vhosts:
            if vhost.path.vhost == path.vhost:
                for branch in vhost.apps:
                    if branch.path == app and path.stream in branch.ended:
                        return app
        return None

    def paths(self) -> Iterator[NodePath]:
        """Every node, depth first, in display order (walks all streams: for tests and small trees)."""
        for vhost in self.vhosts:
            yield vhost.path
            for app in vhost.apps:
                yield app.path
                yield from (NodePath(app.path.vhost, app.path.app, s) for s in (*app.streams, *app.ended))


class _AppOrder:
    """The shown streams of one application kept sorted by cached keys: names come, go and move one at
    a time (bisection) instead of the whole list being sorted again."""

    def __init__(self, keys: dict[str, SortKey]) -> None:
        self.keys = keys
        ordered = sorted(keys.values())
        self._sorted = ordered
        self._names = [key[2] for key in ordered]
        self._branch: tuple[str, ...] | None = None

    def add(self, name: str, key: SortKey) -> None:
        at = bisect_left(self._sorted, key)
        self._sorted.insert(at, key)
        self._names.insert(at, name)
        self.keys[name] = key
        self._branch = None

    def remove(self, name: str) -> None:
        at = bisect_left(self._sorted, self.keys.pop(name))
        del self._sorted[at], self._names[at]
        self._branch = None

    def names(self) -> tuple[str, ...]:
        if self._branch is None:
            self._branch = tuple(self._names)
        return self._branch


@dataclass(slots=True)
class _ArrangedApp:
    source: AppStreams
    order: _AppOrder
    hit: bool
    """The application (or its host) matches the filter: all its streams are shown."""
    branch: AppBranch | None = None
    arranged_from: tuple[str, ...] | None = None
    """The ordered names `branch` was made from (it is made again when the order's names are another object)."""


class TreeArranger:
    """Keeps an arrangement of a listing up to date with the least work (see the module docstring)."""

    def __init__(self, latest_of: LatestOf, *, resort_every: float = 5.0) -> None:
        self._latest_of = latest_of
        self.resort_every = resort_every
        self._needle = ""
        self._order = SortOrder.NAME
        self._apps: dict[tuple[str, str], _ArrangedApp] = {}
        self._node_keys: dict[NodePath, SortKey] = {}
        """Keys of hosts and applications (streams keep theirs in their `_AppOrder`)."""
        self._pending: dict[tuple[str, str], set[str]] = {}
        self._pending_nodes: set[NodePath] = set()
        self._listing: Listing | None = None
        self._arrangement = Arrangement()
        self._sorted_at = -math.inf

    @property
    def needle(self) -> str:
        return self._needle

    @property
    def order(self) -> SortOrder:
        return self._order

    def arrange_by(self, needle: str, order: SortOrder) -> None:
        """Change the filter or the order: the next `arrange` rebuilds every application at once."""
        if (needle, order) != (self._needle, self._order):
            self._needle, self._order = needle, order
            self._apps.clear()
            self._node_keys.clear()
            self._pending.clear()
            self._pending_nodes.clear()
            self._listing = None

    def readings_changed(self, paths: Iterable[NodePath]) -> None:
        """Nodes with a new reading since the last call: a live order will move them at its next re-sort."""
        if not self._order.live:
            return
        for path in paths:
            if path.stream is not None:
                self._pending.setdefault((path.vhost, path.app or ""), set()).add(path.stream)
            else:
                self._pending_nodes.add(path)

    def arrange(self, listing: Listing, now: float) -> Arrangement:
        """The arrangement of `listing`; the same object as last time when nothing shown changed."""
        resort = (self._order.live and bool(self._pending or self._pending_nodes)
                  and now - self._sorted_at >= self.resort_every)
        if listing is self._listing and not resort:
            return self._arrangement
        if resort:
            self._resort()
        if resort or not self._apps:  # a first build sorts by the readings of now, too
            self._sorted_at = now
        self._listing = listing
        vhosts = self._arrange_vhosts(listing)
        if not _same_shape(vhosts, self._arrangement.vhosts):
            self._arrangement = Arrangement(vhosts)
        return self._arrangement

    # Building ------------------------------------------------------------------------------------

    def _arrange_vhosts(self, listing: Listing) -> tuple[VhostBranch, ...]:
        seen: set[tuple[str, str]] = set()
        vhosts: list[VhostBranch] = []
        for vhost_name, apps in listing.items():
            vhost = NodePath(vhost_name)
            vhost_hit = matches(vhost, self._needle)
            branches: list[AppBranch] = []
            for app_name, streams in apps.items():
                seen.add((vhost_name, app_name))
                branch = self._arranged_app(NodePath(vhost_name, app_name), streams, vhost_hit)
                if branch is not None:
                    branches.append(branch)
            if vhost_hit or branches:
                branches.sort(key=lambda b: self._node_key(b.path))
                vhosts.append(VhostBranch(vhost, tuple(branches)))
        for gone in self._apps.keys() - seen:
            del self._apps[gone]
            self._node_keys.pop(NodePath(*gone), None)
        vhosts.sort(key=lambda v: self._node_key(v.path))
        return tuple(vhosts)

    def _arranged_app(self, path: NodePath, streams: AppStreams, vhost_hit: bool) -> AppBranch | None:
        ident = (path.vhost, path.app or "")
        arranged = self._apps.get(ident)
        if arranged is None:
            arranged = self._apps[ident] = self._new_app(path, streams, vhost_hit)
        elif arranged.source is not streams:
            self._follow(path, arranged, streams)
        if arranged.branch is None or arranged.arranged_from is not arranged.order.names():
            shown = arranged.order.names()
            arranged.arranged_from = shown
            if not shown and not arranged.hit:
                arranged.branch = None
                return None
            arranged.branch = _split_ended(path, shown, streams.ended)
        return arranged.branch

    def _new_app(self, path: NodePath, streams: AppStreams, vhost_hit: bool) -> _ArrangedApp:
        hit = vhost_hit or matches(path, self._needle)
        keys = {name: self._stream_key(path, name) for name in _names(streams) if hit or self._shows(path, name)}
        return _ArrangedApp(streams, _AppOrder(keys), hit)

    def _follow(self, path: NodePath, arranged: _ArrangedApp, streams: AppStreams) -> None:
        """The application's streams changed: add the newcomers, drop the departed; the rest stay put."""
        before, after = set(_names(arranged.source)), set(_names(streams))
        order = arranged.order
        for name in before - after:
            if name in order.keys:
                order.remove(name)
        for name in _names(streams):
            if name not in before and name not in order.keys and (arranged.hit or self._shows(path, name)):
                order.add(name, self._stream_key(path, name))
        arranged.source = streams
        arranged.branch = None  # the ended set may have changed even when the names did not

    def _shows(self, app: NodePath, stream: str) -> bool:
        return matches(NodePath(app.vhost, app.app, stream), self._needle)

    # Keys ----------------------------------------------------------------------------------------

    def _stream_key(self, app: NodePath, name: str) -> SortKey:
        if not self._order.live:
            return sort_key(self._order, name, None)
        return sort_key(self._order, name, self._latest_of(NodePath(app.vhost, app.app, name)))

    def _node_key(self, path: NodePath) -> SortKey:
        key = self._node_keys.get(path)
        if key is None:
            latest = self._latest_of(path) if self._order.live else None
            key = self._node_keys[path] = sort_key(self._order, path.name, latest)
        return key

    def _resort(self) -> None:
        """Give the streams with new readings their new keys (moving each once); hosts and apps too."""
        pending, self._pending = self._pending, {}
        for (vhost, app), names in pending.items():
            arranged = self._apps.get((vhost, app))
            if arranged is None:
                continue
            path = NodePath(vhost, app)
            for name in names:
                if name in arranged.order.keys:
                    key = self._stream_key(path, name)
                    if key != arranged.order.keys[name]:
                        arranged.order.remove(name)
                        arranged.order.add(name, key)
        for path in self._pending_nodes:
            self._node_keys.pop(path, None)
        self._pending_nodes = set()


def _same_shape(new: tuple[VhostBranch, ...], old: tuple[VhostBranch, ...]) -> bool:
    """Same hosts in the same order, holding the very same application branches."""
    return len(new) == len(old) and all(
        a.path == b.path and len(a.apps) == len(b.apps) and all(x is y for x, y in zip(a.apps, b.apps, strict=True))
        for a, b in zip(new, old, strict=True))


def _split_ended(path: NodePath, shown: tuple[str, ...], ended: tuple[str, ...]) -> AppBranch:
    """The shown names parted into live and ended, each keeping the display order."""
    if not ended:
        return AppBranch(path, shown)
    gone = frozenset(ended)
    return AppBranch(path, tuple(name for name in shown if name not in gone),
                     tuple(name for name in shown if name in gone))


def _names(streams: AppStreams) -> Iterator[str]:
    """Live then ended names, each once."""
    yield from streams.live
    live = set(streams.live) if streams.ended else ()
    yield from (name for name in streams.ended if name not in live)

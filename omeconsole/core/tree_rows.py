"""An arranged tree laid out as display rows, some branches closed: what a virtual list draws.

It keeps one entry per host and application (not per stream): row `i` and the row of a path are found by
bisection, so a widget can draw rows 4,000-4,050 without building the other 9,950. An application with
ended streams has one "ended" group row after its live streams; the ended streams are rows under it only
while the group is open (it is closed unless opened: a day of ended streams never pushes the live ones off
screen).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass

from omeconsole.core.tree_model import AppBranch, Arrangement
from omeconsole.model.paths import NodePath


@dataclass(frozen=True, slots=True)
class Row:
    """One display row of the tree."""

    path: NodePath
    """The node; for an "ended" group, its application."""
    depth: int
    """0 a host, 1 an application, 2 a stream or an application's "ended" group, 3 an ended stream."""
    lasts: tuple[bool, ...]
    """For this node and each ancestor (outermost first): whether it is the last of its siblings."""
    expandable: bool
    expanded: bool
    ended: bool = False
    group: bool = False
    """The "ended" group of the application `path`."""
    held: int = 0
    """For an "ended" group: how many ended streams it holds."""


@dataclass(frozen=True, slots=True)
class _Block:
    """A header row (host or application) and, for an open application, its rows right after."""

    start: int
    vhost: int
    app: int | None
    streams: int
    """Live stream rows shown."""
    group: bool = False
    """The application's "ended" group row is shown."""
    ended: int = 0
    """Ended stream rows shown (the group is open)."""


class TreeRows:
    """An arrangement laid out as rows, with some hosts, applications and "ended" groups closed.

    Built in O(hosts + applications); `row(i)` and `index_of(path)` cost a bisection.
    """

    def __init__(self, arrangement: Arrangement, collapsed: Collection[NodePath] = frozenset(),
                 ended_open: Collection[NodePath] = frozenset()) -> None:
        """`collapsed`: hosts and applications closed; `ended_open`: applications whose "ended" group is open."""
        self.arrangement = arrangement
        self._blocks: list[_Block] = []
        self._starts: list[int] = []
        self._header_rows: dict[NodePath, int] = {}
        row = 0
        for v, vhost in enumerate(arrangement.vhosts):
            self._add(_Block(row, v, None, 0), vhost.path)
            row += 1
            if vhost.path in collapsed:
                continue
            for a, app in enumerate(vhost.apps):
                block = _app_block(row, v, a, app, app.path in collapsed, app.path in ended_open)
                self._add(block, app.path)
                row += 1 + block.streams + block.group + block.ended
        self._collapsed = frozenset(collapsed)
        self._count = row

    def _add(self, block: _Block, path: NodePath) -> None:
        self._blocks.append(block)
        self._starts.append(block.start)
        self._header_rows[path] = block.start

    def __len__(self) -> int:
        return self._count

    def row(self, index: int) -> Row:
        if not 0 <= index < self._count:
            raise IndexError(index)
        block = self._blocks[bisect_right(self._starts, index) - 1]
        vhosts = self.arrangement.vhosts
        vhost = vhosts[block.vhost]
        vhost_last = block.vhost == len(vhosts) - 1
        if block.app is None:
            return Row(vhost.path, 0, (vhost_last,), True, vhost.path not in self._collapsed)
        app = vhost.apps[block.app]
        app_lasts = (vhost_last, block.app == len(vhost.apps) - 1)
        offset = index - block.start
        if offset == 0:
            return Row(app.path, 1, app_lasts, True, app.path not in self._collapsed)
        if offset <= block.streams:
            last = offset == block.streams and not block.group
            return Row(_stream(app, app.streams[offset - 1]), 2, (*app_lasts, last), False, False)
        offset -= block.streams
        if offset == 1:
            return Row(app.path, 2, (*app_lasts, True), True, block.ended > 0, group=True, held=len(app.ended))
        return Row(_stream(app, app.ended[offset - 2]), 3, (*app_lasts, True, offset - 1 == block.ended), False,
                   False, ended=True)

    def index_of(self, path: NodePath) -> int | None:
        """The row showing `path`; None when it is not shown (filtered out, gone, or a branch above it closed)."""
        if path.stream is None:
            return self._header_rows.get(path)
        block = self._app_block(NodePath(path.vhost, path.app))
        if block is None or block.app is None:
            return None
        app = self.arrangement.vhosts[block.vhost].apps[block.app]
        if block.streams and path.stream in app.streams:
            return block.start + 1 + app.streams.index(path.stream)
        if block.ended and path.stream in app.ended:
            return block.start + block.streams + 2 + app.ended.index(path.stream)
        return None

    def group_index(self, app: NodePath) -> int | None:
        """The row of `app`'s "ended" group (None when not shown)."""
        block = self._app_block(app)
        return block.start + 1 + block.streams if block is not None and block.group else None

    def _app_block(self, app: NodePath) -> _Block | None:
        start = self._header_rows.get(app)
        return None if start is None else self._blocks[bisect_right(self._starts, start) - 1]

    def paths(self, start: int = 0, stop: int | None = None) -> list[NodePath]:
        """The paths of rows `start` to `stop` (exclusive), in order."""
        stop = self._count if stop is None else min(stop, self._count)
        return [self.row(i).path for i in range(max(0, start), stop)]


def _app_block(start: int, vhost: int, app_index: int, app: AppBranch, collapsed: bool, ended_open: bool) -> _Block:
    if collapsed:
        return _Block(start, vhost, app_index, 0)
    group = bool(app.ended)
    return _Block(start, vhost, app_index, len(app.streams), group, len(app.ended) if group and ended_open else 0)


def _stream(app: AppBranch, name: str) -> NodePath:
    return NodePath(app.path.vhost, app.path.app, name)

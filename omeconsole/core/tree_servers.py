"""The tree's server level: a row per server of a fleet on top, one server's hosts open under its row.

A fleet's tree shows one server's nodes at a time: the server the operator is on (`current`), whose
session the detail, the status line and every send use. Its row is open (unless closed) with its hosts
→ applications → streams under it; the other servers are closed rows with their health, and opening one
moves the operator to it. A tree of one server has no server level: its rows are its own rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from omeconsole.core.tree_rows import Row, TreeRows
from omeconsole.model.paths import NodePath


@dataclass(frozen=True, slots=True)
class ServerRow:
    """A server's own row (depth 0), drawn like a host's."""

    profile: str
    lasts: tuple[bool, ...]
    expanded: bool
    depth: int = 0
    expandable: bool = True


Line = Row | ServerRow


@dataclass(frozen=True, slots=True)
class At:
    """What a cursor rests on, kept across layouts: a node, an application's "ended" group, or a server."""

    path: NodePath | None = None
    """The node; for a group, its application."""
    group: bool = False
    server: str | None = None

    @classmethod
    def of(cls, line: Line) -> At:
        if isinstance(line, ServerRow):
            return cls(server=line.profile)
        return cls(line.path, line.group)

    @property
    def node(self) -> NodePath | None:
        """The node itself (None on a group or a server)."""
        return None if self.group else self.path


class ShownRows:
    """`rows` (the current server's) under a row per server, or alone when `servers` is empty."""

    def __init__(self, rows: TreeRows, servers: Sequence[str] = (), current: str | None = None, *,
                 open_: bool = True) -> None:
        self.rows = rows
        self.servers = tuple(servers)
        if self.servers:
            self._current = self.servers.index(current) if current in self.servers else 0
            self._open = open_
            self._offset = self._current + 1
            self._inner = len(rows) if open_ else 0
        else:
            self._current, self._open, self._offset, self._inner = -1, True, 0, len(rows)

    @property
    def current(self) -> str | None:
        return self.servers[self._current] if self.servers else None

    def __len__(self) -> int:
        return len(self.servers) + self._inner

    def line(self, index: int) -> Line:
        if not 0 <= index < len(self):
            raise IndexError(index)
        inner = index - self._offset
        if 0 <= inner < self._inner:
            row = self.rows.row(inner)
            if not self.servers:
                return row
            return dataclasses.replace(row, depth=row.depth + 1, lasts=(self._current_last, *row.lasts))
        server = index if inner < 0 else index - self._inner
        return ServerRow(self.servers[server], (server == len(self.servers) - 1,),
                         self._open if server == self._current else False)

    @property
    def _current_last(self) -> bool:
        return self._current == len(self.servers) - 1

    def _outer(self, inner: int | None) -> int | None:
        return None if inner is None or inner >= self._inner else inner + self._offset

    def index_of(self, path: NodePath) -> int | None:
        """The row of node `path` of the current server (None when not shown)."""
        return self._outer(self.rows.index_of(path))

    def group_index(self, app: NodePath) -> int | None:
        return self._outer(self.rows.group_index(app))

    def server_index(self, profile: str) -> int | None:
        if profile not in self.servers:
            return None
        server = self.servers.index(profile)
        return server if server <= self._current else server + self._inner

    def index_near(self, at: At) -> int:
        """The row of `at`, or of its nearest shown ancestor (the current server's row, or 0, when none is)."""
        if at.server is not None:
            return self.server_index(at.server) or 0
        target = at.path
        if at.group and target is not None:
            index = self.group_index(target)
            if index is not None:
                return index
        while target is not None:
            index = self.index_of(target)
            if index is not None:
                return index
            target = target.parent
        current = self.current
        return (self.server_index(current) or 0) if current is not None else 0

    def parent_index(self, line: Line) -> int | None:
        """The row of `line`'s parent (None for a server, or a host without a server level)."""
        if isinstance(line, ServerRow):
            return None
        if line.group:
            return self.index_of(line.path)
        parent = line.path.parent
        if line.ended and parent is not None:
            return self.group_index(parent)
        if parent is not None:
            return self.index_of(parent)
        current = self.current
        return self.server_index(current) if current is not None else None

    def paths(self, start: int = 0, stop: int | None = None) -> list[NodePath]:
        """The node paths among rows `start` to `stop` (exclusive), in order (server rows have none)."""
        stop = len(self) if stop is None else min(stop, len(self))
        first, last = max(0, start - self._offset), max(0, min(stop - self._offset, self._inner))
        return self.rows.paths(first, last) if first < last else []

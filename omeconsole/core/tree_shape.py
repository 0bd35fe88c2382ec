"""Which branches of the tree are open, kept across new listings: hosts and applications closed by the
operator, the "ended" groups opened, and for a fleet the servers and the one open among them.

`layout(arrangement)` lays an arrangement out with this shape (`ShownRows`); the widget keeps one shape and
asks it again for rows whenever the arrangement or the shape changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from omeconsole.core.tree_model import Arrangement
from omeconsole.core.tree_rows import TreeRows
from omeconsole.core.tree_servers import ShownRows
from omeconsole.model.paths import NodePath


class TreeShape:
    def __init__(self) -> None:
        self.collapsed: set[NodePath] = set()
        """Hosts and applications closed."""
        self.ended_open: set[NodePath] = set()
        """Applications whose "ended" group is open (closed unless opened)."""
        self.servers: tuple[str, ...] = ()
        """A fleet's servers in order (none: a tree of one server, without a server level)."""
        self.current: str | None = None
        self.server_open = True
        """The current server's row is open."""

    def layout(self, arrangement: Arrangement) -> ShownRows:
        rows = TreeRows(arrangement, self.collapsed, self.ended_open)
        return ShownRows(rows, self.servers, self.current, open_=self.server_open)

    def set_servers(self, servers: Sequence[str], current: str) -> bool:
        """A fleet's servers and the one the operator is on (opened); True when either changed."""
        if (tuple(servers), current) == (self.servers, self.current):
            return False
        self.servers, self.current, self.server_open = tuple(servers), current, True
        return True

    def is_open(self, path: NodePath) -> bool:
        return path.level != "stream" and path not in self.collapsed

    def set_open(self, path: NodePath, expanded: bool) -> bool:
        """Open or close a host or application; True when that changed anything."""
        if path.level == "stream" or expanded == self.is_open(path):
            return False
        (self.collapsed.discard if expanded else self.collapsed.add)(path)
        return True

    def set_group_open(self, app: NodePath, expanded: bool) -> bool:
        """Open or close `app`'s "ended" group; True when that changed anything."""
        if expanded == (app in self.ended_open):
            return False
        (self.ended_open.add if expanded else self.ended_open.discard)(app)
        return True

    def set_server_open(self, expanded: bool) -> bool:
        """Open or close the current server's row; True when that changed anything."""
        if expanded == self.server_open:
            return False
        self.server_open = expanded
        return True

    def open_above(self, path: NodePath, arrangement: Arrangement) -> bool:
        """Open every branch above node `path`: its host and application, the current server, and the "ended"
        group holding it (an ended stream); True when any was closed."""
        opened = [p for p in (path.parent, path.parent.parent if path.parent else None) if p in self.collapsed]
        self.collapsed.difference_update(opened)
        server = self.set_server_open(True)
        group = self.open_group_of(path, arrangement)
        return bool(opened) or server or group

    def open_group_of(self, path: NodePath, arrangement: Arrangement) -> bool:
        """Open the "ended" group holding stream `path` if it is closed; True when it was."""
        app = arrangement.ended_app(path)
        return app is not None and self.set_group_open(app, True)

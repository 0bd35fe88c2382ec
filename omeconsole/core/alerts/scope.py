"""Which nodes a rule watches: `[SERVER:]VHOST[/APP[/STREAM]]`, each part a shell-style wildcard.

The number of path parts is the level: `default` is a virtual host, `default/app` an application,
`*/*/*` every stream. `SERVER:` (a profile name or `host:port`, wildcards too) narrows it to servers;
without it every server matches. Matching is case-sensitive (`fnmatchcase`), as stream names are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from omeconsole.model.paths import Level, NodePath

_LEVELS: tuple[Level, ...] = ("vhost", "app", "stream")


@dataclass(frozen=True, slots=True)
class Scope:
    server: str
    """Wildcard over the server's name (profile, else host:port)."""
    parts: tuple[str, ...]
    """Wildcards over vhost, app, stream; empty for a server-level scope."""

    @classmethod
    def parse(cls, text: str, *, server_only: bool = False) -> Scope:
        """A scope as written in the config; ValueError (with the reason) for one that cannot match."""
        text = text.strip()
        if server_only:
            if "/" in text:
                raise ValueError(f"scope {text!r}: this kind watches whole servers: give a server name or wildcard")
            return cls(text.rstrip(":") or "*", ())
        server, path = "*", text
        # `host:port:vhost/...` names a server with a port: the last colon before the path separates them.
        if ":" in text:
            server, _, path = text.rpartition(":")
            server = server or "*"
        parts = tuple(path.strip("/").split("/")) if path.strip("/") else ()
        if not 1 <= len(parts) <= 3 or any(not p for p in parts):
            raise ValueError(f"scope {text!r}: expected [SERVER:]VHOST[/APP[/STREAM]] with wildcards, "
                             "for example */*/* (every stream) or default/live (one application)")
        return cls(server, parts)

    @property
    def level(self) -> Level | None:
        """The level of node this scope selects; None for a server-level scope."""
        return _LEVELS[len(self.parts) - 1] if self.parts else None

    def matches_server(self, server: str) -> bool:
        return fnmatchcase(server, self.server)

    def matches(self, server: str, path: NodePath) -> bool:
        segments = path.segments
        return (len(segments) == len(self.parts) and fnmatchcase(server, self.server)
                and all(fnmatchcase(name, pattern) for name, pattern in zip(segments, self.parts, strict=True)))

    def streams_of(self, vhost: str, app: str, names: Iterable[str]) -> list[str]:
        """The names of an application's streams this (stream-level) scope selects, server aside."""
        if len(self.parts) != 3 or not (fnmatchcase(vhost, self.parts[0]) and fnmatchcase(app, self.parts[1])):
            return []
        pattern = self.parts[2]
        return list(names) if pattern == "*" else [n for n in names if fnmatchcase(n, pattern)]

    def __str__(self) -> str:
        path = "/".join(self.parts)
        if not path:
            return self.server
        return path if self.server == "*" else f"{self.server}:{path}"

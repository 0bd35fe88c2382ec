"""Where a node sits in a server: a virtual host, an application in it, or a stream in that.

Names come from the server's listings, so they are data and may be anything: empty, with a `/`, with
control characters or a lone surrogate. A path holds them as they are and never raises for them;
`addressable` says whether the API can be asked about the node at all (the engine polls only those).
User input goes through `parse`, which is strict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["vhost", "app", "stream"]


def addressable_name(name: str) -> bool:
    """Whether a name can be put into one URL path segment and reach the server as itself.

    Empty names, `/`, the dot segments (which proxies and URL libraries fold away) and text that is not
    valid Unicode (a lone surrogate from a `\\ud800` JSON escape) cannot be.
    """
    if not name or "/" in name or name in (".", ".."):
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class NodePath:
    """A virtual host ("v"), an application ("v/a") or a stream ("v/a/s")."""

    vhost: str
    app: str | None = None
    stream: str | None = None

    def __post_init__(self) -> None:
        if self.stream is not None and self.app is None:
            raise ValueError("a stream path needs an application")

    @classmethod
    def parse(cls, text: str) -> NodePath:
        """"v", "v/a" or "v/a/s" typed by a user; anything else (empty parts, four parts) is a ValueError."""
        stripped = text.strip().strip("/")
        parts = stripped.split("/") if stripped else []
        if not 1 <= len(parts) <= 3 or not all(addressable_name(p) for p in parts):
            raise ValueError(f"not a path of the form vhost[/app[/stream]]: {text!r}")
        return cls(*parts)

    @property
    def level(self) -> Level:
        if self.stream is not None:
            return "stream"
        return "app" if self.app is not None else "vhost"

    @property
    def parent(self) -> NodePath | None:
        if self.stream is not None:
            return NodePath(self.vhost, self.app)
        return NodePath(self.vhost) if self.app is not None else None

    @property
    def name(self) -> str:
        """The node's own name (its last segment)."""
        if self.stream is not None:
            return self.stream
        return self.app if self.app is not None else self.vhost

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(p for p in (self.vhost, self.app, self.stream) if p is not None)

    @property
    def addressable(self) -> bool:
        """Whether every segment can be sent to the server (see `addressable_name`)."""
        return all(addressable_name(p) for p in self.segments)

    def _key(self) -> tuple[str, str, str, int]:
        depth = 0 if self.app is None else (1 if self.stream is None else 2)
        return (self.vhost, self.app or "", self.stream or "", depth)

    def __lt__(self, other: NodePath) -> bool:
        return self._key() < other._key()

    def __le__(self, other: NodePath) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: NodePath) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: NodePath) -> bool:
        return self._key() >= other._key()

    def __str__(self) -> str:
        """The segments joined by `/`: raw server text, so show it through the display rules, never raw."""
        return "/".join(self.segments)

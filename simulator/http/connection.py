"""One client TCP connection, as an ASGI app of the simulator sees it.

ASGI tells an app nothing about connections once its reply is sent, but the real server counts a
playlist reader exactly while its TCP connection is open (captures/ome-0.19.0: a keep-alive reader
counts for as long as it holds the connection, one closed at once never shows in a 1 s poll). So the
listeners' protocol (limits.py) hands every request its connection under
`scope["extensions"]["simulator.connection"]["connection"]`: the app can ask to hear when it closes, and can close it
without answering (the real server leaves some requests unanswered until the client gives up).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

EXTENSION = "simulator.connection"


class Connection:
    """Callbacks run once when the connection is lost; `close` ends it from the server's side."""

    __slots__ = ("_callbacks", "_close", "closed")

    def __init__(self, close: Callable[[], None]) -> None:
        self._close = close
        self._callbacks: list[Callable[[], None]] = []
        self.closed = False

    def when_closed(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the connection is lost (at once if it already is)."""
        if self.closed:
            callback()
            return
        self._callbacks.append(callback)

    def close(self) -> None:
        """Close the connection without a reply (what is buffered is still sent)."""
        self._close()

    def lost(self) -> None:
        """Called by the protocol once, when the transport is gone."""
        if self.closed:
            return
        self.closed = True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


def connection_of(scope: MutableMapping[str, Any]) -> Connection | None:
    """The request's connection, or None when the app runs behind another server (tests' ASGI transports)."""
    found = ((scope.get("extensions") or {}).get(EXTENSION) or {}).get("connection")
    return found if isinstance(found, Connection) else None

"""Viewer sessions of the publisher port: who counts as an `llhls` / `hlsv3` publisher connection.

The real server makes a session when a player fetches the multivariant playlist on a connection,
hands it to the player's other requests as `?session=<id>_<key>` on every URI, and closes it when the
player's last connection closes. Behind ASGI the simulator never sees a connection close, so a session
here is one client address watching one life of a stream over one protocol, and it closes after
`idle_ms` without a request. Request headers (User-Agent, ...) are not part of it: a client cannot
mint viewers by varying them. Two players behind one address count once.

The table is bounded: at most `max_sessions` in all and `max_per_address` for one address. A client
past either limit is served as usual but not counted (the stream's bytes out still are), and a
warning is logged at most once a minute.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from simulator.world.topology import Stream
from simulator.world.world import World

log = logging.getLogger("simulator.publisher")

DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_MAX_PER_ADDRESS = 64
_WARN_EVERY_MS = 60_000

SessionKey = tuple[str, str, str, str, int, str]
"""(client address, vhost, app, stream, its created_ms, protocol)."""


@dataclass
class _Session:
    stream: Stream
    protocol: str
    last_seen_ms: int


class ViewerSessions:
    def __init__(self, world: World, *, idle_ms: int, max_sessions: int = DEFAULT_MAX_SESSIONS,
                 max_per_address: int = DEFAULT_MAX_PER_ADDRESS) -> None:
        self.world = world
        self.idle_ms = idle_ms
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        self._sessions: dict[SessionKey, _Session] = {}
        self._per_address: dict[str, int] = {}
        self._warned_ms: int | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    def touch(self, address: str, stream: Stream, protocol: str, now: int) -> None:
        """A request of `address` for `stream` over `protocol`: opens its session or keeps it open."""
        key = (address, stream.vhost, stream.app, stream.name, stream.created_ms, protocol)
        session = self._sessions.get(key)
        if session is not None:
            session.last_seen_ms = now
            return
        if len(self._sessions) >= self.max_sessions:
            self._warn(now, f"the viewer-session table is full ({self.max_sessions})")
            return
        held = self._per_address.get(address, 0)
        if held >= self.max_per_address:
            self._warn(now, f"a client address holds {held} viewer sessions (at most {self.max_per_address})")
            return
        self._sessions[key] = _Session(stream, protocol, now)
        self._per_address[address] = held + 1
        self.world.open_session(stream, protocol)

    def sweep(self, now: int) -> None:
        """Close the sessions of clients that stopped fetching, and of streams that ended."""
        for key, session in list(self._sessions.items()):
            if session.stream.live and now - session.last_seen_ms <= self.idle_ms:
                continue
            del self._sessions[key]
            address = key[0]
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]
            if session.stream.live:
                self.world.close_session(session.stream, session.protocol)

    def _warn(self, now: int, what: str) -> None:
        if self._warned_ms is None or now - self._warned_ms >= _WARN_EVERY_MS:
            self._warned_ms = now
            log.warning("publisher: %s; new viewers are served but not counted", what)

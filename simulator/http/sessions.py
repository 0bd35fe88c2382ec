"""Publisher connections: who counts as an `llhls` / `hlsv3` connection of a stream, and for how long.

The real server's rule (captures/ome-0.19.0, `stats_stream_series_keepalive_20s.json` and
`stats_stream_series_60s.json`): a TCP connection that requested a stream's playlist, chunklist, part or
segment counts as one connection of that stream's protocol **exactly while it is open**. A keep-alive
reader held 12 s reads 1 for 12 s and 0 right after; a fetch on a connection closed at once never shows
in a 1 s poll, yet it raised `maxTotalConnections` (with its time) — the count went up and down.

So one open connection is one count for each stream and protocol it has read: a player reading the
video and audio chunklists on two keep-alive connections counts 2, and one connection that read two
streams counts on both until it closes (as the real server's per-stream sessions of a connection would;
the captures show one connection at a time, so these two cases are inferred, not measured). Request
headers play no part (a client cannot mint viewers by varying its User-Agent).

The table is bounded: at most `max_counted` connections counted in all and `max_per_address` for one
client address. A connection past either limit is served as usual but not counted (the stream's bytes
out still are), and a warning is logged at most once a minute. The port's own connection limit
(limits.py, 1000 by default) bounds it first.
"""

from __future__ import annotations

import logging

from simulator.http.connection import Connection
from simulator.world.topology import Stream
from simulator.world.world import World

log = logging.getLogger("simulator.publisher")

DEFAULT_MAX_COUNTED = 10_000
DEFAULT_MAX_PER_ADDRESS = 64
_WARN_EVERY_MS = 60_000


ReaderKey = tuple[int, int, str]
"""(id of the connection, id of the stream, protocol)."""


class PublisherConnections:
    """The open connections of the publisher port counted as connections of a stream."""

    def __init__(self, world: World, *, max_counted: int = DEFAULT_MAX_COUNTED,
                 max_per_address: int = DEFAULT_MAX_PER_ADDRESS) -> None:
        self.world = world
        self.max_counted = max_counted
        self.max_per_address = max_per_address
        self._readers: dict[ReaderKey, tuple[str, Stream]] = {}
        """(client address, stream) of each count; it goes when its connection closes."""
        self._per_address: dict[str, int] = {}
        self._warned_ms: int | None = None

    def __len__(self) -> int:
        return len(self._readers)

    def read(self, connection: Connection, address: str, stream: Stream, protocol: str, now: int) -> None:
        """A request of `connection` for `stream` over `protocol`: counts the connection there from now
        until it closes (once, however many requests it makes)."""
        key = (id(connection), id(stream), protocol)
        if key in self._readers:
            return
        if len(self._readers) >= self.max_counted:
            self._warn(now, f"{self.max_counted} publisher connections are counted already")
            return
        held = self._per_address.get(address, 0)
        if held >= self.max_per_address:
            self._warn(now, f"a client address holds {held} counted connections (at most {self.max_per_address})")
            return
        self._readers[key] = (address, stream)
        self._per_address[address] = held + 1
        self.world.open_session(stream, protocol)
        connection.when_closed(lambda: self._closed(key))

    def _closed(self, key: ReaderKey) -> None:
        address, stream = self._readers.pop(key)
        held = self._per_address[address] - 1
        if held:
            self._per_address[address] = held
        else:
            del self._per_address[address]
        if stream.live:  # an ended stream's counts went with it (traffic.remove_stream)
            self.world.close_session(stream, key[2])

    def _warn(self, now: int, what: str) -> None:
        if self._warned_ms is None or now - self._warned_ms >= _WARN_EVERY_MS:
            self._warned_ms = now
            log.warning("publisher: %s; new readers are served but not counted", what)

"""The console's own reads of a server's publisher, so it never counts itself as an audience.

The server counts a playlist reader as a playback connection (`llhls`, `hlsv3`) exactly while its TCP
connection is open, raises `maxTotalConnections` to it, and adds every byte it sends that reader — the
status line and header block as well as the body (+752 bytes for a 410-byte playlist) — to the stream's
`totalBytesOut`, and so to its application's, virtual host's and server's (the 0.19.0 captures:
`stats_stream_series_60s.json`, `stats_stream_series_keepalive_20s.json`). The console's publisher reads
go on connections closed after each read (`HttpTransport(fresh_reads=True)`), so a plain read is open for
milliseconds; a blocking reload (`_HLS_msn`) is held open by the server until the next part exists. Each
read is entered here while it is open, with the bytes its reply took on the wire once it closed, and a
statistics reading asks what of it may have been the console's (`reading`): the most of its reads open at
one moment (taken off the viewers, shown as "(+1 this console)"), the most bytes of its reads the server
can have counted (taken off the bytes out, so off the rates), and the most of its reads open at one moment
since the node's previous reading (a peak of connections it may have made).

Moments are a sequence number of this ledger (`mark`), not clock times: the order of opening, closing
and a statistics request is what matters, and it is exact on one event loop whatever the clocks do. One
allowance is made in time, on the clock the ledger is given (the console's clock; the system's when none
is): a read closed less than `CLOSE_GRACE_S` before a statistics request was sent may not have been seen
closed by the server yet (its close and the request travel on different connections), so it still counts
as possibly counted. Bytes need no such allowance: a server counts them as it sends them, before the
console has read them all.

The console's other processes on this machine (a TUI beside an exporter, a `cue-out --wait-confirm` beside
either) are read by the same server: with a journal (`share`, api/own_reads_journal.py) each ledger writes
its reads there and takes in the others' at each `mark`, as reads of its own (opened and closed at the
moment it learnt of them, which keeps the order that matters: a read another process saw closed before a
statistics request was asked for was counted by the server before it).
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from omeconsole.api.own_reads_journal import Closed, Journal, Opened
from omeconsole.model.paths import NodePath

KEEP_CLOSED = 256
"""Closed reads remembered one by one (a statistics request in flight may still need them); older ones
live on only in the byte totals."""
CLOSE_GRACE_S = 0.5
"""Seconds (of the ledger's clock) after its close during which a read may still be counted by the server."""
KEEP_SIZES = 4096
"""URLs whose last reply size is remembered (to bound the bytes of a read still open)."""
FOREIGN_OPEN_MAX_S = 120.0
"""A read another process opened and never said closed (it was killed) is forgotten after this long (longer
than any read's deadline)."""
OPEN_READ_SLACK = 1.25
"""A read still open is taken to be at most this many times its URL's last reply (a chunklist grows by a
few lines per part); a URL never read before: at most its cap."""

Stream = tuple[str, str, str]
"""(virtual host, application, stream)."""


class Moment(NamedTuple):
    seq: int
    at_s: float
    """The ledger's clock then: only for `CLOSE_GRACE_S`."""


@dataclass(slots=True)
class _Read:
    stream: Stream
    opened: int
    opened_s: float
    bound: int
    """The most bytes its reply can take, until it closes (then its bytes)."""
    closed: int | None = None
    closed_s: float = 0.0
    wire_bytes: int = 0
    connection: bool = True
    """Whether the server counts this reader as a connection (a thumbnail reader it does not)."""


@dataclass(frozen=True, slots=True)
class OwnShare:
    """What of one statistics reading of a node may have been the console's own reads."""

    connections: int = 0
    """The most of the console's reads of the node open at one moment while the reading was taken."""
    surely: int = 0
    """The console's reads of the node open from before the reading was asked for until after its answer
    (the server counted those, as far as the console can know)."""
    bytes_out: int = 0
    """The most bytes of the console's reads of the node the server can have counted in the reading (the
    reads closed before it was asked for, and those in flight: the known bytes of the closed ones, a bound
    for the open ones)."""
    peak: int = 0
    """The most of the console's reads of the node open at one moment since the node's previous reading
    (since the ledger began, for its first): a rise of the server's peak in that span may be theirs."""


def _within(stream: Stream, node: NodePath) -> bool:
    vhost, app, name = stream
    return (node.vhost == vhost and (node.app is None or node.app == app)
            and (node.stream is None or node.stream == name))


class OwnReads:
    """The console's publisher reads of one server: open ones, the recently closed, bytes per stream."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        """`monotonic`: the clock `CLOSE_GRACE_S` is measured on (the session's clock)."""
        self.monotonic = monotonic
        self._moments = itertools.count(1)
        self._open: dict[int, _Read] = {}
        self._closed: deque[_Read] = deque(maxlen=KEEP_CLOSED)
        self._bytes: dict[Stream, int] = {}
        """Bytes of every closed read, per stream, since the ledger began."""
        self._sizes: dict[str, int] = {}
        self._previous: dict[NodePath, Moment] = {}
        """Each node's previous reading (when it was asked for), for `OwnShare.peak`."""
        self._journal: Journal | None = None
        self._foreign: dict[tuple[str, int], int] = {}
        """The open reads of other processes: their (writer, ticket) to the ticket they have here."""
        self.reads_done = 0
        """Reads of this process whose connection closed since this ledger was made."""

    def share(self, journal: Journal) -> None:
        """Write this process's reads to `journal`, and take in those of the console's other processes."""
        self._journal = journal

    @property
    def journal(self) -> Journal | None:
        return self._journal

    def mark(self) -> Moment:
        """A moment: taken before a statistics request is sent and after its reply arrived. The reads the
        console's other processes opened or closed since the last mark are taken in first."""
        if self._journal is not None:
            self._take_in(self._journal)
        return Moment(next(self._moments), self.monotonic())

    def _take_in(self, journal: Journal) -> None:
        now = self.monotonic()
        for entry in journal.others():
            key = (entry.writer, entry.ticket)
            if isinstance(entry, Opened):
                ticket = next(self._moments)
                self._open[ticket] = _Read(entry.stream, ticket, now, entry.bound, connection=entry.connection)
                self._foreign[key] = ticket
            elif isinstance(entry, Closed) and (ticket := self._foreign.pop(key, 0)) in self._open:
                self._close(self._open.pop(ticket), entry.wire_bytes)
        for key, ticket in list(self._foreign.items()):
            if now - self._open[ticket].opened_s > FOREIGN_OPEN_MAX_S:
                del self._foreign[key]
                self._close(self._open.pop(ticket), 0)

    def opened(self, vhost: str, app: str, stream: str, *, url: str = "", cap: int = 0,
               connection: bool = True) -> int:
        """A read of `url` (a reply of at most `cap` bytes) is about to open its connection; returns its
        ticket for `closed`. `connection`: the server counts the reader as a connection (else only its bytes)."""
        ticket = next(self._moments)
        last = self._sizes.get(url)
        bound = cap if last is None else max(last, math.ceil(last * OPEN_READ_SLACK))
        self._open[ticket] = _Read((vhost, app, stream), ticket, self.monotonic(), bound, connection=connection)
        if self._journal is not None:
            self._journal.opened(ticket, (vhost, app, stream), bound, connection=connection)
        return ticket

    def closed(self, ticket: int, wire_bytes: int = 0, *, url: str = "") -> None:
        """That read's connection is closed, its reply `wire_bytes` long on the wire (0: it failed)."""
        read = self._open.pop(ticket, None)
        if read is None:
            return
        self._close(read, wire_bytes)
        if self._journal is not None:
            self._journal.closed(ticket, wire_bytes)
        if wire_bytes and url:
            self._sizes.pop(url, None)
            self._sizes[url] = wire_bytes
            if len(self._sizes) > KEEP_SIZES:
                del self._sizes[next(iter(self._sizes))]
        self.reads_done += 1

    def _close(self, read: _Read, wire_bytes: int) -> None:
        read.closed, read.closed_s = next(self._moments), self.monotonic()
        read.wire_bytes = read.bound = wire_bytes
        self._closed.append(read)
        self._bytes[read.stream] = self._bytes.get(read.stream, 0) + wire_bytes

    @property
    def open_now(self) -> int:
        return len(self._open)

    def bytes_read(self, node: NodePath) -> int:
        """Bytes of the console's closed reads of the node (a stream, or every stream under it)."""
        return sum(count for stream, count in self._bytes.items() if _within(stream, node))

    def reading(self, node: NodePath, since: Moment, until: Moment) -> OwnShare:
        """What a statistics reading of `node` asked for at `since` and answered at `until` may hold of the
        console's own reads; remembers `since` as the node's previous reading."""
        previous = self._previous.pop(node, Moment(0, -math.inf))
        self._previous[node] = since
        if len(self._previous) > 4 * KEEP_SIZES:
            del self._previous[next(iter(self._previous))]
        in_flight = sum(read.bound for read in self._open.values()
                        if read.opened < until.seq and _within(read.stream, node))
        later = sum(read.wire_bytes for read in self._closed if read.opened >= until.seq and _within(read.stream, node))
        surely = sum(1 for read in (*self._open.values(), *self._closed)
                     if read.connection and read.opened < since.seq and (read.closed is None or read.closed > until.seq)
                     and _within(read.stream, node))
        return OwnShare(self.held(since, until, node), surely, self.bytes_read(node) - later + in_flight,
                        self.held(previous, until, node))

    def held(self, since: Moment, until: Moment, node: NodePath | None = None) -> int:
        """The most of the console's own reads of the node (every stream of the server without one) open
        at one moment between `since` and `until`: at most that many of the connections a reading taken in
        between counted were the console's."""
        changes: list[tuple[float, int]] = []
        lately: dict[Stream, _Read] = {}
        """Per stream, its read closed last before `since` within the grace (reads of one stream follow one
        another: only the last one's close can still be on its way)."""
        for read in (*self._open.values(), *self._closed):
            if not read.connection or (node is not None and not _within(read.stream, node)):
                continue
            if read.opened >= until.seq:
                continue
            if read.closed is not None and read.closed <= since.seq:
                recent = since.at_s - read.closed_s < CLOSE_GRACE_S
                if recent and (read.stream not in lately or (lately[read.stream].closed or 0) < read.closed):
                    lately[read.stream] = read
                continue
            changes.append((max(read.opened, since.seq), 1))
            if read.closed is not None and read.closed < until.seq:
                changes.append((read.closed, -1))
        for _ in lately.values():  # open, for all the server may know, at `since`; closed just after it
            changes += [(since.seq, 1), (since.seq + 0.5, -1)]
        most = count = 0
        for _, change in sorted(changes):  # at one moment a close (-1, sorted first) comes before an open
            count += change
            most = max(most, count)
        return most

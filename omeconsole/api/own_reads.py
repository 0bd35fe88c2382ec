"""The console's own open connections to a server's publisher, so it never counts itself as an audience.

The server counts a playlist reader as a playback connection (`llhls`, `hlsv3`) exactly while its TCP
connection is open (the 0.19.0 captures: `stats_stream_series_keepalive_20s.json`). The console's
publisher reads go on connections closed after each read (`HttpTransport(fresh_connections=True)`),
so a plain read is open for milliseconds; a blocking reload (`_HLS_msn`) is held open by the server
until the next part exists, and the ad-break panel and `--wait-confirm` reload back to back. Each
read is entered here while it is open, and a statistics reading asks how many of the console's own
reads of that node may have been counted while it was in flight (`held`): that many are taken off its
viewers and shown as "(+1 this console)".

Moments are a sequence number of this ledger (`mark`), not clock times: the order of opening, closing
and a statistics request is what matters, and it is exact on one event loop whatever the clocks do. One
allowance is made in real time: a read closed less than `CLOSE_GRACE_S` before a statistics request was
sent may not have been seen closed by the server yet (its close and the request travel on different
connections), so it still counts as possibly counted.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

KEEP_CLOSED = 256
"""Closed reads remembered (a statistics request in flight may still need them)."""
CLOSE_GRACE_S = 1.0
"""Real seconds after its close during which a read may still be counted by the server."""


class Moment(NamedTuple):
    seq: int
    real_s: float
    """`time.monotonic()` then: only for `CLOSE_GRACE_S`."""


@dataclass(slots=True)
class _Read:
    app: str
    stream: str
    opened: int
    closed: int | None = None
    closed_s: float = 0.0


class OwnReads:
    """The console's publisher reads of one server: open ones, and the recently closed."""

    def __init__(self) -> None:
        self._moments = itertools.count(1)
        self._open: dict[int, _Read] = {}
        self._closed: deque[_Read] = deque(maxlen=KEEP_CLOSED)
        self.reads_done = 0
        """Reads whose connection closed since this ledger was made."""

    def mark(self) -> Moment:
        """A moment: taken before a statistics request is sent and after its reply arrived."""
        return Moment(next(self._moments), time.monotonic())

    def opened(self, app: str, stream: str) -> int:
        """A read of `app`/`stream` is about to open its connection; returns its ticket for `closed`."""
        ticket = next(self._moments)
        self._open[ticket] = _Read(app, stream, ticket)
        return ticket

    def closed(self, ticket: int) -> None:
        """That read's connection is closed (its reply was read, or it failed)."""
        read = self._open.pop(ticket, None)
        if read is not None:
            read.closed, read.closed_s = next(self._moments), time.monotonic()
            self._closed.append(read)
            self.reads_done += 1

    @property
    def open_now(self) -> int:
        return len(self._open)

    def held(self, since: Moment, until: Moment, app: str | None = None, stream: str | None = None) -> int:
        """The most of the console's own reads of the node (every stream of the server without `app`, every
        stream of `app` without `stream`) open at one moment between `since` and `until`: at most that many
        of the connections a reading taken in between counted were the console's."""
        changes: list[tuple[float, int]] = []
        lately: dict[tuple[str, str], _Read] = {}
        """Per stream, its read closed last before `since` within the grace (reads of one stream follow one
        another: only the last one's close can still be on its way)."""
        for read in (*self._open.values(), *self._closed):
            if (app is not None and read.app != app) or (stream is not None and read.stream != stream):
                continue
            if read.opened >= until.seq:
                continue
            if read.closed is not None and read.closed <= since.seq:
                if since.real_s - read.closed_s < CLOSE_GRACE_S:
                    key = (read.app, read.stream)
                    if key not in lately or (lately[key].closed or 0) < read.closed:
                        lately[key] = read
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

"""Statistics counters for many objects of one level, kept as columns so a tick updates them all at once.

The semantics are the real server's (reference §1.3): byte totals only grow; totalConnections is the
current session count and maxTotalConnections its high-water mark with the time it was last raised;
throughput is recomputed only when bytes come in, over a window of at least one second
(avg and max in bits per second, last as the byte count of that window).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from simulator.world.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

THROUGHPUT_WINDOW_MS = 1000

_SCALAR_COLUMNS = (
    "created_ms", "last_updated_ms", "last_recv_ms", "last_sent_ms", "bytes_in", "bytes_out",
    "max_total_conn", "max_total_conn_ms", "window_start_ms", "window_in_start", "window_out_start",
    "avg_in", "last_in", "max_in", "avg_out", "last_out", "max_out",
)


class CounterTable:
    """Counters of every object of one level (server, vhosts, apps or streams), one row per object."""

    def __init__(self, capacity: int = 16) -> None:
        self.size = 0
        self._capacity = capacity
        self.columns: dict[str, Int64Array] = {
            name: np.zeros(capacity, dtype=np.int64) for name in _SCALAR_COLUMNS
        }
        self.publisher_conn: Int64Array = np.zeros((capacity, len(PUBLISHER_PROTOCOLS)), dtype=np.int64)
        self.provider_conn: Int64Array = np.zeros((capacity, len(PROVIDER_PROTOCOLS)), dtype=np.int64)

    def add_row(self, now_ms: int) -> int:
        if self.size == self._capacity:
            self._grow()
        row = self.size
        self.size += 1
        for name in ("created_ms", "last_updated_ms", "last_recv_ms", "last_sent_ms", "max_total_conn_ms",
                     "window_start_ms"):
            self.columns[name][row] = now_ms
        return row

    def _grow(self) -> None:
        self._capacity *= 2
        for name, column in self.columns.items():
            self.columns[name] = np.resize(column, self._capacity)
            self.columns[name][self.size:] = 0
        self.publisher_conn = _grow_matrix(self.publisher_conn, self._capacity, self.size)
        self.provider_conn = _grow_matrix(self.provider_conn, self._capacity, self.size)

    def add_bytes(self, delta_in: Int64Array, delta_out: Int64Array, now_ms: int) -> None:
        """Bytes that arrived and left in one tick, one entry per row (zeros for quiet rows)."""
        n = self.size
        c = self.columns
        delta_in = delta_in[:n]
        delta_out = delta_out[:n]
        c["bytes_in"][:n] += delta_in
        c["bytes_out"][:n] += delta_out
        got_in = delta_in > 0
        got_out = delta_out > 0
        c["last_recv_ms"][:n][got_in] = now_ms
        c["last_sent_ms"][:n][got_out] = now_ms
        c["last_updated_ms"][:n][got_in | got_out] = now_ms
        self._recompute_throughput(got_in, now_ms)

    def add_bytes_out_row(self, row: int, nbytes: int, now_ms: int) -> None:
        """Bytes sent to one real client, applied at once (throughput waits for the next ingress)."""
        c = self.columns
        c["bytes_out"][row] += nbytes
        c["last_sent_ms"][row] = now_ms
        c["last_updated_ms"][row] = now_ms

    def _recompute_throughput(self, got_in: BoolArray, now_ms: int) -> None:
        n = self.size
        c = self.columns
        window_start = c["window_start_ms"]
        rows = np.flatnonzero(got_in & (now_ms - window_start[:n] >= THROUGHPUT_WINDOW_MS))
        if rows.size == 0:
            return
        elapsed = now_ms - window_start[rows]
        for total, window, last, avg, peak in (
            (c["bytes_in"], c["window_in_start"], c["last_in"], c["avg_in"], c["max_in"]),
            (c["bytes_out"], c["window_out_start"], c["last_out"], c["avg_out"], c["max_out"]),
        ):
            now_total = total[rows]
            window_bytes = now_total - window[rows]
            rate = window_bytes * 8 * 1000 // elapsed
            last[rows] = window_bytes
            avg[rows] = rate
            peak[rows] = np.maximum(peak[rows], rate)
            window[rows] = now_total
        window_start[rows] = now_ms

    def set_connections(self, publisher: Int64Array, provider: Int64Array, now_ms: int) -> None:
        """Current session counts per protocol; raises peaks (strictly greater only) with their time."""
        n = self.size
        c = self.columns
        changed = (self.publisher_conn[:n] != publisher[:n]).any(axis=1) | (
            self.provider_conn[:n] != provider[:n]
        ).any(axis=1)
        self.publisher_conn[:n] = publisher[:n]
        self.provider_conn[:n] = provider[:n]
        total = publisher[:n].sum(axis=1)
        raised = total > c["max_total_conn"][:n]
        c["max_total_conn"][:n][raised] = total[raised]
        c["max_total_conn_ms"][:n][raised] = now_ms
        c["last_updated_ms"][:n][changed] = now_ms

    def snapshot(self, row: int) -> dict[str, Any]:
        """Plain Python values of one row, for serialisation."""
        values: dict[str, Any] = {name: int(column[row]) for name, column in self.columns.items()}
        values["publisher_conn"] = dict(zip(PUBLISHER_PROTOCOLS, (int(v) for v in self.publisher_conn[row]),
                                            strict=True))
        values["provider_conn"] = dict(zip(PROVIDER_PROTOCOLS, (int(v) for v in self.provider_conn[row]),
                                           strict=True))
        values["total_conn"] = int(self.publisher_conn[row].sum())
        return values


def _grow_matrix(matrix: Int64Array, capacity: int, used: int) -> Int64Array:
    grown = np.zeros((capacity, matrix.shape[1]), dtype=np.int64)
    grown[:used] = matrix[:used]
    return grown

"""Readings made by hand for the history store's tests, and a writer that stores them at given wall times."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from omeconsole.core.history.observations import ObservedEnd, ObservedSample, ServerId
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

T0 = 1_767_225_600.0
"""2026-01-01T00:00:00Z: a whole minute, hour and day, so buckets start on it."""
SERVER = ServerId.from_url("http://127.0.0.1:8081", "lab")
STREAM = NodePath("default", "app", "stream")


@dataclass(frozen=True)
class Reading:
    """One reading of a node as a test writes it: wall time, counters, viewers, the life it belongs to."""

    at: float
    total_in: int | None
    total_out: int | None
    viewers: int | None = None
    created: float = T0 - 600
    rate_out: float | None = None
    server_peak: int | None = None
    server_peak_at: float | None = None


def stats(reading: Reading) -> NodeStats:
    peak_at = None if reading.server_peak_at is None else datetime.fromtimestamp(reading.server_peak_at, UTC)
    return NodeStats(
        created=datetime.fromtimestamp(reading.created, UTC), last_updated=datetime.fromtimestamp(reading.at, UTC),
        total_bytes_in=reading.total_in, total_bytes_out=reading.total_out, connections_in={"srt": 1},
        connections_out={"llhls": reading.viewers or 0}, total_connections=reading.viewers,
        max_total_connections=reading.server_peak, max_total_connection_time=peak_at, avg_throughput_in_bps=None,
        avg_throughput_out_bps=None, max_throughput_in_bps=None, max_throughput_out_bps=None,
        last_throughput_in_bytes=None, last_throughput_out_bytes=None)


def observed(reading: Reading, path: NodePath = STREAM, server: ServerId = SERVER) -> ObservedSample:
    sample = Sample(at=reading.at - T0, rate_in_bps=None, rate_out_bps=reading.rate_out, viewers=reading.viewers,
                    stats=stats(reading))
    return ObservedSample(server, path, sample, reading.at)


@contextmanager
def store(path: Path, settings: HistorySettings | None = None, *, now: float | None = None) -> Iterator[HistoryWriter]:
    """A writer on `path` that prunes as if it were `now` (default: just after T0), closed on exit."""
    moment = T0 + 1 if now is None else now
    writer = HistoryWriter.start(path, settings or HistorySettings(), now=lambda: moment)
    try:
        yield writer
    finally:
        writer.close()


def write(path: Path, readings: Iterable[Reading], *, node: NodePath = STREAM, server: ServerId = SERVER,
          ended_at: float | None = None, settings: HistorySettings | None = None, now: float | None = None) -> None:
    with store(path, settings, now=now) as writer:
        for reading in readings:
            assert writer.offer(observed(reading, node, server))
        if ended_at is not None:
            assert writer.offer(ObservedEnd(server, node, ended_at))
        assert writer.flush(30)

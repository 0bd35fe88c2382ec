"""Reading the store: which nodes it knows, their summaries, their points over a range, their samples.

A range is read from one source: the finest one (full resolution, then each tier) that reaches back to
the range's start; when none does, the one that reaches back furthest. A source reaches back to the
later of its retention and its oldest row, so a young database is read at full resolution.

Readers open their own connection (one per thread); they never write. Every call is a few
milliseconds for an hour of one node and tens of milliseconds for 30 days (BENCHMARKS.md): the UI
should call it from a worker thread, not from its event loop.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omeconsole.core.history import codec
from omeconsole.core.history.database import open_database
from omeconsole.core.history.events import RecordedSpan, read_spans
from omeconsole.core.history.points import (
    HistorySeries,
    Row,
    as_buckets,
    as_samples,
    nice_step,
    sampled_every,
)
from omeconsole.core.history.settings import HistorySettings, span
from omeconsole.core.history.summary import StreamSummary
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample

CHART_COLUMNS = 120
"""Points a chart window is drawn from (about one per column of a wide chart)."""

_LEVELS = ("vhost", "app", "stream")
_ROW_COLUMNS = ("start, samples, span, delta_in, delta_out, last_at, viewers, viewers_min, viewers_max, "
                "viewers_max_at, rate_in_min, rate_in_max, rate_out_min, rate_out_max, total_in, total_out")


@dataclass(frozen=True, slots=True)
class StoredServer:
    key: str
    profile: str | None
    api_url: str | None


@dataclass(frozen=True, slots=True)
class _Source:
    step: int
    """0: full resolution."""
    reaches_back_to: float
    """What its retention keeps: nothing before this time."""

    @property
    def label(self) -> str:
        return "full resolution" if self.step == 0 else f"{span(self.step)} buckets"


def _path(depth: int, vhost: str, app: str, stream: str) -> NodePath:
    return NodePath(vhost, app if depth >= 1 else None, stream if depth >= 2 else None)


def _key(path: NodePath) -> tuple[int, str, str, str]:
    return (_LEVELS.index(path.level), path.vhost, path.app or "", path.stream or "")


def _sample_row(row: Sequence[Any]) -> Row:
    at, viewers, rate_in, rate_out, total_in, total_out, delta_in, delta_out, spanned = row[:9]
    return Row(at, 1, spanned, delta_in, delta_out, at, viewers, viewers, viewers, at, rate_in, rate_in, rate_out,
               rate_out, total_in, total_out, rate_in, rate_out)


_POINT_COLUMNS = "at, viewers, rate_in, rate_out, total_in, total_out, delta_in, delta_out, span"
_SAMPLE_COLUMNS = f"{_POINT_COLUMNS}, detail"
"""A point needs the numbers; a `Sample` (replay, charts) the reading's details too."""


class HistoryReader:
    """Read-only access to the store at `path` (a HistoryError if nothing was recorded there yet)."""

    def __init__(self, path: Path, settings: HistorySettings | None = None) -> None:
        self.path = path
        self.settings = settings or HistorySettings()
        self._db = open_database(path, create=False)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> HistoryReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: the writer's commits in between do not split a query's answer."""
        self._db.execute("BEGIN")
        try:
            yield self._db
        finally:
            self._db.execute("COMMIT")

    # -- what is stored ---------------------------------------------------------------------------------

    def servers(self) -> list[StoredServer]:
        rows = self._db.execute("SELECT key, profile, api_url FROM servers ORDER BY key").fetchall()
        return [StoredServer(*row) for row in rows]

    def servers_with(self, path: NodePath) -> list[str]:
        """host:port of every server the store has `path` of."""
        rows = self._db.execute("SELECT s.key FROM series n JOIN servers s ON s.id = n.server_id WHERE n.depth = ? "
                                "AND n.vhost = ? AND n.app = ? AND n.stream = ? ORDER BY s.key", _key(path))
        return [row[0] for row in rows]

    def summaries(self, server: str | None = None, *, level: str = "stream",
                  ended: bool | None = None) -> list[StreamSummary]:
        """Nodes of one level (of one server, or all), last seen first; `ended` True/False filters."""
        where = ["n.depth = ?"]
        arguments: list[object] = [_LEVELS.index(level)]
        if server is not None:
            where.append("s.key = ?")
            arguments.append(server)
        if ended is not None:
            where.append("n.ended_at IS NOT NULL" if ended else "n.ended_at IS NULL")
        return [self._summary(row) for row in self._db.execute(
            f"{_SUMMARY_SELECT} WHERE {' AND '.join(where)} ORDER BY n.last_seen DESC", arguments)]

    def summary(self, server: str, path: NodePath) -> StreamSummary | None:
        row = self._db.execute(f"{_SUMMARY_SELECT} WHERE s.key = ? AND n.depth = ? AND n.vhost = ? AND n.app = ? "
                               "AND n.stream = ?", (server, *_key(path))).fetchone()
        return None if row is None else self._summary(row)

    @staticmethod
    def _summary(row: Sequence[Any]) -> StreamSummary:
        (key, profile, depth, vhost, app, stream, first_seen, last_seen, ended_at, life_started, closed,
         peak, peak_at, peak_in, peak_out, bytes_in, bytes_out, samples, lives) = row
        return StreamSummary(
            server=key, profile=profile, path=_path(depth, vhost, app, stream), first_seen=first_seen,
            last_seen=last_seen, ended_at=ended_at, live_seconds=closed + max(0.0, last_seen - life_started),
            peak_viewers=peak, peak_viewers_at=peak_at, peak_rate_in_bps=peak_in, peak_rate_out_bps=peak_out,
            bytes_in=bytes_in, bytes_out=bytes_out, samples=samples, lives=lives)

    def _series_id(self, server: str, path: NodePath) -> int | None:
        row = self._db.execute("SELECT n.id FROM series n JOIN servers s ON s.id = n.server_id WHERE s.key = ? "
                               "AND n.depth = ? AND n.vhost = ? AND n.app = ? AND n.stream = ?",
                               (server, *_key(path))).fetchone()
        return None if row is None else int(row[0])

    # -- points -----------------------------------------------------------------------------------------

    def _source_for(self, start: float, now: float, step: float | None) -> _Source:
        """The finest source (no finer than `step` was asked) that still holds everything since `start`:
        one whose retention reaches back to `start`, or to the oldest data recorded (a young database has
        lost nothing yet). None does: the one kept longest."""
        oldest = self._db.execute("SELECT min(first_seen) FROM series").fetchone()[0]
        since = start if oldest is None else max(start, oldest)
        sources = [_Source(0, now - self.settings.full_resolution)]
        sources += [_Source(tier.step, now - tier.keep) for tier in self.settings.sorted_tiers]
        for source in sources:
            if (step is None or source.step <= step or source is sources[-1]) and source.reaches_back_to <= since:
                return source
        return min(sources, key=lambda s: s.reaches_back_to)

    def _rows(self, series_id: int, source: _Source, start: float, end: float) -> list[Row]:
        if source.step == 0:
            rows = self._db.execute(f"SELECT {_POINT_COLUMNS} FROM samples WHERE series_id = ? AND at >= ? "
                                    "AND at <= ? ORDER BY at", (series_id, start, end))
            return [_sample_row(row) for row in rows]
        first = (start // source.step) * source.step
        rows = self._db.execute(f"SELECT {_ROW_COLUMNS} FROM buckets WHERE series_id = ? AND step = ? AND start >= ? "
                                "AND start <= ? ORDER BY start", (series_id, source.step, first, end))
        return [Row(*row) for row in rows]

    def series(self, server: str, path: NodePath, start: float, end: float, *, step: float | None = None,
               now: float | None = None, source: int | None = None) -> HistorySeries:
        """Points of `path` from `start` to `end` (epoch seconds): every sample as taken when `step` is None
        and the range is at full resolution, else buckets of `step` (rounded up to what is stored).

        `source` reads one stored resolution whatever the range (0: full resolution, else a tier's step),
        for comparing them; by default the finest that still holds the range is read."""
        now = time.time() if now is None else now
        with self._snapshot():
            chosen = self._source_for(start, now, step) if source is None else self._source_named(source)
            series_id = self._series_id(server, path)
            rows = [] if series_id is None else self._rows(series_id, chosen, start, end)
        return self._points(server, path, start, end, chosen, rows, step)

    def _source_named(self, step: int) -> _Source:
        if step != 0 and step not in {tier.step for tier in self.settings.tiers}:
            raise ValueError(f"no {step} s tier is configured")
        keep = self.settings.full_resolution if step == 0 else next(t.keep for t in self.settings.tiers
                                                                      if t.step == step)
        return _Source(step, time.time() - keep)

    def window(self, server: str, path: NodePath, seconds: float, *, now: float | None = None,
               columns: int = CHART_COLUMNS) -> HistorySeries:
        """The last `seconds` of `path` for a chart `columns` wide: samples as taken when they fit, else
        buckets no finer than twice the node's sampling (so an empty bucket is a real gap)."""
        now = time.time() if now is None else now
        start = now - seconds
        with self._snapshot():
            source = self._source_for(start, now, None)
            series_id = self._series_id(server, path)
            rows = [] if series_id is None else self._rows(series_id, source, start, now)
        step: float | None = None
        if source.step or len(rows) > 2 * columns:
            every = sampled_every(rows) or 0.0
            step = nice_step(max(seconds / columns, 2 * every), max(1, source.step))
        return self._points(server, path, start, now, source, rows, step)

    @staticmethod
    def _points(server: str, path: NodePath, start: float, end: float, source: _Source, rows: list[Row],
                step: float | None) -> HistorySeries:
        every = sampled_every(rows)
        if step is None and source.step == 0:
            points = as_samples(rows, every)
        else:
            wanted = source.step if step is None else step
            step = wanted if source.step == 0 else nice_multiple(wanted, source.step)
            points = as_buckets(rows, start, end, step)
        return HistorySeries(server, path, start, end, step, source.label, source.step, tuple(points), every)

    # -- samples (what the console's charts and replay are made of) -----------------------------------

    def samples(self, server: str, path: NodePath, start: float, end: float, *,
                now: float | None = None) -> list[Sample]:
        """Readings of `path` between `start` and `end` as `Sample`s whose `at` is epoch seconds: the very
        samples at full resolution; at a tier, one per bucket (its last totals and viewers, its rates)."""
        now = time.time() if now is None else now
        with self._snapshot():
            source = self._source_for(start, now, None)
            series_id = self._series_id(server, path)
            if series_id is None:
                return []
            if source.step == 0:
                rows = self._db.execute(f"SELECT {_SAMPLE_COLUMNS} FROM samples WHERE series_id = ? AND at >= ? "
                                        "AND at <= ? ORDER BY at", (series_id, start, end)).fetchall()
                return [_sample_of(row) for row in rows]
            buckets = self._rows(series_id, source, start, end)
        return [_bucket_sample(row) for row in buckets]

    def latest_before(self, server: str, path: NodePath, at: float) -> Sample | None:
        """The last reading of `path` at or before `at`: the sample itself while it is kept at full
        resolution, else the last bucket of the finest tier that has one."""
        series_id = self._series_id(server, path)
        if series_id is None:
            return None
        with self._snapshot():
            row = self._db.execute(f"SELECT {_SAMPLE_COLUMNS} FROM samples WHERE series_id = ? AND at <= ? "
                                   "ORDER BY at DESC LIMIT 1", (series_id, at)).fetchone()
            if row is not None:
                return _sample_of(row)
            for tier in self.settings.sorted_tiers:
                bucket = self._db.execute(
                    f"SELECT {_ROW_COLUMNS} FROM buckets WHERE series_id = ? AND step = ? AND start <= ? "
                    "AND last_at <= ? ORDER BY start DESC LIMIT 1", (series_id, tier.step, at, at)).fetchone()
                if bucket is not None:
                    return _bucket_sample(Row(*bucket))
        return None

    def info_at(self, server: str, path: NodePath, at: float) -> str | None:
        """The stream's description (JSON, see `codec.info_from_json`) as last known at `at`."""
        series_id = self._series_id(server, path)
        if series_id is None:
            return None
        row = self._db.execute("SELECT info FROM stream_info WHERE series_id = ? AND at <= ? ORDER BY at DESC "
                               "LIMIT 1", (series_id, at)).fetchone()
        return None if row is None else str(row[0])

    def first_rates_at(self, server: str, start: float, within: float) -> float | None:
        """When every node first recorded in [start, start + within] had its first reading with a rate:
        the moment from which a replay shows each of them with its numbers. None when the full-resolution
        samples of that stretch are no longer kept (or none had a rate)."""
        row = self._db.execute(
            "SELECT max(first_rate) FROM (SELECT min(CASE WHEN x.rate_in IS NOT NULL OR x.rate_out IS NOT NULL "
            "THEN x.at END) AS first_rate, min(x.at) AS first_at FROM samples x JOIN series n ON n.id = x.series_id "
            "JOIN servers s ON s.id = n.server_id WHERE s.key = ? AND x.at >= ? AND x.at <= ? GROUP BY n.id "
            "HAVING first_at <= ?)", (server, start, start + 2 * within, start + within)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def spans(self, server: str, start: float, end: float, path: NodePath | None = None) -> list[RecordedSpan]:
        """Ad breaks and alerts of `server` overlapping [start, end], oldest first (`events.read_spans`)."""
        return read_spans(self._db, server, start, end, path)

    def spans_kept_after(self) -> float | None:
        """Until when (epoch seconds) this store was written by a version that kept no ad breaks or alerts (None:
        it always kept them)."""
        row = self._db.execute("SELECT at FROM events_since").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def lifecycle(self, server: str) -> list[tuple[NodePath, float, str]]:
        """Every (node, time, "live" | "ended") of a server, in time order."""
        rows = self._db.execute(
            "SELECT n.depth, n.vhost, n.app, n.stream, l.at, l.kind FROM lifecycle l JOIN series n "
            "ON n.id = l.series_id JOIN servers s ON s.id = n.server_id WHERE s.key = ? ORDER BY l.at", (server,))
        return [(_path(d, v, a, s), float(at), str(kind)) for d, v, a, s, at, kind in rows]


def nice_multiple(step: float, of: int) -> int:
    """`step` rounded up to a whole number of `of`-second buckets."""
    return max(1, -int(-step // of)) * of


_SUMMARY_SELECT = (
    "SELECT s.key, s.profile, n.depth, n.vhost, n.app, n.stream, n.first_seen, n.last_seen, n.ended_at, "
    "n.life_started, n.closed_lives_seconds, n.peak_viewers, n.peak_viewers_at, n.peak_rate_in, n.peak_rate_out, "
    "n.bytes_in + n.bytes_in_before, n.bytes_out + n.bytes_out_before, n.samples, n.lives "
    "FROM series n JOIN servers s ON s.id = n.server_id")


def _sample_of(row: Sequence[Any]) -> Sample:
    base = _sample_row(row)
    detail = row[9]
    return Sample(at=base.start, rate_in_bps=base.rate_in, rate_out_bps=base.rate_out, viewers=base.viewers,
                  stats=codec.stats_from_row(base.total_in, base.total_out, base.viewers, detail))


def _bucket_sample(row: Row) -> Sample:
    rate_in = row.delta_in * 8 / row.span if row.span > 0 else None
    rate_out = row.delta_out * 8 / row.span if row.span > 0 else None
    return Sample(at=row.last_at, rate_in_bps=rate_in, rate_out_bps=rate_out, viewers=row.viewers,
                  stats=codec.stats_from_row(row.total_in, row.total_out, row.viewers, None))

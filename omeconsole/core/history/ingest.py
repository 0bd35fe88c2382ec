"""One batch of observations into the store: full-resolution rows, every tier's buckets, the summaries.

Byte totals are kept exact by storing counters, not rates. Each sample carries the bytes moved since
the node's previous sample (`delta`), attributed to the sample's time: a tier bucket sums the deltas
of the samples that fall in it, so the bytes over any whole number of buckets are the same from every
tier and from the full-resolution rows. A counter that went back, or a changed createdTime, is a new
life of the node (the server restarted, or the stream came back as a new one): its delta is the new
counter itself (what moved since the reset), never a negative number. The bytes moved between the
last sample before a reset and the reset itself cannot be known and are not invented.

A dropped or missing sample loses no bytes either: the next one's delta covers the time it would have.
Peaks are kept as peaks (the largest viewers and rates of each bucket), minimums beside them.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, fields

from omeconsole.core.history import codec
from omeconsole.core.history.database import transaction
from omeconsole.core.history.events import write_span
from omeconsole.core.history.observations import (
    Observation,
    ObservedEnd,
    ObservedInfo,
    ObservedSample,
    ObservedSpan,
    ServerId,
)
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath

CACHED_SERIES = 50_000
"""Per-node states kept in memory between batches (each is re-read from its row when needed again)."""

NodeKey = tuple[int, int, str, str, str]
"""(server id, depth, vhost, app, stream) with '' for the parts a vhost or app has not."""

_DEPTH = {"vhost": 0, "app": 1, "stream": 2}


def node_key(server_id: int, path: NodePath) -> NodeKey:
    return (server_id, _DEPTH[path.level], path.vhost, path.app or "", path.stream or "")


@dataclass(slots=True)
class _Series:
    """A `series` row as the writer keeps it between batches (field names are the column names)."""

    id: int
    first_seen: float
    last_seen: float
    life_started: float
    samples: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    bytes_in_before: int = 0
    bytes_out_before: int = 0
    peak_viewers: int | None = None
    peak_viewers_at: float | None = None
    peak_rate_in: float | None = None
    peak_rate_out: float | None = None
    life_created: float | None = None
    closed_lives_seconds: float = 0.0
    lives: int = 1
    last_total_in: int | None = None
    last_total_out: int | None = None
    ended_at: float | None = None


_COLUMNS = tuple(f.name for f in fields(_Series) if f.name != "id")
_UPDATE = f"UPDATE series SET {', '.join(f'{c} = ?' for c in _COLUMNS)} WHERE id = ?"
_SELECT = f"SELECT id, {', '.join(_COLUMNS)} FROM series WHERE server_id = ? AND depth = ? AND vhost = ? " \
          "AND app = ? AND stream = ?"

_INSERT_SAMPLE = ("INSERT INTO samples (series_id, at, viewers, rate_in, rate_out, total_in, total_out, delta_in, "
                  "delta_out, span, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _least(column: str) -> str:
    return f"coalesce(min({column}, excluded.{column}), {column}, excluded.{column})"


def _most(column: str) -> str:
    return f"coalesce(max({column}, excluded.{column}), {column}, excluded.{column})"


_UPSERT_BUCKET = f"""
INSERT INTO buckets (series_id, step, start, samples, span, delta_in, delta_out, last_at, viewers, viewers_min,
                     viewers_max, viewers_max_at, rate_in_min, rate_in_max, rate_out_min, rate_out_max,
                     total_in, total_out)
VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (series_id, step, start) DO UPDATE SET
    samples = samples + 1,
    span = span + excluded.span,
    delta_in = delta_in + excluded.delta_in,
    delta_out = delta_out + excluded.delta_out,
    last_at = excluded.last_at,
    viewers = coalesce(excluded.viewers, viewers),
    viewers_min = {_least("viewers_min")},
    viewers_max_at = CASE WHEN excluded.viewers_max > coalesce(viewers_max, -1) THEN excluded.viewers_max_at
                          ELSE viewers_max_at END,
    viewers_max = {_most("viewers_max")},
    rate_in_min = {_least("rate_in_min")},
    rate_in_max = {_most("rate_in_max")},
    rate_out_min = {_least("rate_out_min")},
    rate_out_max = {_most("rate_out_max")},
    total_in = coalesce(excluded.total_in, total_in),
    total_out = coalesce(excluded.total_out, total_out)
"""


@dataclass(frozen=True, slots=True)
class IngestResult:
    samples: int = 0
    duplicates: int = 0
    """Samples not newer than the node's latest stored one (a repeat, or a clock that went back)."""
    ends: int = 0
    infos: int = 0
    spans: int = 0
    """Ad breaks' and alerts' spans written (new or changed)."""


def _delta(old: int | None, new: int | None, reset: bool) -> int:
    """Bytes moved between two readings of a counter; 0 when either is unknown (the next valid one covers)."""
    if new is None or old is None:
        return 0
    return new if reset else new - old


def _higher(old: float | None, new: float | None) -> float | None:
    if new is None:
        return old
    return new if old is None or new > old else old


class Ingest:
    """Writes observations with one connection; used by one thread only (the writer's)."""

    def __init__(self, connection: sqlite3.Connection, settings: HistorySettings) -> None:
        self._db = connection
        self._steps = tuple(tier.step for tier in settings.sorted_tiers)
        self._servers: dict[str, int] = {}
        self._labels: dict[str, ServerId] = {}
        self._series: OrderedDict[NodeKey, _Series] = OrderedDict()
        self._last_info: dict[int, str] = {}

    def write(self, batch: Sequence[Observation]) -> IngestResult:
        """Everything in `batch` in one transaction: all of it is on disk when this returns, or none."""
        samples = duplicates = ends = infos = spans = 0
        dirty: dict[int, _Series] = {}
        try:
            with transaction(self._db):
                for item in batch:
                    if isinstance(item, ObservedSpan):
                        spans += write_span(self._db, self._server_id(item.server), item)
                        continue
                    series = self._series_of(item.server, item.path, item.at, create=not isinstance(item, ObservedEnd))
                    if series is None:
                        continue
                    if isinstance(item, ObservedSample):
                        if self._sample(series, item):
                            samples += 1
                        else:
                            duplicates += 1
                    elif isinstance(item, ObservedEnd):
                        ends += self._end(series, item.at)
                    else:
                        infos += self._info(series, item)
                    dirty[series.id] = series
                for series in dirty.values():
                    self._db.execute(_UPDATE, (*(getattr(series, c) for c in _COLUMNS), series.id))
        except BaseException:
            # Rolled back: the cached states may hold what never reached the file. Read them again.
            self._series.clear()
            self._last_info.clear()
            self._servers.clear()
            self._labels.clear()
            raise
        while len(self._series) > CACHED_SERIES:
            self._series.popitem(last=False)
        if len(self._last_info) > CACHED_SERIES:
            self._last_info.clear()
        return IngestResult(samples, duplicates, ends, infos, spans)

    # -- rows -----------------------------------------------------------------------------------------

    def _server_id(self, server: ServerId) -> int:
        known = self._servers.get(server.key)
        if known is not None and self._labels.get(server.key) == server:
            return known
        row = self._db.execute("SELECT id FROM servers WHERE key = ?", (server.key,)).fetchone()
        if row is None:
            cursor = self._db.execute("INSERT INTO servers (key, profile, api_url) VALUES (?, ?, ?)",
                                      (server.key, server.profile, server.api_url))
            server_id = int(cursor.lastrowid or 0)
        else:
            server_id = int(row[0])
            self._db.execute("UPDATE servers SET profile = coalesce(?, profile), api_url = coalesce(?, api_url) "
                             "WHERE id = ?", (server.profile, server.api_url, server_id))
        self._servers[server.key] = server_id
        self._labels[server.key] = server
        return server_id

    def _series_of(self, server: ServerId, path: NodePath, at: float, *, create: bool) -> _Series | None:
        key = node_key(self._server_id(server), path)
        series = self._series.get(key)
        if series is not None:
            self._series.move_to_end(key)
            return series
        row = self._db.execute(_SELECT, key).fetchone()
        if row is not None:
            series = _Series(row[0], **dict(zip(_COLUMNS, row[1:], strict=True)))
        elif create:
            cursor = self._db.execute(
                "INSERT INTO series (server_id, depth, vhost, app, stream, first_seen, last_seen, life_started) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*key, at, at, at))
            series = _Series(int(cursor.lastrowid or 0), first_seen=at, last_seen=at, life_started=at)
            self._db.execute("INSERT OR IGNORE INTO lifecycle (series_id, at, kind) VALUES (?, ?, 'live')",
                             (series.id, at))
        else:
            return None
        self._series[key] = series
        return series

    def _sample(self, series: _Series, item: ObservedSample) -> bool:
        at, sample, stats = item.at, item.sample, item.sample.stats
        if series.samples and at <= series.last_seen:
            return False
        created = codec.epoch(stats.created)
        total_in, total_out = stats.total_bytes_in, stats.total_bytes_out
        if series.ended_at is not None:
            series.ended_at = None
            self._db.execute("INSERT OR IGNORE INTO lifecycle (series_id, at, kind) VALUES (?, ?, 'live')",
                             (series.id, at))
        if series.last_total_in is None and total_in is not None:
            series.bytes_in_before = total_in  # first valid sight: what moved before it moved before us
        if series.last_total_out is None and total_out is not None:
            series.bytes_out_before = total_out
        reset_in = reset_out = False
        if not series.samples:
            delta_in = delta_out = 0
            span = 0.0
            series.life_created = created
            series.life_started = min(at, created) if created is not None else at
        else:
            if series.life_created is None:
                series.life_created = created
            new_life = created is not None and series.life_created is not None and created != series.life_created
            reset_in = new_life or (total_in is not None and series.last_total_in is not None
                                    and total_in < series.last_total_in)
            reset_out = new_life or (total_out is not None and series.last_total_out is not None
                                     and total_out < series.last_total_out)
            delta_in = _delta(series.last_total_in, total_in, reset_in)
            delta_out = _delta(series.last_total_out, total_out, reset_out)
            began = series.last_seen
            if reset_in or reset_out:
                if created is not None:
                    began = min(at, max(began, created))
                series.closed_lives_seconds += max(0.0, series.last_seen - series.life_started)
                series.lives += 1
                series.life_created = created
                series.life_started = began
            span = at - began
        series.samples += 1
        series.last_seen = at
        series.bytes_in += delta_in
        series.bytes_out += delta_out
        if total_in is not None:
            series.last_total_in = total_in
        elif reset_in and series.last_total_in is not None:
            series.last_total_in = 0  # restarted from zero: its next valid reading is all new bytes
        if total_out is not None:
            series.last_total_out = total_out
        elif reset_out and series.last_total_out is not None:
            series.last_total_out = 0
        self._peaks(series, item)
        self._db.execute(_INSERT_SAMPLE, (series.id, at, sample.viewers, sample.rate_in_bps, sample.rate_out_bps,
                                          total_in, total_out, delta_in, delta_out, span,
                                          codec.stats_detail(stats)))
        for step in self._steps:
            self._db.execute(_UPSERT_BUCKET, (
                series.id, step, int(at // step) * step, span, delta_in, delta_out, at, sample.viewers,
                sample.viewers, sample.viewers, at, sample.rate_in_bps, sample.rate_in_bps, sample.rate_out_bps,
                sample.rate_out_bps, total_in, total_out))
        return True

    @staticmethod
    def _peaks(series: _Series, item: ObservedSample) -> None:
        """The highest viewers and rates seen. The server's own peak (maxTotalConnections) is not taken: it
        counts every publisher session (relays, pushes, recordings, thumbnails, a console's own playlist
        read), not viewers."""
        sample = item.sample
        viewers = sample.viewers
        if viewers is not None and (series.peak_viewers is None or viewers > series.peak_viewers):
            series.peak_viewers, series.peak_viewers_at = viewers, item.at
        series.peak_rate_in = _higher(series.peak_rate_in, sample.rate_in_bps)
        series.peak_rate_out = _higher(series.peak_rate_out, sample.rate_out_bps)

    def _end(self, series: _Series, at: float) -> int:
        if series.ended_at is not None or not series.samples:
            return 0
        at = max(at, series.last_seen)
        series.ended_at = at
        self._db.execute("INSERT OR IGNORE INTO lifecycle (series_id, at, kind) VALUES (?, ?, 'ended')",
                         (series.id, at))
        return 1

    def _info(self, series: _Series, item: ObservedInfo) -> int:
        text = codec.info_json(item.info)
        last = self._last_info.get(series.id)
        if last is None:
            row = self._db.execute("SELECT info FROM stream_info WHERE series_id = ? ORDER BY at DESC LIMIT 1",
                                   (series.id,)).fetchone()
            last = row[0] if row is not None else ""
        if text == last:
            return 0
        self._db.execute("INSERT OR REPLACE INTO stream_info (series_id, at, info) VALUES (?, ?, ?)",
                         (series.id, item.at, text))
        self._last_info[series.id] = text
        return 1

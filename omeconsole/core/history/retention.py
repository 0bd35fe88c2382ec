"""Keeping the store to what the config asks: each resolution for its time, the whole under its cap.

By age: full-resolution rows older than `full_resolution`, a tier's buckets once they end before its
`keep`, buckets of a step no longer configured, and nodes last seen before the longest retention
(their summary, lifecycle and descriptions with them), and ad breaks' and alerts' spans that ended before the
longest retention. By size: while the data would take more than
`max_size`, the oldest tenth of what is left goes, whatever its tier (the coarsest tier holds the
oldest data, so it shortens first), down to 90 % of the cap so the next batch does not trigger it
again. Freed pages go back to the file system (`auto_vacuum = INCREMENTAL`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from omeconsole.core.history.database import transaction, used_bytes
from omeconsole.core.history.events import prune_spans
from omeconsole.core.history.settings import HistorySettings

SIZE_ROUNDS = 30
"""At most this many cuts per pass (each takes a tenth of the span left, so 30 leave ~4 %)."""


@dataclass(frozen=True, slots=True)
class PruneResult:
    samples: int = 0
    buckets: int = 0
    series: int = 0
    for_size: bool = False
    """Whether the size cap (not only age) made data go."""
    used_bytes: int = 0


def _delete_nodes_last_seen_before(db: sqlite3.Connection, cutoff: float) -> int:
    gone = "(SELECT id FROM series WHERE last_seen < ?)"
    db.execute(f"DELETE FROM samples WHERE series_id IN {gone}", (cutoff,))
    db.execute(f"DELETE FROM buckets WHERE series_id IN {gone}", (cutoff,))
    db.execute(f"DELETE FROM lifecycle WHERE series_id IN {gone}", (cutoff,))
    db.execute(f"DELETE FROM stream_info WHERE series_id IN {gone}", (cutoff,))
    return db.execute("DELETE FROM series WHERE last_seen < ?", (cutoff,)).rowcount


def _by_age(db: sqlite3.Connection, settings: HistorySettings, now: float) -> tuple[int, int, int]:
    samples = db.execute("DELETE FROM samples WHERE at < ?", (now - settings.full_resolution,)).rowcount
    buckets = 0
    steps = [tier.step for tier in settings.tiers]
    for tier in settings.tiers:
        buckets += db.execute("DELETE FROM buckets WHERE step = ? AND start + step <= ?",
                              (tier.step, now - tier.keep)).rowcount
    marks = ", ".join("?" for _ in steps)
    buckets += db.execute(f"DELETE FROM buckets WHERE step NOT IN ({marks})" if steps else "DELETE FROM buckets",
                          steps).rowcount
    longest = max([settings.full_resolution, *(tier.keep for tier in settings.tiers)])
    prune_spans(db, now - longest)  # an ad break or alert is kept as long as the longest-kept readings
    return samples, buckets, _delete_nodes_last_seen_before(db, now - longest)


def _oldest(db: sqlite3.Connection) -> float | None:
    times = [db.execute("SELECT min(at) FROM samples").fetchone()[0],
             db.execute("SELECT min(start) FROM buckets").fetchone()[0],
             db.execute("SELECT min(last_seen) FROM series").fetchone()[0]]
    known = [float(t) for t in times if t is not None]
    return min(known) if known else None


def _by_size(db: sqlite3.Connection, settings: HistorySettings, now: float) -> tuple[int, int, int]:
    samples = buckets = series = 0
    target = settings.max_size * 0.9
    for _ in range(SIZE_ROUNDS):
        if used_bytes(db) <= target:
            break
        oldest = _oldest(db)
        if oldest is None or oldest >= now:
            break
        cutoff = oldest + max(1.0, (now - oldest) / 10)
        with transaction(db):
            samples += db.execute("DELETE FROM samples WHERE at < ?", (cutoff,)).rowcount
            buckets += db.execute("DELETE FROM buckets WHERE start < ?", (cutoff,)).rowcount
            prune_spans(db, cutoff)
            series += _delete_nodes_last_seen_before(db, cutoff)
    return samples, buckets, series


def prune(db: sqlite3.Connection, settings: HistorySettings, now: float) -> PruneResult:
    """Applies the retention at wall time `now` (epoch seconds); safe to call at any time."""
    with transaction(db):
        samples, buckets, series = _by_age(db, settings, now)
    for_size = used_bytes(db) > settings.max_size
    if for_size:
        more = _by_size(db, settings, now)
        samples, buckets, series = samples + more[0], buckets + more[1], series + more[2]
    if samples or buckets or series:
        db.executescript("PRAGMA incremental_vacuum;")  # execute() would stop after its first step: one page
    return PruneResult(samples, buckets, series, for_size, used_bytes(db))

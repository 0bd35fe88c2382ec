"""The history store through its writer and reader: totals, summaries, retention, the size cap, the file."""

from __future__ import annotations

import sqlite3
import stat
import threading
from pathlib import Path

import pytest
from history_support import SERVER, STREAM, T0, Reading, observed, store, write

from omeconsole.core.history.database import SCHEMA_VERSION, HistoryError
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.settings import HistorySettings, Tier
from omeconsole.model.paths import NodePath


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_byte_totals_add_up_across_a_server_restart_and_never_go_negative(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    readings = [
        Reading(T0 + 0, 5_000, 50_000, 3),      # first sight: the counters since the stream began
        Reading(T0 + 10, 6_000, 60_000, 4),
        Reading(T0 + 20, 7_500, 80_000, 4),
        # the server restarted at T0 + 25: counters from zero, a new createdTime
        Reading(T0 + 30, 400, 9_000, 2, created=T0 + 25),
        Reading(T0 + 40, 1_400, 19_000, 2, created=T0 + 25),
        # a counter that goes back without a new createdTime is a reset too
        Reading(T0 + 50, 100, 1_000, 1, created=T0 + 25),
    ]
    write(db, readings)
    with HistoryReader(db) as reader:
        series = reader.series(SERVER.key, STREAM, T0, T0 + 60, now=T0 + 61)
        summary = reader.summary(SERVER.key, STREAM)
    moved_out = [p.bytes_out for p in series.points]
    assert moved_out == [0, 10_000, 20_000, 9_000, 10_000, 1_000]
    assert all(p.bytes_in is not None and p.bytes_in >= 0 for p in series.points)
    assert series.bytes_total() == (1_000 + 1_500 + 400 + 1_000 + 100, 50_000)
    assert summary is not None
    assert (summary.bytes_in, summary.bytes_out) == (5_000 + 4_000, 50_000 + 50_000)
    assert summary.lives == 3


def test_an_ended_stream_keeps_a_summary_with_its_peak_bytes_and_live_time(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    gib = 1024**3
    minute = [Reading(T0 + 60 * i, i * 1_000, int(i * 0.125 * gib), viewers=100 + i, created=T0 - 1800)
              for i in range(0, 113)]
    # the server saw a higher peak of connections between two samples: not viewers (relays, recordings...)
    minute[50] = Reading(minute[50].at, minute[50].total_in, minute[50].total_out, 150, created=T0 - 1800,
                         server_peak=812, server_peak_at=T0 + 2990)
    write(db, minute, ended_at=T0 + 112 * 60 + 5, now=T0 + 112 * 60)
    with HistoryReader(db) as reader:
        summary = reader.summary(SERVER.key, STREAM)
        ended = reader.summaries(ended=True)
        live = reader.summaries(ended=False)
    assert summary is not None and ended == [summary] and live == []
    assert summary.ended_at == T0 + 112 * 60 + 5
    assert (summary.peak_viewers, summary.peak_viewers_at) == (212, T0 + 112 * 60)  # the last reading: 100 + 112
    assert summary.bytes_out == int(112 * 0.125 * gib)
    assert summary.live_seconds == pytest.approx(1800 + 112 * 60)
    line = summary.describe(now=summary.ended_at + 3 * 3600)
    assert line == "ended 3 h 00 min ago — peak 212 viewers, 14.00 GiB out, 2 h 22 min live"
    assert summary.describe(now=summary.ended_at + 3 * 86_400 + 7200).startswith("ended 3 d 2 h ago")


def test_repeated_and_out_of_order_samples_are_ignored(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    with store(db) as writer:
        for reading in (Reading(T0 + 1, 10, 100, 1), Reading(T0 + 2, 20, 200, 1), Reading(T0 + 2, 20, 200, 1),
                        Reading(T0 + 1.5, 15, 150, 1), Reading(T0 + 3, 30, 300, 1)):
            writer.offer(observed(reading))
        stats = writer.close()
    assert (stats.accepted, stats.committed, stats.samples, stats.duplicates) == (5, 5, 3, 2)
    with HistoryReader(db) as reader:
        series = reader.series(SERVER.key, STREAM, T0, T0 + 4, now=T0 + 5)
    assert [p.at for p in series.points] == [T0 + 1, T0 + 2, T0 + 3]
    assert series.bytes_total() == (20, 200)


def test_the_database_and_its_directory_are_private_to_the_user(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "er" / "history.sqlite3"
    with store(db) as writer:
        writer.offer(observed(Reading(T0, 1, 1, 1)))
        assert writer.flush(30)
        companions = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
        assert all(path.exists() for path in companions)  # WAL mode: the writer keeps them open
        assert [_mode(path) for path in companions] == [0o600, 0o600, 0o600]
    assert _mode(db.parent) == 0o700 and _mode(db.parent.parent) == 0o700

    loose = tmp_path / "loose.sqlite3"
    loose.touch(mode=0o644)
    loose.chmod(0o644)
    with store(loose):
        pass
    assert _mode(loose) == 0o600


def test_the_schema_version_is_recorded_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    write(db, [Reading(T0, 1, 1, 1)])
    with sqlite3.connect(db) as raw:
        versions = raw.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
        assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
        raw.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', 0)", (SCHEMA_VERSION + 1,))
    with pytest.raises(HistoryError, match="newer omeconsole"):
        HistoryReader(db)
    with pytest.raises(HistoryError, match="newer omeconsole"), store(db):
        pass


def test_a_reader_never_creates_a_database(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="no history recorded yet"):
        HistoryReader(tmp_path / "none.sqlite3")
    assert not (tmp_path / "none.sqlite3").exists()


def test_each_resolution_is_kept_for_its_own_time(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    settings = HistorySettings(full_resolution="10m", tiers=[Tier(step="10s", keep="1h"), Tier(step="1m", keep="1d")])
    readings = [Reading(T0 + i, i * 10, i * 100, 1) for i in range(0, 7200, 5)]  # two hours every 5 s
    write(db, readings, settings=settings, now=T0)
    later = T0 + 7200
    with store(db, settings, now=later):  # a writer started later prunes what is older than each tier keeps
        pass
    with HistoryReader(db, settings) as reader:
        full = reader.series(SERVER.key, STREAM, T0, later, now=later, source=0)
        tens = reader.series(SERVER.key, STREAM, T0, later, now=later, source=10)
        minutes = reader.series(SERVER.key, STREAM, T0, later, now=later, source=60)
        chosen = [reader.series(SERVER.key, STREAM, later - back, later, now=later).source
                  for back in (300, 1800, 5000)]
    samples = [p for p in full.points if not p.gap]
    assert samples[0].at == later - 600 and samples[-1].at == readings[-1].at
    assert min(p.at for p in tens.points if not p.gap) == later - 3600
    assert min(p.at for p in minutes.points if not p.gap) == T0
    assert chosen == ["full resolution", "10 s buckets", "1 min buckets"]
    assert minutes.bytes_total() == (readings[-1].total_in, readings[-1].total_out)


def test_the_size_cap_drops_the_oldest_data_first(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    settings = HistorySettings(max_size="1 MiB", full_resolution="1d")
    streams = [NodePath("default", "app", f"s{i}") for i in range(40)]
    end = T0 + 3600
    with store(db, settings, now=end) as writer:
        for second in range(0, 3600, 10):
            for path in streams:
                writer.offer(observed(Reading(T0 + second, second * 100, second * 1000, 5), path))
        assert writer.flush(60)
    with store(db, settings, now=end) as writer:  # pruning runs when a writer starts
        pruned = writer.stats().last_prune
    assert pruned is not None and pruned.for_size and pruned.used_bytes <= settings.max_size
    assert db.stat().st_size <= 1.5 * settings.max_size  # freed pages went back to the file system
    with HistoryReader(db, settings) as reader:
        kept = reader.series(SERVER.key, streams[0], T0, end, now=end)
    times = [p.at for p in kept.points if not p.gap]
    assert times[-1] == T0 + 3590 and times[0] > T0 + 600


def test_a_locked_database_makes_offers_drop_with_a_count_and_loses_no_bytes(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    settings = HistorySettings(queue_size=16, batch_seconds=0.05)
    with store(db, settings) as writer:
        blocker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        blocker.execute("BEGIN EXCLUSIVE")
        offered = taken = 0
        while taken == offered:  # the writer blocks on the lock, the queue fills, and offers start to drop
            offered += 1
            taken += writer.offer(observed(Reading(T0 + offered, offered * 7, offered * 70, offered % 9)))
            assert offered < 100_000
        released = threading.Timer(0.05, lambda: blocker.execute("COMMIT"))
        released.start()
        assert writer.flush(60)
        released.join()
        blocker.close()
        last = offered + 1
        assert writer.offer(observed(Reading(T0 + last, last * 7, last * 70, 1)))
        assert writer.flush(60)
        stats = writer.stats()
    assert stats.dropped >= 1 and stats.committed == stats.accepted and stats.lost == 0
    with HistoryReader(db) as reader:
        summary = reader.summary(SERVER.key, STREAM)
    assert summary is not None and summary.samples < last
    assert (summary.bytes_in, summary.bytes_out) == (last * 7, last * 70)

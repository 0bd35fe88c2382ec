"""What the console's charts read at start: a window of a node at a resolution fit for it, gaps as gaps,
and how often the node was really sampled."""

from __future__ import annotations

from pathlib import Path

from history_support import SERVER, STREAM, T0, Reading, write

from omeconsole.core.history.reader import HistoryReader

HOLE = range(300, 360)
"""Seconds after T0 with no sample (the console was closed)."""


def _every_second(db: Path) -> None:
    write(db, [Reading(T0 + s, s * 500, s * 5_000, 10 + s % 7, rate_out=40_000.0)
               for s in range(600) if s not in HOLE], now=T0 + 600)


def test_chart_windows_pick_a_resolution_and_show_the_hole_as_a_gap(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    _every_second(db)
    now = T0 + 600
    with HistoryReader(db) as reader:
        minute = reader.window(SERVER.key, STREAM, 60, now=now)
        five = reader.window(SERVER.key, STREAM, 300, now=T0 + 450, columns=125)
        quarter = reader.window(SERVER.key, STREAM, 900, now=now)
        hour = reader.window(SERVER.key, STREAM, 3600, now=now)
    assert minute.step is None and minute.sampled_every == 1.0
    assert [p.at for p in minute.points] == [T0 + s for s in range(540, 600)]
    assert [p.rate_out_bps for p in minute.points] == [40_000.0] * 60  # the rates the console showed
    # samples as taken fit a chart: the hole is one gap point between the samples around it
    assert five.step is None and [p.at for p in five.points if p.gap] == [T0 + 300]
    assert len(five.points) == 150 + 91 + 1
    # too many samples for the chart: buckets, the hole's buckets are gaps with every value None
    assert quarter.step == 10 and len(quarter.points) == 90
    assert [p.at for p in quarter.points if p.gap] == [T0 + s for s in range(-300, 0, 10)] + \
        [T0 + s for s in range(300, 360, 10)]
    assert all(p.rate_out_bps is None and p.viewers is None and p.bytes_out is None
               for p in quarter.points if p.gap)
    full = [p for p in quarter.points if not p.gap and T0 + 10 <= p.at < T0 + 290]
    assert all(p.rate_out_bps == 5_000 * 8 for p in full)  # bytes over the seconds they moved in
    assert all(p.samples == 10 for p in full)
    assert hour.step == 30 and all(p.gap for p in hour.points if p.at < T0)
    assert [p.viewers_max for p in hour.points if not p.gap][:2] == [16, 16]


def test_a_rarely_sampled_node_says_how_rarely(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    write(db, [Reading(T0 + s, s, s * 10, 3) for s in range(0, 7200, 500)], now=T0 + 7200)
    with HistoryReader(db) as reader:
        hour = reader.window(SERVER.key, STREAM, 3600, now=T0 + 7200)
    assert hour.sampled_every == 500.0 and hour.step is None
    assert [p.at for p in hour.points] == [T0 + s for s in range(4000, 7200, 500)]
    assert hour.bytes_total() == (3500, 35_000)
    with HistoryReader(db) as reader:
        day = reader.window(SERVER.key, STREAM, 86_400, now=T0 + 7200, columns=4)
    # buckets no finer than twice the sampling, so an empty bucket is a real gap, not a missed beat
    assert day.step == 21_600 and day.sampled_every == 500.0


def test_charts_start_full_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    _every_second(db)
    with HistoryReader(db) as reader:  # a console started now asks for what it would have kept
        samples = reader.samples(SERVER.key, STREAM, T0 + 500, T0 + 600, now=T0 + 600)
    assert [s.at for s in samples] == [T0 + s for s in range(500, 600)]
    assert all(s.rate_out_bps == 40_000.0 for s in samples)
    assert samples[-1].stats.total_bytes_out == 599 * 5_000
    assert samples[-1].stats.connections_out == {"llhls": 10 + 599 % 7}

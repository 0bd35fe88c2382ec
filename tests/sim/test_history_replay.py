"""Replay from the store: the numbers the live view showed, the listing as it was, time played and scrubbed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fake_clock import FakeClock
from history_support import SERVER, STREAM, T0, Reading, Rig, recording_rig, store, write

from omeconsole.core.history.observations import epoch_of
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.replay import READ_ONLY_REASON, ReplayCursor, ReplaySource
from omeconsole.core.history.settings import HistorySettings, Tier
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with recording_rig(tmp_path) as running:
        yield running


def _numbers(view: NodeView) -> tuple[object, ...]:
    latest = view.latest
    assert latest is not None
    stats = latest.stats
    return (latest.rate_in_bps, latest.rate_out_bps, latest.viewers, stats.total_bytes_in, stats.total_bytes_out,
            dict(stats.connections_out or {}), dict(stats.connections_in or {}), stats.max_total_connections,
            stats.created, stats.avg_throughput_out_bps)


async def test_replay_shows_the_numbers_the_live_view_showed_without_any_server(rig: Rig) -> None:
    stream, app, news = NodePath("default", "app", "stream"), NodePath("default", "app"), NodePath("default", "app",
                                                                                                   "news")
    seen: list[tuple[float, NodePath, tuple[object, ...], int]] = []
    async with rig.recorder() as (_, engine):
        engine.select(stream)  # as the console does: the selected stream's description is read too
        await rig.advance(engine, 4)
        for _ in range(12):
            await rig.advance(engine, 1)
            for path in (stream, app):
                view = engine.node(path)
                assert view.state is NodeState.LIVE and view.latest is not None
                seen.append((epoch_of(rig.clock, view.latest.at), path, _numbers(view), len(view.history)))
        ended_stream = next(s for s in rig.sim.world.live_streams() if s.name == "news")
        rig.sim.world.end_stream(ended_stream)
        await rig.advance(engine, 5)
        ended_at = rig.clock.wall().timestamp()
        info = engine.node(stream).info
    # the simulator is gone: the replay has only the store
    start, end = seen[0][0] - 10, ended_at
    with HistoryReader(rig.db) as reader:
        replay = ReplaySource(reader, rig.server.key, ReplayCursor(FakeClock(), start, end))
        for at, path, numbers, history in seen:
            view = replay.node_at(path, at)
            assert view.state is NodeState.LIVE
            assert _numbers(view) == numbers
            assert len(view.history) == history
            assert view.history[-1] is view.latest and view.age(at) == 0
        last_at = seen[-1][0]
        assert info is not None and replay.node_at(stream, last_at).info == info

        before, after = replay.listing_at(last_at), replay.listing_at(end)
        assert "news" in before["default"]["app"].live and "news" not in before["default"]["app"].ended
        assert "news" not in after["default"]["app"].live and "news" in after["default"]["app"].ended
        assert set(after["default"]) == {"app", "live"}
        gone = replay.node_at(news, end)
        assert gone.state is NodeState.ENDED and gone.ended_at is not None and gone.latest is not None
        assert replay.node_at(news, start - 100).state is NodeState.UNKNOWN
        quiet = ReplaySource(reader, rig.server.key, ReplayCursor(FakeClock(), start, end), keep_ended=1)
        assert "news" not in quiet.listing_at(end + 5)["default"]["app"].ended
        assert replay.read_only_reason == READ_ONLY_REASON


def test_the_cursor_plays_at_1_10_and_60_times_and_scrubs_within_the_range() -> None:
    clock = FakeClock(start=50.0, wall_start=datetime(2026, 3, 1, tzinfo=UTC))
    cursor = ReplayCursor(clock, 1000.0, 5000.0)
    assert cursor.position == 1000.0 and cursor.speed == 0
    clock.advance(30)
    assert cursor.position == 1000.0  # paused until told to play
    cursor.play(1)
    clock.advance(30)
    assert cursor.position == 1030.0
    cursor.play(10)
    clock.advance(3)
    assert cursor.position == 1060.0
    cursor.jump(-100)
    assert cursor.position == 1000.0  # never before the range
    cursor.jump(200)
    assert cursor.position == 1200.0 and cursor.speed == 10
    cursor.pause()
    clock.advance(100)
    assert cursor.position == 1200.0 and cursor.speed == 0
    cursor.play(60)
    clock.advance(60)
    assert cursor.position == 4800.0
    clock.advance(60)
    assert cursor.position == 5000.0 and cursor.speed == 0  # stops at the end
    cursor.seek(2000)
    assert cursor.position == 2000.0
    with pytest.raises(ValueError, match="1x, 10x, 60x"):
        cursor.play(2)


def test_replay_of_a_time_only_the_tiers_still_hold(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    settings = HistorySettings(full_resolution="1h", tiers=[Tier(step="10s", keep="1d")])
    write(db, [Reading(T0 + s, s * 100, s * 1_000, 5 + s % 4) for s in range(0, 7200, 5)], settings=settings,
          now=T0)
    with store(db, settings, now=T0 + 7200):  # two hours on, the first hour's samples are gone
        pass
    with HistoryReader(db, settings) as reader:
        replay = ReplaySource(reader, SERVER.key, ReplayCursor(FakeClock(), T0, T0 + 7200), now=T0 + 7200)
        old = replay.node_at(STREAM, T0 + 1805)
        recent = replay.node_at(STREAM, T0 + 7000)
    assert old.state is NodeState.LIVE and old.latest is not None
    # one sample per 10 s bucket: its last reading, its rate from the bytes moved in it
    assert [s.at for s in old.history][-3:] == [T0 + 1785, T0 + 1795, T0 + 1805]
    assert old.latest.stats.total_bytes_out == 1805 * 1_000 and old.latest.rate_out_bps == 8_000
    assert old.latest.viewers == 5 + 1805 % 4
    assert [s.at for s in recent.history][-2:] == [T0 + 6995, T0 + 7000]  # the samples themselves

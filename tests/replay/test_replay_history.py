"""`record` (the recorder on the console's polling) and `omeconsole history` on the replayed 0.19.0's series."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from fake_clock import FakeClock
from ome_replay import FIXTURES, STATS_PATH, OmeReplay
from pydantic import SecretStr
from replay_support import replay_clock

from omeconsole.cli.main import main
from omeconsole.core.config import Settings
from omeconsole.core.history.observations import ServerId
from omeconsole.core.history.recorder import Recorder
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath

STREAM = NodePath("default", "app", "stream")
WINDOW = ("--from", "2026-11-29T00:04:00+00:00", "--to", "2026-11-29T00:07:00+00:00")
"""The minutes the replay's clock covers (the captured series' own wall time)."""
SERIES = [json.loads(reading["body"])["response"] for reading in
          json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())]


@asynccontextmanager
async def recorded(clock: FakeClock, replay: OmeReplay, db: Path, seconds: int, *,
                   watch_playlist: bool = False) -> AsyncIterator[None]:
    """`seconds` polling cycles of a recorder into `db`; with `watch_playlist` the console also follows the
    stream's playlist all along, as its break panel and cue confirmations do."""
    settings = Settings(api_url=replay.api_url, publisher_url=replay.publisher_url, token=SecretStr(replay.token),
                        request_budget=500.0)
    session = connector(clock, rng=random.Random(3), audit_path=db.parent / "audit.jsonl")(settings)
    writer = HistoryWriter.start(db, HistorySettings(), now=lambda: clock.wall().timestamp())
    recorder = Recorder(session.engine, clock, ServerId.from_url(replay.api_url), writer)
    detach = recorder.attach()
    lease = session.adops.stream(STREAM).watch() if watch_playlist else None
    try:
        for _ in range(seconds):
            await session.engine.poll_cycle()
            clock.advance(1.0)
            replay.clock.advance(1.0)
        yield
    finally:
        if lease is not None:
            lease.release()
        detach()
        writer.close()
        await session.aclose()


def history(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> str:
    monkeypatch.setenv("OMECONSOLE_HISTORY_DB", str(db))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(db.parent / "no-config.toml"))
    for name in ("OME_API_URL", "OME_ACCESS_TOKEN", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    code = main(["history", *args, *WINDOW])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


async def test_the_recorded_history_holds_the_servers_own_totals_and_peak(monkeypatch, capsys, tmp_path) -> None:
    clock, server_clock = replay_clock(), replay_clock()
    db = tmp_path / "history.sqlite3"
    async with OmeReplay(server_clock) as replay, recorded(clock, replay, db, 20):
        pass
    document = json.loads(history(monkeypatch, capsys, db, "default/app/stream", "--json"))
    summary = document["summary"]
    polled = [reading["totalBytesIn"] for reading in SERIES[:21]]
    assert summary["bytes_in"] in polled[-3:]  # the last reading taken, the server's own counter
    assert summary["bytes_out"] == 752  # the one captured fetch's 410 body + 342 header bytes
    # The capture's one fetch at 00:05:14.298 moved maxTotalConnections to 1 on a connection closed at once:
    # no reading ever showed a viewer, and the peak is of the viewers seen (not the server's every-session peak).
    assert summary["peak_viewers"] == 0
    viewers = [point["viewers"] for point in document["points"] if point["samples"]]
    assert viewers and set(viewers) == {0}  # nobody held a connection open in the 60 s series
    line = history(monkeypatch, capsys, db, "default/app/stream").splitlines()[0]
    assert line.startswith(f"default/app/stream on {ServerId.from_url(replay.api_url).key}: ")
    assert "peak 0 viewers" in line


async def test_the_record_command_records_the_replayed_stream_and_stops_cleanly(monkeypatch, capsys,
                                                                              tmp_path) -> None:
    """The real `omeconsole record` process; each of its polls of the stream moves the replay one reading on."""
    clock = replay_clock()
    db = tmp_path / "history.sqlite3"
    async with OmeReplay(clock) as replay:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
        env.update({"OME_API_URL": replay.api_url, "OME_ACCESS_TOKEN": replay.token,
                    "OMECONSOLE_CONFIG": str(tmp_path / "absent.toml")})
        process = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "omeconsole"), "record", "--db", str(db), env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            for polled in range(1, 5):
                await asyncio.wait_for(replay.received(
                    lambda _seen, polled=polled: sum(r.target == STATS_PATH for r in replay.requests) >= polled), 60)
                clock.advance(1.0)
        finally:
            process.terminate()
            out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err
    lines = out.decode().splitlines()
    assert lines[0].startswith(f"recording {ServerId.from_url(replay.api_url).key} into {db}: ")
    assert lines[-1].startswith(f"stopped: {ServerId.from_url(replay.api_url).key} connected; ")
    document = json.loads(history(monkeypatch, capsys, db, "default/app/stream", "--json"))
    summary = document["summary"]
    assert summary["samples"] >= 4
    assert summary["bytes_in"] in [reading["totalBytesIn"] for reading in SERIES[3:6]]


async def test_the_consoles_own_playlist_reads_leave_no_viewers_in_the_history(monkeypatch, capsys,
                                                                               tmp_path) -> None:
    clock, server_clock = replay_clock(), replay_clock()
    db = tmp_path / "history.sqlite3"
    async with OmeReplay(server_clock) as replay, recorded(clock, replay, db, 20, watch_playlist=True):
        assert any(seen.role == "publisher" for seen in replay.requests)  # the console did read the playlist
    document = json.loads(history(monkeypatch, capsys, db, "default/app/stream", "--json"))
    viewers = [point["viewers"] for point in document["points"] if point["samples"]]
    assert viewers and set(viewers) == {0}

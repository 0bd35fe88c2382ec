"""Recording from the real simulator, time moved by hand on both sides; then `omeconsole history` on the store."""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from history_support import START, Rig, recording_rig
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.cli.main import main
from omeconsole.core.history.observations import ServerId
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.recorder import Recorder
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with recording_rig(tmp_path) as running:
        yield running


def _streams(sim: RunningSimulator) -> list[NodePath]:
    return [NodePath(s.vhost, s.app, s.name) for s in sim.world.live_streams()]


async def test_every_listed_node_is_recorded_and_a_restarted_recorder_keeps_the_earlier_samples(rig: Rig) -> None:
    stream = NodePath("default", "app", "stream")
    async with rig.recorder() as (recorder, engine):
        await rig.advance(engine, 8)
        first_run = recorder.status()
    listed = [NodePath("default"), NodePath("default", "app"), NodePath("default", "live"), *_streams(rig.sim)]
    assert first_run.listed == len(listed) and first_run.sampled == len(listed)
    with HistoryReader(rig.db) as reader:
        recorded = {s.path for level in ("vhost", "app", "stream") for s in reader.summaries(level=level)}
        before = reader.summary(rig.server.key, stream)
    assert set(listed) <= recorded
    assert before is not None and before.samples >= 4

    rig.idle(30)
    async with rig.recorder() as (recorder, engine):
        await rig.advance(engine, 6)
        latest = engine.node(stream).latest
    assert latest is not None
    with HistoryReader(rig.db) as reader:
        after = reader.summary(rig.server.key, stream)
        series = reader.series(rig.server.key, stream, START, rig.clock.wall().timestamp())
    assert after is not None and after.first_seen == before.first_seen
    assert after.samples >= before.samples + 3
    samples = [p for p in series.points if not p.gap]
    assert len(samples) == after.samples
    assert any(p.gap and before.last_seen < p.at < before.last_seen + 30 for p in series.points)
    # bytes over the stream's life, across the time nobody recorded, are the server's own counter
    assert (after.bytes_in, after.bytes_out) == (latest.stats.total_bytes_in, latest.stats.total_bytes_out)
    assert series.bytes_total() == (latest.stats.total_bytes_in - (samples[0].total_in or 0),
                                    latest.stats.total_bytes_out - (samples[0].total_out or 0))


def _history(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> str:
    monkeypatch.setenv("OMECONSOLE_HISTORY_DB", str(db))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(db.parent / "no-config.toml"))
    for name in ("OME_API_URL", "OME_ACCESS_TOKEN", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    code = main(["history", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


async def test_history_of_an_ended_stream(rig: Rig, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    news = next(s for s in rig.sim.world.live_streams() if s.name == "news")
    path = NodePath(news.vhost, news.app, news.name)
    async with rig.recorder() as (_, engine):
        await rig.advance(engine, 10)
        last = engine.node(path).latest  # what the server said last, before the stream ended
        rig.sim.world.end_stream(news)
        await rig.advance(engine, 6)
    assert last is not None
    seen = [sample.viewers for sample in engine.node(path).history if sample.viewers is not None]
    truth = {"bytes_in": last.stats.total_bytes_in, "bytes_out": last.stats.total_bytes_out,
             "peak_viewers": max(seen)}  # viewers seen, not the server's maxTotalConnections (every session)
    document = json.loads(_history(monkeypatch, capsys, rig.db, "default/app/news", "--json"))
    summary = document["summary"]
    assert summary["state"] == "ended" and summary["ended_at"] is not None
    assert summary["bytes_out"] == truth["bytes_out"] and summary["bytes_in"] == truth["bytes_in"]
    assert summary["peak_viewers"] == truth["peak_viewers"]
    assert document["source"] == "full resolution" and document["sampled_every"] == pytest.approx(1.0, abs=0.1)
    viewers = [p["viewers"] for p in document["points"] if p["samples"]]
    assert len(viewers) >= 6 and all(isinstance(v, int) for v in viewers)

    text = _history(monkeypatch, capsys, rig.db, "default/app/news")
    assert text.splitlines()[0].startswith(f"default/app/news on {rig.server.key}: ended ")
    assert f"peak {truth['peak_viewers']} viewer" in text.splitlines()[0]

    listing = _history(monkeypatch, capsys, rig.db, "--ended")
    assert [line.split()[1] for line in listing.splitlines()] == ["default/app/news"]

    rows = list(csv.DictReader(io.StringIO(_history(monkeypatch, capsys, rig.db, "default/app/news", "--csv",
                                                    "--step", "5s"))))
    moved = sum(int(r["bytes_out"] or 0) for r in rows)
    assert rows and all(r["time"] for r in rows)
    assert moved == truth["bytes_out"] - json.loads(_history(
        monkeypatch, capsys, rig.db, "default/app/news", "--json"))["points"][0]["total_out"]


async def test_history_names_the_server_by_profile_and_refuses_to_guess(
        rig: Rig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async with rig.recorder() as (_, engine):
        await rig.advance(engine, 6)
    other = HistoryWriter.start(rig.db, HistorySettings())
    async with running_simulator(clock=ManualClock(start_ms=int(START * 1000))) as second, \
            OmeClient(second.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, rig.clock, PollSettings(listing_interval=3), rng=random.Random(3))
        detach = Recorder(engine, rig.clock, ServerId.from_url(second.api_url, "edge"), other).attach()
        await rig.advance(engine, 6)
        detach()
    other.close()
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.origin]\napi_url = "{rig.sim.api_url}"\n', encoding="utf-8")
    config.chmod(0o600)

    monkeypatch.setenv("OMECONSOLE_HISTORY_DB", str(rig.db))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(config))
    monkeypatch.delenv("OME_API_URL", raising=False)
    assert main(["history", "default/app/stream"]) == 2
    assert "recorded on several servers" in capsys.readouterr().err
    for target, server in (("origin:default/app/stream", rig.server.key),
                           ("edge:default/app/stream", ServerId.from_url(second.api_url).key)):
        assert main(["history", target, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["server"] == server
    assert main(["history", "nobody:default/app/stream"]) == 1
    assert "nothing recorded for nobody:default/app/stream" in capsys.readouterr().err

"""The exporter against the replayed OvenMediaEngine 0.19.0: its /metrics text after the command line's sends.

The sends go through `omeconsole cue-out` / `send-events` (their audit log); the exporter reads that log and
polls the replay on the same FakeClock, and its /metrics page is read over HTTP as Prometheus reads it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import httpx
import pytest
from fake_clock import FakeClock
from ome_replay import FIXTURES, OmeReplay
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from replay_support import STREAM, replay_clock, replaying, run_command

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.config import Settings
from omeconsole.exporter.service import Exporter

SERIES = [json.loads(reading["body"])["response"] for reading in
          json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())]
STREAM_LABELS = {"vhost": "default", "app": "app", "stream": "stream"}


@pytest.fixture
def clock() -> FakeClock:
    return replay_clock()


Samples = dict[str, list[tuple[dict[str, str], float]]]


async def metrics(replay: OmeReplay, clock: FakeClock, tmp_path: Path, seconds: int) -> Samples:
    settings = Settings(api_url=replay.api_url, publisher_url=replay.publisher_url, token=SecretStr(replay.token),
                        request_budget=500.0)
    exporter = Exporter(settings, clock, rng=random.Random(1), audit=AuditLog(tmp_path / "audit.jsonl"), environ={})
    async with exporter:
        host, port = await exporter.start_http("127.0.0.1", 0)
        for _ in range(seconds):
            clock.advance(1.0)
            await exporter.step()
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=10) as http:
            text = (await http.get("/metrics")).text
    return {family.name: [(sample.labels, sample.value) for sample in family.samples]
            for family in text_string_to_metric_families(text)}


def of_stream(samples: list[tuple[dict[str, str], float]]) -> list[float]:
    return [value for labels, value in samples if {k: labels.get(k) for k in STREAM_LABELS} == STREAM_LABELS]


async def sends(clock: FakeClock, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An accepted cue-out and the captured partly refused send (207) through the command line."""
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.loads((FIXTURES / "api" / "34_sendEvents_mixed.json").read_text())["request"]["body"])
    assert (await run_command(clock, capsys, "cue-out", STREAM, "--duration", "30")).status == 0
    assert (await run_command(clock, capsys, "send-events", STREAM, "--file", str(mixed))).status == 1


async def test_the_exporter_reports_the_servers_edition_its_readings_and_the_accepted_cue(
        clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        await sends(clock, capsys, tmp_path)
        families = await metrics(replay, clock, tmp_path, seconds=8)
    assert [value for _, value in families["ome_up"]] == [1.0]
    [(info, _)] = families["ome_server_info"]
    assert (info["edition"], info["version"]) == ("oss", "0.19.0")
    [bytes_in] = of_stream(families["ome_bytes_in"])
    assert bytes_in in [reading["totalBytesIn"] for reading in SERIES[1:10]]  # a reading of the series, played on
    events = {(labels["format"], labels["outcome"]): value for labels, value in families["ome_events_sent"]}
    assert events[("cue", "accepted")] == 1.0


async def test_a_partly_refused_send_is_counted_as_rejected_as_the_audit_log_says(
        clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        await sends(clock, capsys, tmp_path)
        families = await metrics(replay, clock, tmp_path, seconds=2)
    events = {(labels["format"], labels["outcome"]): value for labels, value in families["ome_events_sent"]}
    # one accepted cue-out, and the 207 (sets id3v2 + foo, one refused) counted once, as the audit log's "rejected"
    assert sum(value for (_, outcome), value in events.items() if outcome == "accepted") == 1.0
    assert sum(value for (_, outcome), value in events.items() if outcome == "rejected") == 1.0

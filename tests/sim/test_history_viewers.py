"""`omeconsole history` prints viewers over time, per playback protocol where the store kept the readings
whole: recorded from the real simulator (both clocks moved by hand), compared with what the server said."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fleet_support import outbound, server_record
from history_support import Rig, recording_rig

from omeconsole.cli.main import main
from omeconsole.model.audience import PLAYBACK

NEWS = "default/app/news"


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with recording_rig(tmp_path) as running:
        yield running


def history(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path, *args: str,
            config: str = "") -> str:
    monkeypatch.setenv("OMECONSOLE_HISTORY_DB", str(db))
    (db.parent / "config.toml").write_text(config)
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(db.parent / "config.toml"))
    for name in ("OME_API_URL", "OME_ACCESS_TOKEN", "OME_PUBLISHER_URL"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    code = main(["history", NEWS, *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


async def test_history_prints_viewers_per_protocol_as_the_server_counted_them(
        rig: Rig, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    truth: dict[str, dict[str, int]] = {}
    async with rig.recorder() as (_, engine):
        await rig.advance(engine, 2)
        for _ in range(8):
            counts = outbound(await server_record(rig.sim, NEWS))
            at = rig.clock.wall().astimezone(UTC).isoformat(timespec="milliseconds")
            truth[at] = {protocol: counts.get(protocol, 0) for protocol in PLAYBACK}
            await rig.advance(engine, 1)
    assert len({tuple(counts.values()) for counts in truth.values()}) > 1, "the audience moved meanwhile"

    document = json.loads(history(monkeypatch, capsys, rig.db, "--json"))
    assert document["viewers_by_protocol_kept"] is True
    points = {point["time"]: point for point in document["points"] if point["samples"]}
    assert set(truth) <= set(points)
    for at, counts in truth.items():
        assert points[at]["viewers_by_protocol"] == counts, at
        assert points[at]["viewers"] == sum(counts.values()), "the total is the playback protocols' sum"

    text = history(monkeypatch, capsys, rig.db)
    assert "viewers per protocol" in text.splitlines()[2]
    for at, counts in truth.items():
        local = datetime.fromisoformat(at).astimezone().strftime("%Y-%m-%d %H:%M:%S")
        line = next(line for line in text.splitlines() if line.startswith(local))
        words = " · ".join(f"{protocol} {count:,}" for protocol, count in counts.items() if count)
        assert line.split()[2] == str(sum(counts.values())) and line.endswith(f"  {words}"), line


async def test_history_from_a_tier_says_the_per_protocol_counts_were_not_kept(
        rig: Rig, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async with rig.recorder() as (_, engine):
        await rig.advance(engine, 25)
    start = datetime.fromtimestamp(rig.clock.wall().timestamp() - 30, UTC).isoformat()
    # Samples kept whole for 5 min only: what was recorded 15 min ago is read from the 10 s tier.
    config = '[history]\nfull_resolution = "5m"\n'
    document = json.loads(history(monkeypatch, capsys, rig.db, "--json", "--from", start, config=config))
    assert document["source"] == "10 s buckets" and document["viewers_by_protocol_kept"] is False
    assert all(p["viewers_by_protocol"] is None for p in document["points"])
    assert any(isinstance(p["viewers"], int) for p in document["points"]), "the total is kept"
    text = history(monkeypatch, capsys, rig.db, "--from", start, config=config)
    assert "viewers per protocol: not kept at this resolution (only the total)" in text

"""Sending through AdOps against the real simulator: exact bodies, audit lines, once and only once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from adops_support import SharedClock
from conftest import TEST_TOKEN, running_simulator
from loopback_server import LoopbackServer, Request, Stall

from omeconsole.api.client import OmeClient
from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.ad_break import OUTCOME_UNKNOWN, BreakState
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import READ_ONLY_MESSAGE, AdOps
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

STREAM = NodePath("default", "app", "stream")


@pytest.fixture
async def sim() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        yield simulator, SharedClock(manual)


def _ops(simulator: RunningSimulator, clock: SharedClock, tmp_path: Path, **kwargs: object) -> AdOps:
    client = OmeClient(simulator.api_url, TEST_TOKEN, transport=kwargs.pop("transport", None))  # type: ignore[arg-type]
    audit = AuditLog(tmp_path / "audit.jsonl", secrets=[TEST_TOKEN])
    return AdOps(client, audit, clock, publisher_url=simulator.publisher_url, follow_playlists=False,
                 **kwargs)  # type: ignore[arg-type]


def _accepted_bodies(simulator: RunningSimulator) -> list[object]:
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None
    return [event.body for event in stream.events.events]


def _audit_lines(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_cue_out_cue_in_and_id3_bodies_reach_the_server_and_the_audit_log(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    ops = _ops(simulator, clock, tmp_path)
    try:
        out = await ops.cue_out(STREAM, 30_000)
        assert out.status == "sent" and out.http_status == 200
        clock.advance(10)
        cue_in = await ops.cue_in(STREAM)
        frames = [Id3Frame(frameType="TXXX", info="adId", data="spot-1"), Id3Frame(frameType="TIT2", data="Song")]
        id3 = await ops.id3(STREAM, frames, "video")
        assert cue_in.status == "sent" and id3.status == "sent"
    finally:
        await ops.aclose()
    expected = [
        {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]},
        {"eventFormat": "cue", "events": [{"cueType": "in"}]},
        {"eventFormat": "id3v2", "eventType": "video", "events": [
            {"frameType": "TXXX", "info": "adId", "data": "spot-1"}, {"frameType": "TIT2", "data": "Song"}]},
    ]
    assert _accepted_bodies(simulator) == expected
    sends = [line for line in _audit_lines(tmp_path) if line["type"] == "send"]
    assert [s["action"] for s in sends] == ["cue-out", "cue-in", "id3"]
    assert [s["body"] for s in sends] == [expected[0], expected[1], [expected[2]]]
    assert all(s["status"] == 200 and s["message"] == "OK" for s in sends)
    assert all((s["vhost"], s["app"], s["stream"], s["server"]) == ("default", "app", "stream", simulator.api_url)
               for s in sends)
    assert TEST_TOKEN not in (tmp_path / "audit.jsonl").read_text()


async def test_read_only_sends_nothing_and_says_so(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    ops = _ops(simulator, clock, tmp_path, read_only=True)
    try:
        outcomes = [await ops.cue_out(STREAM, 30_000), await ops.cue_in(STREAM),
                    await ops.id3(STREAM, [Id3Frame(frameType="TIT2", data="x")])]
    finally:
        await ops.aclose()
    assert [o.status for o in outcomes] == ["refused"] * 3
    assert all(o.message == READ_ONLY_MESSAGE for o in outcomes)
    assert _accepted_bodies(simulator) == []
    assert _audit_lines(tmp_path) == []


async def test_double_press_sends_once(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    ops = _ops(simulator, clock, tmp_path)
    try:
        first, second = await asyncio.gather(ops.cue_out(STREAM, 30_000), ops.cue_out(STREAM, 30_000))
    finally:
        await ops.aclose()
    assert first.status == "sent"
    assert second.status == "refused" and "still being sent" in second.message
    assert len(_accepted_bodies(simulator)) == 1
    assert len(_audit_lines(tmp_path)) == 1


async def _never_answer(request: Request) -> Stall:
    return Stall()


async def test_timed_out_send_is_outcome_unknown_and_never_repeated(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    stalling = LoopbackServer(_never_answer).start()  # takes the request and never answers, like a server under load
    client = OmeClient(stalling.url, TEST_TOKEN, timeout=0.05)
    ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock, publisher_url=simulator.publisher_url,
                follow_playlists=False)
    try:
        outcome = await ops.cue_out(STREAM, 30_000)
        assert outcome.status == "unknown" and OUTCOME_UNKNOWN in outcome.message
        assert ops.stream(STREAM).ad_break.view().state is BreakState.UNKNOWN
        # Time passes; nothing is sent again by itself.
        for _ in range(5):
            clock.advance(1)
            await asyncio.sleep(0)
        assert len(stalling.requests) == 1
    finally:
        await ops.aclose()
        await client.aclose()
        await stalling.aclose()
    [line] = _audit_lines(tmp_path)
    assert line["status"] == "unknown"
    assert line["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}


async def test_refused_event_is_audited_with_the_server_message(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    ops = _ops(simulator, clock, tmp_path)
    try:
        outcome = await ops.cue_out(NodePath("default", "app", "no-such-stream"), 30_000)
    finally:
        await ops.aclose()
    assert outcome.status == "failed" and outcome.http_status == 404
    [line] = _audit_lines(tmp_path)
    assert line["status"] == 404 and "no-such-stream" in str(line["message"])


async def test_without_a_readable_playlist_the_break_follows_the_api_answer(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    client = OmeClient(simulator.api_url, TEST_TOKEN)
    # The publisher URL points at the management API, which wants a token for everything: 401.
    ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock, publisher_url=simulator.api_url,
                follow_playlists=False)
    try:
        entry = ops.stream(STREAM)
        assert not await entry.watcher.poll_once()
        assert entry.watcher.unavailable == "/app/stream/llhls.m3u8 answered HTTP 401"
        outcome = await ops.cue_out(STREAM, 20_000)
        assert outcome.status == "sent"
        view = entry.ad_break.view()
        assert view.state is BreakState.ON_AIR and not view.from_playlist
        assert "API answer only" in view.message
        clock.advance(20)
        assert entry.ad_break.view().state is BreakState.ENDED
    finally:
        await ops.aclose()
        await client.aclose()


async def test_an_unwritable_audit_log_is_said_and_does_not_block_the_stream(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the log's directory should be")
    client = OmeClient(simulator.api_url, TEST_TOKEN)
    ops = AdOps(client, AuditLog(blocker / "audit.jsonl"), clock, publisher_url=simulator.publisher_url,
                follow_playlists=False)
    try:
        outcome = await ops.cue_out(STREAM, 30_000)
        assert outcome.status == "sent" and "audit log" in outcome.message and "NOT written" in outcome.message
        assert ops.stream(STREAM).ad_break.in_flight is None
        again = await ops.cue_in(STREAM)
        assert again.status == "sent"
    finally:
        await ops.aclose()
        await client.aclose()
    assert len(_accepted_bodies(simulator)) == 2

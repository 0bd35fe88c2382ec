"""Sending through the stream controller against the real simulator: exact bytes, write-ahead audit
lines, read-only and warnings decided by the plan, once and only once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from adops_support import SharedClock, make_ops
from loopback_server import LoopbackServer, Request, Stall
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.audit import OUTCOME_UNKNOWN, AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.plan import READ_ONLY_MESSAGE, WarningCode
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

STREAM = NodePath("default", "app", "stream")
UNCHECKED: frozenset[WarningCode] = frozenset({"check-not-run"})
"""These tests send without reading the playlist first: the rules' check did not run, and they say so."""


@pytest.fixture
async def sim() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        yield simulator, SharedClock(manual)


@pytest.fixture
async def client(sim) -> AsyncIterator[OmeClient]:
    async with OmeClient(sim[0].api_url, TEST_TOKEN) as api:
        yield api


def _accepted_bodies(simulator: RunningSimulator, stream: str = "stream") -> list[object]:
    found = simulator.world.find_stream("default", "app", stream)
    assert found is not None
    return [event.body for event in found.events.events]


def _audit_lines(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_cue_out_cue_in_and_id3_bytes_reach_the_server_and_the_audit_log_ahead(sim, client, tmp_path) -> None:
    simulator, clock = sim
    ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
    controller = ops.stream(STREAM)
    try:
        out_plan = controller.plan_cue_out(30)
        assert out_plan.content == b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'
        assert out_plan.describe().startswith(
            f"POST /v1/vhosts/default/apps/app/streams/stream:sendEvent on {ops.context.host}\n")
        # The playlist is not read: whether the server would drop it could not be checked.
        assert [w.code for w in out_plan.to_confirm] == ["check-not-run"]
        out = await controller.send(out_plan, confirmed={"check-not-run"})
        assert out.status == "accepted" and out.http_status == 200
        clock.advance(5)
        in_plan = controller.plan_cue_in()  # on air from the server's rule (estimated): a cue-in has a break to end
        assert not in_plan.to_confirm and controller.view().splice_source == "estimated"
        cue_in = await controller.send(in_plan, confirmed=in_plan.warning_codes)
        frames = [Id3Frame(frameType="txxx", info="adId", data="spot-1"), Id3Frame(frameType="TIT2", data="Song")]
        id3 = await controller.send(controller.plan_id3(frames, "video"))
        assert cue_in.status == "accepted" and id3.status == "accepted"
    finally:
        await ops.aclose()
    expected = [
        {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]},
        {"eventFormat": "cue", "events": [{"cueType": "in"}]},
        {"eventFormat": "id3v2", "eventType": "video", "events": [
            {"frameType": "TXXX", "info": "adId", "data": "spot-1"}, {"frameType": "TIT2", "data": "Song"}]},
    ]
    assert _accepted_bodies(simulator) == expected
    # The cue-out's confirmation came due meanwhile (nobody read the playlist): it is on record too.
    lines = [line for line in _audit_lines(tmp_path) if line["type"] != "confirmation"]
    assert [line["type"] for line in lines] == ["intent", "outcome"] * 3
    intents = lines[::2]
    assert [i["action"] for i in intents] == ["cue-out", "cue-in", "id3"]
    assert [i["body"] for i in intents] == [expected[0], expected[1], [expected[2]]]
    host = simulator.api_url.removeprefix("http://")
    assert all((i["vhost"], i["app"], i["stream"], i["server"], i["profile"]) == ("default", "app", "stream", host,
                                                                              "test") for i in intents)
    assert all(o["status"] == 200 and o["outcome"] == "accepted" for o in lines[1::2])
    assert TEST_TOKEN not in (tmp_path / "audit.jsonl").read_text()


async def test_read_only_is_decided_by_the_plan_and_nothing_is_sent_or_logged(sim, client, tmp_path) -> None:
    simulator, clock = sim
    ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl", read_only=True)
    controller = ops.stream(STREAM)
    try:
        plans = [controller.plan_cue_out(30), controller.plan_cue_in(),
                 controller.plan_id3([Id3Frame(frameType="TIT2", data="x")])]
        assert all(p.refusal is not None and p.refusal.message == READ_ONLY_MESSAGE for p in plans)
        outcomes = [await controller.send(p, confirmed=p.warning_codes) for p in plans]
    finally:
        await ops.aclose()
    assert [(o.status, o.blocked_by) for o in outcomes] == [("blocked", "read-only")] * 3
    assert _accepted_bodies(simulator) == [] and _audit_lines(tmp_path) == []


async def test_a_double_press_sends_once_and_a_plan_is_never_sent_twice(sim, client, tmp_path) -> None:
    simulator, clock = sim
    ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
    controller = ops.stream(STREAM)
    try:
        first, second = await asyncio.gather(controller.send(controller.plan_cue_out(30), confirmed=UNCHECKED),
                                             controller.send(controller.plan_cue_out(30), confirmed=UNCHECKED))
        again = await controller.send(first.plan)
    finally:
        await ops.aclose()
    assert first.status == "accepted"
    assert (second.status, second.blocked_by) == ("blocked", "in-flight") and "still being sent" in second.message
    assert (again.status, again.blocked_by) == ("blocked", "already-sent")
    assert len(_accepted_bodies(simulator)) == 1
    assert [line["type"] for line in _audit_lines(tmp_path)] == ["intent", "outcome"]


async def test_warnings_block_until_confirmed_and_bad_frames_never_leave(sim, client, tmp_path) -> None:
    simulator, clock = sim
    ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
    controller = ops.stream(STREAM)
    try:
        clock.advance(20)  # segments exist
        assert await controller.follower.read_once()  # the playlist says: no break on air
        cue_in = controller.plan_cue_in()
        assert [w.code for w in cue_in.to_confirm] == ["no-break-on-air"]
        blocked = await controller.send(cue_in)
        assert (blocked.status, blocked.blocked_by) == ("blocked", "needs-confirmation")
        empty = controller.plan_id3([Id3Frame(frameType="TXXX", info="k", data="")])
        assert [w.code for w in empty.to_confirm] == ["empty-frame"]
        bad = controller.plan_id3([Id3Frame(frameType="APIC", data="x"), Id3Frame(frameType="TÏT2", data="x")])
        assert bad.refusal is not None and bad.refusal.code == "bad-frame" and "APIC" in bad.refusal.message
        assert (await controller.send(bad)).blocked_by == "invalid"
        short = controller.plan_cue_out(9)  # not above 1.5 x the 6 s segments: servers ignore it
        assert [w.code for w in short.to_confirm] == ["short-break"]
        assert _accepted_bodies(simulator) == [] and _audit_lines(tmp_path) == []
        sent = await controller.send(empty, confirmed={"empty-frame"})
        assert sent.status == "accepted"
    finally:
        await ops.aclose()
    assert _accepted_bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "event",
                                            "events": [{"frameType": "TXXX", "info": "k", "data": ""}]}]


async def _never_answer(request: Request) -> Stall:
    return Stall()


async def test_a_timed_out_send_is_outcome_unknown_and_never_repeated(sim, tmp_path) -> None:
    simulator, clock = sim
    stalling = LoopbackServer(_never_answer).start()  # takes the request and never answers, like a server under load
    try:
        async with OmeClient(stalling.url, TEST_TOKEN, timeout=0.05) as client:
            ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
            controller = ops.stream(STREAM)
            try:
                outcome = await controller.send(controller.plan_cue_out(30), confirmed=UNCHECKED)
                assert outcome.status == "unknown" and OUTCOME_UNKNOWN in outcome.message
                assert outcome.confirmation is not None  # the playlist may still tell
                assert controller.view().state is BreakState.UNKNOWN
                for _ in range(5):  # time passes; nothing is sent again by itself
                    clock.advance(1)
                    await asyncio.sleep(0)
                assert len(stalling.requests) == 1
                assert stalling.requests[0].body == outcome.plan.content
            finally:
                await ops.aclose()
    finally:
        await stalling.aclose()
    intent, result = _audit_lines(tmp_path)
    assert intent["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    assert (result["outcome"], result["status"]) == ("unknown", "unknown")


async def test_a_send_cancelled_in_flight_leaves_its_intent_and_an_unknown_outcome(sim, tmp_path) -> None:
    simulator, clock = sim
    stalling = LoopbackServer(_never_answer).start()
    try:
        async with OmeClient(stalling.url, TEST_TOKEN, timeout=60) as client:
            ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
            controller = ops.stream(STREAM)
            task = asyncio.create_task(controller.send(controller.plan_cue_in(), confirmed=UNCHECKED))
            while not stalling.requests:  # until the server holds the request
                await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await ops.aclose()
    finally:
        await stalling.aclose()
    intent, result = _audit_lines(tmp_path)
    assert intent["type"] == "intent" and result["outcome"] == "unknown"
    assert result["message"] == "the console stopped waiting for the answer"


async def test_a_refused_event_is_audited_with_the_server_message(sim, client, tmp_path) -> None:
    simulator, clock = sim
    ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
    try:
        controller = ops.stream(NodePath("default", "app", "no-such-stream"))
        outcome = await controller.send(controller.plan_cue_out(30), confirmed=UNCHECKED)
    finally:
        await ops.aclose()
    assert outcome.status == "rejected" and outcome.http_status == 404 and outcome.confirmation is None
    assert controller.view().state is BreakState.FAILED
    _intent, result = _audit_lines(tmp_path)
    assert result["status"] == 404 and "no-such-stream" in str(result["message"])


async def test_without_a_readable_playlist_the_check_is_confirmed_and_the_splice_estimated(
        sim, client, tmp_path) -> None:
    simulator, clock = sim
    # The publisher URL points at the management API, which wants a token for everything: 401.
    ops = make_ops(client, simulator.api_url, clock, tmp_path / "audit.jsonl")
    controller = ops.stream(STREAM)
    try:
        assert not await controller.follower.read_once()
        assert controller.playlist_problem == "/app/stream/llhls.m3u8 answered HTTP 401"
        plan = controller.plan_cue_out(20)
        [check] = plan.to_confirm
        assert check.code == "check-not-run" and "answered HTTP 401" in check.message
        assert (await controller.send(plan)).blocked_by == "needs-confirmation"
        outcome = await controller.send(controller.plan_cue_out(20), confirmed=UNCHECKED)
        assert outcome.status == "accepted"
        view = controller.view()
        assert view.state is BreakState.SCHEDULED and view.splice_source == "estimated"
        clock.advance(1)  # the server's rule: the first keyframe one keyframe interval after the request
        view = controller.view()
        assert view.state is BreakState.ON_AIR and not view.from_playlist and "splice estimated" in view.message
        clock.advance(20)
        assert controller.view().state is BreakState.ENDED
    finally:
        await ops.aclose()


async def test_an_unwritable_audit_log_sends_nothing_and_says_so(sim, client, tmp_path) -> None:
    simulator, clock = sim
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the log's directory should be")
    ops = AdOps(client, AuditLog(blocker / "audit.jsonl"), clock,
                ServerContext(client.api_url, None, read_only=False), publisher_url=simulator.publisher_url)
    controller = ops.stream(STREAM)
    try:
        outcome = await controller.send(controller.plan_cue_out(30), confirmed=UNCHECKED)
        assert (outcome.status, outcome.blocked_by) == ("blocked", "audit-unwritable")
        assert "NOT sent" in outcome.message and str(blocker / "audit.jsonl") in outcome.message
        view = controller.view()
        assert view.in_flight is None and view.state is BreakState.IDLE  # nothing happened
    finally:
        await ops.aclose()
    assert _accepted_bodies(simulator) == []

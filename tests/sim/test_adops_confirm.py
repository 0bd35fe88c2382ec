"""Confirmation in what players read: the simulator's LL-HLS playlist and the emsg in its parts, through
the stream controller (plan, send, then the outcome's confirmation) on the simulator's clock."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import m3u8
import pytest
from adops_support import SharedClock, make_ops
from mutagen.id3 import ID3
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.api.hls import MediaPlaylist
from omeconsole.api.publisher import PublisherReader
from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.scenario import StreamSpec

STREAM = NodePath("default", "app", "stream")
ID3_SCHEME = b"https://aomedia.org/emsg/ID3\x00"


@pytest.fixture
async def sim() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        manual.advance(20)  # a few segments exist before the operator acts
        yield simulator, SharedClock(manual)


@pytest.fixture
async def ops(sim, tmp_path: Path) -> AsyncIterator[AdOps]:
    simulator, clock = sim
    client = OmeClient(simulator.api_url, TEST_TOKEN)
    ad_ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl")
    yield ad_ops
    await ad_ops.aclose()
    await client.aclose()


async def _step(controller: StreamController, clock: SharedClock, seconds: float) -> None:
    """Let `seconds` pass in part-sized steps, reading the playlist after each (as a player would)."""
    for _ in range(round(seconds / 0.5)):
        clock.advance(0.5)
        assert await controller.follower.read_once(), controller.playlist_problem


async def _chunklist(url: str, http: httpx.AsyncClient) -> str:
    variants = m3u8.loads((await http.get(url)).text, uri=url)
    return variants.playlists[0].absolute_uri


async def test_whole_break_through_the_panel_states_with_playlist_confirmation(sim, ops, tmp_path) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    assert await controller.follower.read_once()  # the baseline read before the send
    plan = controller.plan_cue_out(15)
    assert plan.warnings == ()
    assert plan.body == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 15000}]}
    outcome = await controller.send(plan)
    assert outcome.status == "accepted" and outcome.http_status == 200
    assert controller.view().state is BreakState.SCHEDULED
    await _step(controller, clock, 3)
    assert outcome.confirmation is not None and outcome.confirmation.done()
    sighting = outcome.confirmation.result()
    assert sighting.seen and sighting.seen_after_s is not None and 0 < sighting.seen_after_s <= 3
    assert sighting.line == "#EXT-X-CUE-OUT:DURATION=15.000" or (sighting.line or "").startswith("#EXT-X-DATERANGE")
    async with httpx.AsyncClient() as http:  # the playlist itself, read apart from the console, carries the break
        text = (await http.get(await _chunklist(controller.playlist_url, http))).text
    assert "#EXT-X-CUE-OUT:DURATION=15.000" in text
    view = controller.view()
    assert view.state is BreakState.ON_AIR and view.from_playlist
    assert view.splice_wall is not None and view.remaining_s is not None and 12 <= view.remaining_s <= 15
    await _step(controller, clock, 15)
    assert controller.view().state is BreakState.ENDED
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["intent", "outcome", "confirmation"]
    assert lines[0]["id"] == lines[1]["id"] == lines[2]["send_id"] == plan.send_id
    assert lines[2]["seen_after_s"] == sighting.seen_after_s


async def test_cue_in_ends_the_break_when_the_playlist_shows_it(sim, ops) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    assert await controller.follower.read_once()
    assert [w.code for w in controller.plan_cue_in().warnings] == ["no-break-on-air"]
    await controller.send(controller.plan_cue_out(60))
    assert [w.code for w in controller.plan_cue_in().warnings] == ["before-splice"]
    await _step(controller, clock, 12)
    assert controller.view().state is BreakState.ON_AIR
    plan = controller.plan_cue_in()
    assert plan.warnings == ()
    cue_in = await controller.send(plan)
    await _step(controller, clock, 3)
    assert cue_in.confirmation is not None and cue_in.confirmation.done() and cue_in.confirmation.result().seen
    assert controller.view().state is BreakState.ENDED
    assert controller.playlist is not None and "#EXT-X-CUE-IN" in controller.playlist.lines


async def test_id3_frames_come_back_out_of_the_media_byte_for_byte(sim, ops) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    assert await controller.follower.read_once()
    frames = [Id3Frame(frameType="TXXX", info="adId", data="spot-42 ünïcode"),
              Id3Frame(frameType="TIT2", data="Now playing: Song"),
              Id3Frame(frameType="PRIV", info="com.example.owner", data="opaque-payload")]
    outcome = await controller.send(controller.plan_id3(frames, "video"))
    await _step(controller, clock, 2)
    assert outcome.confirmation is not None and outcome.confirmation.done() and outcome.confirmation.result().seen
    assert controller.last_id3 is not None and {(f.frame_type, f.info, f.data) for f in controller.last_id3} == {
        ("TXXX", "adId", "spot-42 ünïcode"), ("TIT2", None, "Now playing: Song"),
        ("PRIV", "com.example.owner", "opaque-payload")}
    # Independently: find the part with the emsg, cut the message out by hand, parse it with mutagen.
    async with httpx.AsyncClient() as http:
        url = await _chunklist(controller.playlist_url, http)
        playlist = m3u8.loads((await http.get(url)).text, uri=url)
        parts = [(await http.get(part.absolute_uri)).content for segment in playlist.segments
                 for part in segment.parts]
    part = next(p for p in parts if ID3_SCHEME in p)
    start = part.index(ID3_SCHEME) + len(ID3_SCHEME)
    message = part[part.index(b"\x00", start) + 1 :]
    tag = ID3(io.BytesIO(message[: message.index(b"moof") - 4]))
    assert tag.getall("TXXX")[0].desc == "adId" and tag.getall("TXXX")[0].text == ["spot-42 ünïcode"]
    assert tag.getall("TIT2")[0].text == ["Now playing: Song"]
    assert tag.getall("PRIV")[0].owner == "com.example.owner" and tag.getall("PRIV")[0].data == b"opaque-payload"


async def test_audio_only_id3_is_found_in_the_audio_rendition(sim, ops) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    assert await controller.follower.read_once()
    outcome = await controller.send(controller.plan_id3([Id3Frame(frameType="TIT2", data="audio only")], "audio"))
    await _step(controller, clock, 2)
    assert outcome.confirmation is not None and outcome.confirmation.done()
    assert outcome.confirmation.result().seen, outcome.confirmation.result().detail
    assert controller.last_id3 is not None and [f.data for f in controller.last_id3] == ["audio only"]


async def test_a_cue_never_shown_is_not_seen_at_its_deadline_on_the_clock(sim, tmp_path) -> None:
    simulator, clock = sim
    async with OmeClient(simulator.api_url, TEST_TOKEN) as client:
        ops = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl", confirm_timeout_s=4)
        try:
            controller = ops.stream(STREAM)
            assert await controller.follower.read_once()
            plan = controller.plan_cue_in()  # no break on air: the server answers 200 and writes nothing
            outcome = await controller.send(plan, confirmed=plan.warning_codes)
            assert outcome.status == "accepted" and outcome.confirmation is not None
            await _step(controller, clock, 3.5)
            clock.advance(0.49)  # the verdict waits for the deadline itself, not for a read or a tick
            await asyncio.sleep(0)
            assert not outcome.confirmation.done()
            clock.advance(0.01)
            sighting = await asyncio.wait_for(outcome.confirmation, 10)
            assert not sighting.seen and sighting.detail == "cue-in in the playlist not seen within 4 s"
        finally:
            await ops.aclose()
    confirmation = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()][-1]
    assert confirmation["type"] == "confirmation" and confirmation["seen_after_s"] is None


async def test_an_unwatched_send_is_judged_at_its_deadline_and_says_the_playlist_was_not_read(sim, ops) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    outcome = await controller.send(controller.plan_cue_out(30), confirmed={"check-not-run"})
    assert outcome.confirmation is not None and not controller.watched
    clock.advance(10)
    sighting = await asyncio.wait_for(outcome.confirmation, 10)
    assert sighting.detail == "cue-out in the playlist not seen within 10 s (the playlist was not being read)"


async def test_unreadable_playlist_is_said_plainly(sim, ops) -> None:
    controller = ops.stream(NodePath("default", "app", "no-such-stream"))
    assert not await controller.follower.read_once()
    assert controller.playlist_problem is not None and "404" in controller.playlist_problem


async def test_a_lease_reads_with_blocking_reload_and_confirms_then_reading_stops(sim, ops) -> None:
    _simulator, clock = sim
    controller = ops.stream(STREAM)
    with controller.watch():
        assert controller.watched
        outcome = await controller.send(controller.plan_cue_out(30), confirmed={"check-not-run"})
        assert outcome.confirmation is not None
        while not outcome.confirmation.done():  # each blocked reload answers when the next part exists
            clock.advance(0.5)
            await asyncio.wait([asyncio.ensure_future(asyncio.shield(outcome.confirmation))], timeout=0.05)
        assert outcome.confirmation.result().seen
        assert controller.playlist is not None and controller.playlist.can_block_reload
    assert not controller.watched
    clock.advance(30)  # the publisher still holds the last blocked reload until its 503 deadline


async def test_the_follower_recovers_when_a_stream_ends_and_starts_again(sim, ops) -> None:
    simulator, clock = sim
    controller = ops.stream(NodePath("default", "app", "news"))
    assert await controller.follower.read_once()
    stream = simulator.world.find_stream("default", "app", "news")
    assert stream is not None
    simulator.world.end_stream(stream)
    clock.advance(1)
    assert not await controller.follower.read_once(block=True)
    assert controller.playlist_problem is not None and "404" in controller.playlist_problem
    simulator.world.start_stream("default", "app", StreamSpec("news"))
    clock.advance(13)
    assert await controller.follower.read_once(block=True), controller.playlist_problem
    assert controller.playlist_problem is None and controller.playlist is not None


class BrokenOnceReader(PublisherReader):
    """A reader whose first read fails with a bug of its own (not a PlaylistUnreadable)."""

    failed = False

    async def chunklist(self, block: dict[str, str] | None = None) -> tuple[MediaPlaylist, str]:
        if not self.failed:
            self.failed = True
            raise RuntimeError("a bug in the reader")
        return await super().chunklist(block)


async def test_an_unexpected_error_in_a_read_is_said_and_reading_goes_on(sim, tmp_path) -> None:
    simulator, clock = sim
    changes: list[NodePath] = []
    async with OmeClient(simulator.api_url, TEST_TOKEN) as client:
        ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock,
                    ServerContext(client.api_url, None, read_only=False), publisher_url=simulator.publisher_url,
                    reader=lambda path: BrokenOnceReader(simulator.publisher_url, path.app or "", path.stream or ""))
        ops.add_listener(changes.append)
        controller = ops.stream(STREAM)
        try:
            with controller.watch():
                await asyncio.wait_for(controller.follower.first_read.wait(), 10)
                assert controller.playlist_problem == "unexpected error: RuntimeError: a bug in the reader"
                while controller.playlist is None:  # the retry waits 2 s on the console's clock
                    clock.advance(0.5)
                    await asyncio.sleep(0.01)
                assert controller.playlist_problem is None and STREAM in changes
        finally:
            await ops.aclose()
        clock.advance(30)  # the publisher still holds the last blocked reload until its 503 deadline

"""Confirmation in what players read: the simulator's LL-HLS playlist and the emsg in its parts."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import m3u8
import pytest
from adops_support import SharedClock
from conftest import TEST_TOKEN, running_simulator
from mutagen.id3 import ID3

from omeconsole.api.client import OmeClient
from omeconsole.api.publisher import PublisherReader
from omeconsole.api.wire import Id3Frame
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.watcher import Id3Found, PlaylistUnavailable, PlaylistWatcher, Sighting
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
    ad_ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock, publisher_url=simulator.publisher_url,
                   confirm_timeout_s=10, follow_playlists=False)
    yield ad_ops
    await ad_ops.aclose()
    await client.aclose()


async def _step(ops: AdOps, clock: SharedClock, seconds: float) -> None:
    """Let `seconds` pass in part-sized steps, reading the playlist after each (as a player would)."""
    watcher = ops.stream(STREAM).watcher
    for _ in range(round(seconds / 0.5)):
        clock.advance(0.5)
        assert await watcher.poll_once()


async def test_whole_break_through_the_panel_states_with_playlist_confirmation(sim, ops, tmp_path) -> None:
    _simulator, clock = sim
    entry = ops.stream(STREAM)
    assert await entry.watcher.poll_once()  # the baseline read before the send
    outcome = await ops.cue_out(STREAM, 15_000)
    assert outcome.status == "sent"
    assert entry.ad_break.view().state is BreakState.SCHEDULED
    await _step(ops, clock, 3)
    assert outcome.sighting is not None and outcome.sighting.done()
    sighting = outcome.sighting.result()
    assert sighting.seen and sighting.seen_after_s is not None and 0 < sighting.seen_after_s <= 3
    assert sighting.line == "#EXT-X-CUE-OUT:DURATION=15.000" or (sighting.line or "").startswith("#EXT-X-DATERANGE")
    # The playlist itself (read apart from the watcher) carries the break.
    async with httpx.AsyncClient() as http:
        variants = m3u8.loads((await http.get(entry.watcher.url)).text, uri=entry.watcher.url)
        chunklist = variants.playlists[0].absolute_uri
        text = (await http.get(chunklist)).text
    assert "#EXT-X-CUE-OUT:DURATION=15.000" in text
    view = entry.ad_break.view()
    assert view.state is BreakState.ON_AIR and view.from_playlist
    assert view.splice_wall is not None and view.remaining_s is not None and 12 <= view.remaining_s <= 15
    await _step(ops, clock, 15)
    assert entry.ad_break.view().state is BreakState.ENDED
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["send", "confirmation"]
    assert lines[1]["send_id"] == lines[0]["id"] and lines[1]["seen_after_s"] == sighting.seen_after_s


async def test_cue_in_ends_the_break_when_the_playlist_shows_it(sim, ops) -> None:
    _simulator, clock = sim
    entry = ops.stream(STREAM)
    assert await entry.watcher.poll_once()
    await ops.cue_out(STREAM, 60_000)
    await _step(ops, clock, 12)
    assert entry.ad_break.view().state is BreakState.ON_AIR
    cue_in = await ops.cue_in(STREAM)
    await _step(ops, clock, 3)
    assert cue_in.sighting is not None and cue_in.sighting.done() and cue_in.sighting.result().seen
    assert entry.ad_break.view().state is BreakState.ENDED
    assert "#EXT-X-CUE-IN" in entry.watcher.latest.lines  # type: ignore[union-attr]


async def test_id3_frames_come_back_out_of_the_media_byte_for_byte(sim, ops) -> None:
    _simulator, clock = sim
    entry = ops.stream(STREAM)
    found: list[Id3Found] = []
    entry.watcher.add_listener(lambda event: found.append(event) if isinstance(event, Id3Found) else None)
    assert await entry.watcher.poll_once()
    frames = [Id3Frame(frameType="TXXX", info="adId", data="spot-42 ünïcode"),
              Id3Frame(frameType="TIT2", data="Now playing: Song"),
              Id3Frame(frameType="PRIV", info="com.example.owner", data="opaque-payload")]
    outcome = await ops.id3(STREAM, frames, "video")
    await _step(ops, clock, 2)
    assert outcome.sighting is not None and outcome.sighting.done() and outcome.sighting.result().seen
    [event] = found
    # Independently: fetch that part, cut the emsg's message out by hand, parse it with mutagen.
    async with httpx.AsyncClient() as http:
        variants = m3u8.loads((await http.get(entry.watcher.url)).text, uri=entry.watcher.url)
        chunklist = variants.playlists[0].absolute_uri
        part = (await http.get(str(httpx.URL(chunklist).join(event.part_uri)))).content
    start = part.index(ID3_SCHEME) + len(ID3_SCHEME)
    message = part[part.index(b"\x00", start) + 1 :]
    tag = ID3(io.BytesIO(message[: message.index(b"moof") - 4]))
    assert tag.getall("TXXX")[0].desc == "adId" and tag.getall("TXXX")[0].text == ["spot-42 ünïcode"]
    assert tag.getall("TIT2")[0].text == ["Now playing: Song"]
    assert tag.getall("PRIV")[0].owner == "com.example.owner"
    assert tag.getall("PRIV")[0].data == b"opaque-payload"
    assert {(f.frame_type, f.info, f.data) for f in event.frames} == {
        ("TXXX", "adId", "spot-42 ünïcode"), ("TIT2", None, "Now playing: Song"),
        ("PRIV", "com.example.owner", "opaque-payload")}


async def test_audio_only_id3_is_found_in_the_audio_rendition(sim, ops) -> None:
    _simulator, clock = sim
    entry = ops.stream(STREAM)
    found: list[Id3Found] = []
    entry.watcher.add_listener(lambda event: found.append(event) if isinstance(event, Id3Found) else None)
    assert await entry.watcher.poll_once()
    outcome = await ops.id3(STREAM, [Id3Frame(frameType="TIT2", data="audio only")], "audio")
    await _step(ops, clock, 2)
    assert outcome.sighting is not None and outcome.sighting.done()
    assert outcome.sighting.result().seen, outcome.sighting.result().detail
    assert [e.part_uri for e in found if "audio" in e.part_uri] and not [e for e in found if "video" in e.part_uri]


async def test_cue_never_shown_is_reported_not_seen_within_the_timeout(sim, tmp_path) -> None:
    simulator, clock = sim
    watcher = PlaylistWatcher(PublisherReader(simulator.publisher_url, "app", "stream"), clock=clock)
    try:
        assert await watcher.poll_once()
        expectation = watcher.expect("cue-out", sent_at=clock.monotonic(), sent_wall=clock.wall(), timeout_s=4)
        for _ in range(10):
            clock.advance(0.5)
            await watcher.poll_once()
        assert expectation.future is not None and expectation.future.done()
        result = expectation.future.result()
        assert not result.seen and result.detail == "cue-out in the playlist not seen within 4 s"
    finally:
        await watcher.aclose()


async def test_unreadable_playlist_is_said_plainly(sim) -> None:
    simulator, clock = sim
    events: list[object] = []
    watcher = PlaylistWatcher(PublisherReader(simulator.publisher_url, "app", "no-such-stream"), clock=clock)
    watcher.add_listener(events.append)
    try:
        assert not await watcher.poll_once()
    finally:
        await watcher.aclose()
    [event] = events
    assert isinstance(event, PlaylistUnavailable)
    assert event.message.startswith("playlist cannot be read: ") and "404" in event.message


async def test_background_watcher_uses_blocking_reload_and_confirms(sim, tmp_path) -> None:
    simulator, clock = sim
    client = OmeClient(simulator.api_url, TEST_TOKEN)
    ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock, publisher_url=simulator.publisher_url)
    seen = asyncio.Event()
    ops.add_listener(lambda path, event: seen.set() if isinstance(event, Sighting) else None)
    try:
        entry = ops.watch(STREAM)
        outcome = await ops.cue_out(STREAM, 30_000)
        for _ in range(8):
            clock.advance(0.5)
            await asyncio.sleep(0.02)  # let the blocked reload answer; the assertion below does not time
        await asyncio.wait_for(seen.wait(), timeout=10)
        assert outcome.sighting is not None and outcome.sighting.result().seen
        assert entry.watcher.latest is not None and entry.watcher.latest.can_block_reload
    finally:
        await ops.aclose()
        await client.aclose()
        clock.advance(30)  # the publisher still holds the last blocked reload until its 503 deadline


async def test_watcher_recovers_when_a_stream_ends_and_starts_again(sim) -> None:
    simulator, clock = sim
    watcher = PlaylistWatcher(PublisherReader(simulator.publisher_url, "app", "news"), clock=clock)
    try:
        assert await watcher.poll_once()
        stream = simulator.world.find_stream("default", "app", "news")
        assert stream is not None
        simulator.world.end_stream(stream)
        clock.advance(1)
        assert not await watcher.poll_once(block=True)
        assert watcher.unavailable is not None and "404" in watcher.unavailable
        simulator.world.start_stream("default", "app", StreamSpec("news"))
        clock.advance(13)
        assert await watcher.poll_once(block=True), watcher.unavailable
        assert watcher.unavailable is None and watcher.latest is not None
    finally:
        await watcher.aclose()


async def test_a_stream_is_followed_only_while_viewed_or_waiting(sim, tmp_path) -> None:
    simulator, clock = sim
    client = OmeClient(simulator.api_url, TEST_TOKEN)
    ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock, publisher_url=simulator.publisher_url)
    resolved = asyncio.Event()
    ops.add_listener(lambda path, event: resolved.set() if isinstance(event, Sighting) else None)
    try:
        entry = ops.watch(STREAM)
        assert entry.task is not None
        ops.unwatch(STREAM)  # the panel closed, nothing pending: reading stops
        assert entry.task is None
        outcome = await ops.cue_out(STREAM, 30_000)  # a send follows the playlist until confirmed
        assert entry.task is not None and not entry.task.done()
        for _ in range(8):
            clock.advance(0.5)
            await asyncio.sleep(0.02)  # let the blocked reload answer; nothing below depends on it
        await asyncio.wait_for(resolved.wait(), timeout=10)
        assert outcome.sighting is not None and outcome.sighting.result().seen
        await asyncio.sleep(0)
        assert entry.task is None
    finally:
        await ops.aclose()
        await client.aclose()
        clock.advance(30)  # the publisher still holds the last blocked reload until its 503 deadline

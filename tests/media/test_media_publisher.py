"""The publisher port over real HTTP with a manual clock: LL-HLS playlists that m3u8 parses with the
tags where DECISIONS.md puts them, blocking reload (held, answered when the part appears however far
ahead, 404 for directives it cannot use), hinted parts, gzip, 404 for everything unknown, and real
readers counted in the statistics while their connections are open."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import m3u8
import pytest
from sim_support import api_client, running_simulator

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

BASE = "/app/stream/"


@pytest.fixture
async def live(clock: ManualClock) -> AsyncIterator[tuple[RunningSimulator, httpx.AsyncClient]]:
    async with running_simulator(clock=clock) as sim, httpx.AsyncClient(base_url=sim.publisher_url,
                                                                        timeout=10) as pub:
        clock.advance(13.2)  # segments 0 and 1 complete, segment 2 has parts 0 and 1 (12.0-13.0 s)
        yield sim, pub


async def _chunklist_name(pub: httpx.AsyncClient, track: str = "video") -> str:
    master = (await pub.get(BASE + "llhls.m3u8")).text
    return next(line.split('URI="')[-1].rstrip('"') if "URI=" in line else line
                for line in master.splitlines() if f"_{track}_" in line)


async def _held(clock: ManualClock, count: int) -> None:
    """Until `count` more sleepers than the server's own wait on the clock (requests being held)."""
    baseline = 2  # the world ticker and the viewer sweeper
    for _ in range(2000):
        if len(clock._waiters) >= baseline + count:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{count} requests never got held: {len(clock._waiters)} waiters")


async def test_chunklist_parses_with_ll_hls_tags_in_place(live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    response = await pub.get(BASE + name)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/vnd.apple.mpegurl"
    text = response.text
    playlist = m3u8.loads(text)
    assert playlist.version == 6 and playlist.target_duration == 6 and playlist.media_sequence == 0
    assert playlist.server_control.can_block_reload == "YES"
    assert playlist.part_inf.part_target == 0.5
    assert playlist.server_control.part_hold_back >= 3 * playlist.part_inf.part_target
    assert [s.duration for s in playlist.segments] == [6.0, 6.0, None]  # None: the segment in progress
    assert playlist.preload_hint.hint_type == "PART" and "part_0_2_2_video" in playlist.preload_hint.uri
    lines = text.splitlines()
    # PROGRAM-DATE-TIME before every segment (complete or in progress), before its first part
    pdt = [i for i, line in enumerate(lines) if line.startswith("#EXT-X-PROGRAM-DATE-TIME:")]
    assert len(pdt) == 3 and all(lines[i + 1].startswith(("#EXT-X-PART:", "#EXTINF:")) for i in pdt)
    parts = [line for line in lines if line.startswith("#EXT-X-PART:")]
    assert len(parts) == 12 + 12 + 2  # all three newest segments list their parts
    assert all(("INDEPENDENT=YES" in line) == (i % 2 == 0) for i, line in enumerate(parts))  # keyframe every 1 s
    assert lines[-1].startswith("#EXT-X-RENDITION-REPORT:") and "LAST-MSN=2,LAST-PART=1" in lines[-1]


async def test_blocking_reload_is_held_until_the_part_exists(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    request = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 2, "_HLS_part": 3}))
    await _held(clock, 1)
    clock.advance(0.5)  # 13.7 s: part 2 (13.0-13.5) exists, part 3 does not yet
    await asyncio.sleep(0)
    assert not request.done()
    clock.advance(0.3)  # 14.0 s: part 3 complete
    response = await request
    assert response.status_code == 200
    assert "part_0_2_3_video" in response.text and "part_0_2_4_video" in response.text.split("PRELOAD-HINT")[1]


async def test_audio_blocking_reload_waits_for_the_audio_part(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    """Audio parts are 23 AAC frames (0.490667 s), so the audio chunklist has its own parts: segment 2
    holds 13 (the last one 0.106667 s, ending at 18.005333 s) where the video has 12."""
    _, pub = live
    name = await _chunklist_name(pub, "audio")
    clock.advance(16 - 13.2)  # within the advance part limit (3 s) of the part asked for
    request = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 2, "_HLS_part": 12}))
    await _held(clock, 1)
    clock.advance(18.005 - 16)
    await asyncio.sleep(0)
    assert not request.done()
    clock.advance(0.001)
    response = await request
    assert response.status_code == 200
    playlist = m3u8.loads(response.text)
    (last,) = [s for s in playlist.segments if s.uri and s.uri.startswith("seg_1_2_")]
    assert len(last.parts) == 13 and last.parts[-1].duration == 0.106667 and last.duration == 5.994667
    assert all(p.duration == 0.490667 and p.independent == "YES" for p in last.parts[:-1])
    assert "part_1_3_0_audio" in playlist.preload_hint.uri
    assert "LAST-MSN=2,LAST-PART=11" in response.text.splitlines()[-1]  # the video: 12 parts, all done


async def test_twenty_blocked_clients_are_all_answered(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    requests = [asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 2, "_HLS_part": 6}))
                for _ in range(20)]
    await _held(clock, 20)
    clock.advance(15.5 - 13.2)
    responses = await asyncio.gather(*requests)
    assert [r.status_code for r in responses] == [200] * 20
    assert all('URI="part_0_2_6_video' in r.text for r in responses)
    assert len({r.text for r in responses}) == 1


async def test_directive_errors_are_the_real_servers_empty_404(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    sim, pub = live
    name = await _chunklist_name(pub)
    for params in ({"_HLS_part": 1}, {"_HLS_msn": "x"}, {"_HLS_msn": "-1"}):
        refused = await pub.get(BASE + name, params=params)
        assert (refused.status_code, refused.content) == (404, b""), params
        assert "access-control-allow-origin" not in refused.headers
    # a request held for its part, and the stream ends meanwhile: 404 too
    request = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 2, "_HLS_part": 7}))
    await _held(clock, 1)
    stream = sim.world.find_stream("default", "app", "stream")
    assert stream is not None
    sim.world.end_stream(stream)
    clock.advance(3)
    ended = await request
    assert (ended.status_code, ended.content, ended.headers["content-type"]) == (404, b"", "text/html")


async def test_a_blocking_reload_far_ahead_is_answered_when_its_part_exists(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    """The real server holds `_HLS_msn` beyond the playlist's edge (and a part beyond the advance part
    limit) until it exists, with `Cache-Control: max-age=60`: no 400 at once."""
    _, pub = live
    name = await _chunklist_name(pub)
    request = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 5, "_HLS_part": 0}))  # last msn 2
    await _held(clock, 1)
    clock.advance(30.6 - 13.2)  # part 5.0 ends at 30.5 s
    response = await request
    assert response.status_code == 200 and 'URI="part_0_5_0_video' in response.text
    assert response.headers["cache-control"] == "max-age=60"


async def test_a_request_never_answerable_is_closed_unanswered_at_the_hold_bound(
        clock: ManualClock, live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    """`_HLS_msn=999999` is never answered by the real server (its client gave up after 40 s); the
    simulator holds it up to PublisherLimits.max_hold_s (60 s), then closes the connection without a reply."""
    _, pub = live
    name = await _chunklist_name(pub)
    request = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 999999, "_HLS_part": 0}))
    await _held(clock, 1)
    clock.advance(59.9)
    await asyncio.sleep(0.05)
    assert not request.done()
    clock.advance(0.2)
    with pytest.raises(httpx.RemoteProtocolError):  # the server closed the connection: no status line
        await request


async def test_hinted_part_is_held_until_complete(clock: ManualClock,
                                                  live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    hint = m3u8.loads((await pub.get(BASE + name)).text).preload_hint.uri
    request = asyncio.create_task(pub.get(BASE + hint))
    await _held(clock, 1)
    assert not request.done()
    clock.advance(0.3)
    response = await request
    assert response.status_code == 200 and response.headers["content-type"] == "video/mp4"
    assert response.content[4:8] == b"moof"
    assert (await pub.get(BASE + hint)).content == response.content


async def test_gzip_when_accepted(live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    zipped = await pub.get(BASE + name, headers={"Accept-Encoding": "gzip"})
    plain = await pub.get(BASE + name, headers={"Accept-Encoding": "identity"})
    assert zipped.headers["content-encoding"] == "gzip" and plain.headers["content-encoding"] == "identity"
    assert zipped.text == plain.text
    assert int(zipped.headers["content-length"]) < int(plain.headers["content-length"])


async def test_unknown_paths_are_404_and_nothing_is_read_from_disk(
        live: tuple[RunningSimulator, httpx.AsyncClient]) -> None:
    _, pub = live
    name = await _chunklist_name(pub)
    key = name.split("_")[3]
    for path in ("/app/nostream/llhls.m3u8", "/noapp/stream/llhls.m3u8", "/app/stream/", "/app/stream/x.m3u8",
                 "/app/stream/%2e%2e/%2e%2e/pyproject.toml", "/app/stream/..%2f..%2fpyproject.toml",
                 "/simulator/media/assets/loop.h264", "/app/stream/assets/loop.h264", "/etc/passwd",
                 f"/app/stream/seg_0_9_video_{key}_llhls.m4s",  # not produced yet
                 f"/app/stream/part_0_9_0_video_{key}_llhls.m4s",  # far beyond the hint
                 f"/app/stream/seg_0_1_video_{'a' * 8}_llhls.m4s",  # another stream life's name
                 f"/app/stream/part_1_1_0_video_{key}_llhls.m4s",  # track id and type disagree
                 f"/app/stream/seg_{key}_9_hls.ts", "/app/stream/playlist.m3u8"):
        assert (await pub.get(path)).status_code == 404, path
    posted = await pub.post("/app/stream/llhls.m3u8")
    assert (posted.status_code, posted.content) == (404, b"")  # the real server's answer to a POST
    assert (await pub.get(f"/app/stream/seg_0_1_video_{key}_llhls.m4s")).status_code == 200
    assert (await pub.get("/app/stream/playlist.m3u8?format=ts")).status_code == 200


async def test_real_clients_count_as_publisher_connections_while_their_connections_are_open(
        clock: ManualClock) -> None:
    """One keep-alive connection reading LL-HLS and HLS v3 counts once in each, however many requests it
    makes, for as long as it is open (however long that is on the world clock), and not a moment more."""
    async with running_simulator(clock=clock) as sim, api_client(sim) as api:
        clock.advance(13.2)
        stats = "/v2/stats/current/vhosts/default/apps/app/streams/backup"  # nobody else watches it

        async def publishers() -> dict[str, object]:
            body: dict[str, object] = (await api.get(stats)).json()["response"]["publishers"]
            return body

        assert (await publishers())["totalConnections"] == 0
        async with httpx.AsyncClient(base_url=sim.publisher_url) as pub:
            master = await pub.get("/app/backup/llhls.m3u8")
            video = next(line for line in master.text.splitlines() if line.startswith("chunklist_0"))
            for path in ("/app/backup/llhls.m3u8", "/app/backup/" + video, "/app/backup/ts:playlist.m3u8"):
                assert (await pub.get(path)).status_code == 200
            now = await publishers()
            assert now["connections"] == {**now["connections"], "llhls": 1, "hlsv3": 1}  # type: ignore[dict-item]
            clock.advance(60)  # a minute without a request: the connection is still open, so still counted
            assert (await publishers())["totalConnections"] == 2
        for _ in range(2000):  # the client closed its connection: the server hears of it at once
            if (await publishers())["totalConnections"] == 0:
                break
            await asyncio.sleep(0.01)
        assert (await publishers())["totalConnections"] == 0


async def test_a_held_request_is_let_go_when_its_client_hangs_up(clock: ManualClock) -> None:
    """A player that gives up on a blocking reload must not keep the server busy: the held request
    ends with its connection, so stopping the simulator does not wait for the hold's 3 x TD deadline
    (the clock never moves again here: without the fix, stop() waits for ever)."""
    async with asyncio.timeout(30):
        async with running_simulator(clock=clock) as sim:
            clock.advance(13.2)
            async with httpx.AsyncClient(base_url=sim.publisher_url, timeout=10) as pub:
                name = await _chunklist_name(pub)
                held = asyncio.create_task(pub.get(BASE + name, params={"_HLS_msn": 2, "_HLS_part": 3}))
                await _held(clock, 1)
                assert not held.done()
                held.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await held

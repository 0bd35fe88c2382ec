"""The simulator's publisher against a real OvenMediaEngine 0.19.0 (tests/support/fixtures/ome-0.19.0, copied from the
captures): its reply headers (names in order, fixed values), its empty 404, `totalBytesOut` counting the header
block, a playlist reader counted exactly while its TCP connection is open (the two captured statistics series
replayed on the world clock), and the `emsg` of an ID3 event laid out as the captured part's.

Requests are written on raw sockets where the connection's life matters (the count) or the exact bytes do
(the header block); the simulator plays `--edition oss --version 0.19.0` on a scenario nobody watches, as the
captured stream was.
"""

from __future__ import annotations

import asyncio
import io
import json
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import av
import httpx
import m3u8
import pytest
from sim_support import api_client, running_simulator

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.scenario import load_scenario

CAPTURES = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0"
STATS = "/v1/stats/current/vhosts/default/apps/app/streams/stream"
QUIET = """[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "app"
    [[vhosts.apps.streams]]
    name = "stream"
    input = "rtmp"
    bitrate_kbps = 800
    audience = 0
    permanent = true
"""


def _capture(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((CAPTURES / "playlists" / name).read_text())
    return found


@pytest.fixture
def quiet(tmp_path: Path) -> str:
    path = tmp_path / "quiet.toml"
    path.write_text(QUIET)
    load_scenario(str(path))
    return str(path)


@pytest.fixture
async def oss_019(quiet: str, clock: ManualClock) -> AsyncIterator[RunningSimulator]:
    async with running_simulator(quiet, clock=clock, edition="oss", version="0.19.0") as sim:
        clock.advance(13.2)
        yield sim


async def _exchange(sim: RunningSimulator, target: str, method: str = "GET") -> tuple[bytes, bytes]:
    """(head, body) of one request on its own connection, closed once the reply is read (as curl did)."""
    host, port = sim.publisher_url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        body = await reader.readexactly(length) if method != "HEAD" else b""
    finally:
        writer.close()
        await writer.wait_closed()
    return head, body


def _headers(head: bytes) -> list[tuple[str, str]]:
    return [(name.decode().lower(), value.decode().strip())
            for name, _, value in (line.partition(b":") for line in head.split(b"\r\n")[1:] if line)]


def _status(head: bytes) -> tuple[int, str]:
    _, status, reason = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
    return int(status), reason


def _names(sim_path: str, master: str) -> dict[str, str]:
    """The capture's request paths mapped to the simulator's (its file names carry its own key)."""
    lines = master.replace('"', "\n").splitlines()
    video = next(line for line in lines if "chunklist_0_video" in line).rsplit("/", 1)[-1]
    audio = next(line for line in lines if "chunklist_1_audio" in line).rsplit("/", 1)[-1]
    return {"video": sim_path + video, "audio": sim_path + audio}


async def _sim_targets(sim: RunningSimulator) -> dict[str, str]:
    _, master = await _exchange(sim, "/app/stream/llhls.m3u8")
    names = _names("/app/stream/", master.decode())
    _, ts_master = await _exchange(sim, "/app/stream/ts:playlist.m3u8")
    medialist = next(line for line in ts_master.decode().splitlines() if line.startswith("medialist_"))
    chunklist = (await _exchange(sim, names["video"]))[1].decode()
    hint = next(line for line in chunklist.splitlines() if line.startswith("#EXT-X-PRELOAD-HINT"))
    msn, index = hint.split("part_0_", 1)[1].split("_")[:2]
    return {
        "23_llhls_master.json": "/app/stream/llhls.m3u8",
        "24_llhls_chunklist_video.json": names["video"],
        "25_llhls_chunklist_audio.json": names["audio"],
        "26_hls_ts_playlist.json": "/app/stream/ts:playlist.m3u8",
        "27_hls_ts_media_playlist.json": "/app/stream/" + medialist,
        "28_hls_ts_master.json": "/app/stream/ts:master.m3u8",
        "29_hls_ts_master_query.json": "/app/stream/master.m3u8?format=ts",
        "49_hls_playlist_query_format.json": "/app/stream/playlist.m3u8?format=ts",
        "50_llhls_blocking_reload_hinted_part.json": f"{names['video']}?_HLS_msn={msn}&_HLS_part={index}",
        "54_llhls_chunklist_with_session_like_query.json": names["video"] + "?session=abc&foo=bar",
    }


async def test_every_reply_has_the_real_servers_headers_in_its_order(
        oss_019: RunningSimulator, clock: ManualClock) -> None:
    """Names in order (case aside: uvicorn writes them in lower case), every value but Content-Length as
    captured (the LL-HLS ones carry Content-Encoding and Cache-Control, the TS ones neither)."""
    targets = await _sim_targets(oss_019)
    for capture_name, target in targets.items():
        captured = _capture(capture_name)["response"]
        blocking = "_HLS_msn" in target
        request = asyncio.create_task(_exchange(oss_019, target))
        if blocking:  # the hinted part: held until it exists
            await asyncio.sleep(0)
            clock.advance(0.6)
        head, _ = await request
        assert _status(head) == (captured["status"], captured["reason"]), capture_name
        expected = [(name.lower(), value) for name, value in captured["headers"]]
        got = _headers(head)
        assert [name for name, _ in got] == [name for name, _ in expected], capture_name
        for (name, value), (_, captured_value) in zip(got, expected, strict=True):
            if name == "content-length":
                assert value.isdigit(), capture_name
            else:
                assert value == captured_value, (capture_name, name)


async def test_a_missing_stream_and_a_post_are_the_real_servers_empty_404(oss_019: RunningSimulator) -> None:
    captured = _capture("48_llhls_master_head_missing_stream.json")["response"]
    for target, method in (("/app/nosuchstream/llhls.m3u8", "GET"), ("/app/stream/llhls.m3u8", "POST")):
        head, body = await _exchange(oss_019, target, method)
        assert _status(head) == (captured["status"], captured["reason"]) and body == b""
        assert _headers(head) == [(name.lower(), value) for name, value in captured["headers"]]


async def test_bytes_out_count_the_header_block_as_the_real_server_does(oss_019: RunningSimulator) -> None:
    """The capture: one 410-byte master playlist moved `totalBytesOut` by 752, its 342 header bytes with it.
    Here every byte a client receives is counted, status line and headers included."""
    captured = _capture("23_llhls_master.json")["response"]
    captured_head = len(f"HTTP/1.1 {captured['status']} {captured['reason']}\r\n") + sum(
        len(name) + 2 + len(value) + 2 for name, value in captured["headers"]) + 2
    assert captured_head + len(captured["body"].encode()) == 752  # the capture's own arithmetic
    async with api_client(oss_019) as api:
        before = (await api.get(STATS)).json()["response"]["totalBytesOut"]
        received = 0
        for target in ("/app/stream/llhls.m3u8", "/app/stream/ts:playlist.m3u8"):
            head, body = await _exchange(oss_019, target)
            received += len(head) + len(body)
        after = (await api.get(STATS)).json()["response"]["totalBytesOut"]
    assert after - before == received
    head, body = await _exchange(oss_019, "/app/stream/llhls.m3u8")
    digits = len(str(len(body)))  # the header block differs from the capture's by Content-Length's digits only
    assert len(head) - digits == captured_head - len(str(len(captured["body"].encode())))


def _series(name: str) -> list[dict[str, Any]]:
    polls = json.loads((CAPTURES / name).read_text())
    return [{"t": poll["t_wall"], **json.loads(poll["body"])["response"]} for poll in polls]


async def _open_reader(sim: RunningSimulator) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = sim.publisher_url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"GET /app/stream/llhls.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.startswith(b"content-length"))
    await reader.readexactly(length)
    return reader, writer


async def _count_settled(api: httpx.AsyncClient, expected: int) -> int:
    """totalConnections once the server has heard of a close (it hears at once; this waits for the event loop)."""
    count = -1
    for _ in range(2000):
        count = (await api.get(STATS)).json()["response"]["totalConnections"]
        if count == expected:
            break
        await asyncio.sleep(0.01)
    return int(count)


async def test_a_keep_alive_reader_counts_exactly_while_its_connection_is_open(
        oss_019: RunningSimulator, clock: ManualClock) -> None:
    """stats_stream_series_keepalive_20s replayed: polls a second apart; the reader's connection opens at 0
    and closes at 12.004 s (the capture's events): the simulator's totalConnections reads as the real one's."""
    polls = _series("stats_stream_series_keepalive_20s.json")
    events = json.loads((CAPTURES / "stats_stream_series_keepalive_20s.events.json").read_text())
    opened, closed = events[0]["t_wall"], events[1]["t_wall"]
    captured = [(round(p["t"] - opened, 3), p["totalConnections"]) for p in polls]
    seen = []
    async with api_client(oss_019) as api:
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        now = polls[0]["t"] - opened
        for offset, _ in captured:
            clock.advance(max(0.0, offset - now))
            now = max(now, offset)
            if connection is None and offset >= 0 and now < closed - opened:
                connection = await _open_reader(oss_019)
            if connection is not None and offset >= closed - opened:
                connection[1].close()
                await connection[1].wait_closed()
                connection = None
                seen.append((offset, await _count_settled(api, 0)))
                continue
            seen.append((offset, (await api.get(STATS)).json()["response"]["totalConnections"]))
    assert seen == captured


async def test_a_fetch_on_a_connection_closed_at_once_shows_only_in_the_peak(
        oss_019: RunningSimulator, clock: ManualClock) -> None:
    """stats_stream_series_60s: after one fetch on its own connection, every later poll reads 0 connections,
    while maxTotalConnections went 0 -> 1 with maxTotalConnectionTime and lastSentTime at the fetch."""
    polls = _series("stats_stream_series_60s.json")
    fetched_at = json.loads((CAPTURES / "stats_stream_series_60s.fetches.json").read_text())[0]["t_wall"]
    before_fetch, after_fetch = [p for p in polls if p["t"] < fetched_at][-1], polls[-1]
    changed = {key for key in ("maxTotalConnections", "maxTotalConnectionTime", "lastSentTime", "totalConnections")
               if before_fetch[key] != after_fetch[key]}
    assert changed == {"maxTotalConnections", "maxTotalConnectionTime", "lastSentTime"}
    assert all(p["totalConnections"] == 0 for p in polls)
    async with api_client(oss_019) as api:
        before = (await api.get(STATS)).json()["response"]
        await _exchange(oss_019, "/app/stream/llhls.m3u8")
        assert await _count_settled(api, 0) == 0
        clock.advance(1)
        after = (await api.get(STATS)).json()["response"]
    assert before["maxTotalConnections"] == 0 and after["maxTotalConnections"] == 1
    assert after["maxTotalConnectionTime"] == after["lastSentTime"] != before["lastSentTime"]
    assert after["totalConnections"] == 0


async def test_the_emsg_of_an_id3_event_is_laid_out_as_the_captured_part(
        oss_019: RunningSimulator, clock: ManualClock) -> None:
    captured = json.loads((CAPTURES / "markers" / "id3_emsg_part.json").read_text())
    sent = json.loads(captured["request_body"])
    async with api_client(oss_019) as api, httpx.AsyncClient(base_url=oss_019.publisher_url) as pub:
        reply = await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", json=sent)
        assert reply.status_code == 200
        clock.advance(1.0)
        chunklist = (await pub.get(_names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)[
            "video"])).text
        parts = [line.split('URI="')[1].split('"')[0] for line in chunklist.splitlines() if "#EXT-X-PART:" in line]
        bodies = [(await pub.get("/app/stream/" + part)).content for part in parts[-3:]]
    (data,) = [body for body in bodies if body[4:8] == b"emsg"]
    size, _, version_flags, timescale, _, duration, _ = struct.unpack(">I4sIIQII", data[:32])
    emsg = captured["emsg"]
    assert (version_flags >> 24, version_flags & 0xFFFFFF) == (emsg["version"], emsg["flags"])
    assert (timescale, duration) == (emsg["timescale"], emsg["event_duration"])
    scheme, value, payload = data[32:size].split(b"\x00", 2)
    assert (scheme.decode(), value.decode()) == (emsg["scheme_id_uri"], emsg["value"])
    frames = payload[10:]
    txxx = b"\x03" + sent["events"][0]["info"].encode() + b"\x00" + sent["events"][0]["data"].encode()
    tit2 = b"\x03" + sent["events"][1]["data"].encode()
    assert frames == b"TXXX" + struct.pack(">I", len(txxx)) + b"\x00\x00" + txxx + \
        b"TIT2" + struct.pack(">I", len(tit2)) + b"\x00\x00" + tit2  # sizes < 128: syncsafe = plain
    assert [kind for kind in (data[size + 4:size + 8],)] == [b"moof"]


# -- open source 0.19 and 0.20: no marker tags, segments cut at the cue point --------------------------------------

MARKER_TAGS = ("#EXT-X-CUE-OUT", "#EXT-X-CUE-IN", "#EXT-X-DATERANGE", "#EXT-X-CUE-OUT-CONT")


Seen = dict[int, tuple[float, bool | None]]
"""msn -> (EXTINF, its first part INDEPENDENT; None while no version listed its parts)."""


def _segments(chunklist: str) -> list[tuple[int, float, bool | None]]:
    """(msn, EXTINF, first part INDEPENDENT or None) of every complete segment of a video chunklist."""
    lines = chunklist.splitlines()
    listed = []
    for at, line in enumerate(lines):
        if line.startswith("seg_0_"):
            msn = int(line.split("_")[2])
            first_part = next((earlier for earlier in lines[:at] if f"part_0_{msn}_0_" in earlier), None)
            listed.append((msn, float(lines[at - 1].removeprefix("#EXTINF:").rstrip(",")),
                           None if first_part is None else "INDEPENDENT=YES" in first_part))
    return listed


def _merge(seen: Seen, chunklist: str) -> None:
    for msn, duration, independent in _segments(chunklist):
        known = seen.get(msn, (duration, None))[1]
        seen[msn] = (duration, known if independent is None else independent)


def _captured_video_segments() -> Seen:
    """Every captured version of the video chunklist, merged; none carries a marker tag."""
    found: Seen = {}
    for path in sorted((CAPTURES / "markers" / "versions").glob("video_*.m3u8")):
        text = path.read_text()
        assert not any(line.startswith(MARKER_TAGS) for line in text.splitlines()), path.name
        _merge(found, text)
    return found


@pytest.mark.parametrize("version", ["0.19.0", "0.20.5"])
async def test_a_cue_out_and_in_cut_the_segments_as_the_real_server_did(
        quiet: str, clock: ManualClock, version: str) -> None:
    """The captured break: a 30 s cue-out 5.867 s into segment 52, a cue-in 3.133 s into segment 56, read
    back from the captured EXTINFs. Sent at the same points of the simulator's segments 2 and 6, they give
    the captured durations (within the capture's millisecond), the same non-independent parts, and no marker
    tag in any playlist; TARGETDURATION stays 6."""
    captured = _captured_video_segments()
    out_msn = next(msn for msn, (duration, _) in sorted(captured.items()) if duration < 6.0)
    in_msn = out_msn + 4
    first = 2  # the simulator's segment where the cue-out goes; the cue-in goes 4 segments later (after the cut)
    sends = [(first * 6 + captured[out_msn][0] + 0.01, {"cueType": "out", "duration": 30000}),
             ((first + 4 - 1) * 6 + captured[in_msn][0] + 0.01, {"cueType": "in"})]
    seen: Seen = {}
    async with running_simulator(quiet, clock=clock, edition="oss", version=version) as sim, \
            api_client(sim) as api, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        names: dict[str, str] = {}
        elapsed = 0.0
        for step in range(1, 2 * 90):  # every version of the chunklists on the way, half a second apart
            while sends and sends[0][0] <= step / 2:
                at, cue = sends.pop(0)
                clock.advance(at - elapsed)
                elapsed = at
                reply = await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
                                       json={"eventFormat": "cue", "events": [cue]})
                assert reply.status_code == 200
            clock.advance(step / 2 - elapsed)
            elapsed = step / 2
            if step < 4:
                continue
            names = names or _names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)
            video = (await pub.get(names["video"])).text
            _merge(seen, video)
            assert "#EXT-X-TARGETDURATION:6" in video
            ts_master = (await pub.get("/app/stream/ts:playlist.m3u8")).text
            medialist = "/app/stream/" + next(line for line in ts_master.splitlines() if line.startswith("medialist_"))
            for target in (names["audio"], medialist):
                text = (await pub.get(target)).text
                assert not any(line.startswith(MARKER_TAGS) for line in text.splitlines()), target
            assert not any(line.startswith(MARKER_TAGS) for line in video.splitlines())
    expected = [captured[msn] for msn in range(out_msn, out_msn + 11)]
    got = [seen[msn] for msn in range(first, first + 11)]
    known = [at for at, (_, independent) in enumerate(expected) if independent is not None]
    assert len(known) >= 6  # the cut ones among them: the capture listed their parts
    assert [got[at][1] for at in known] == [expected[at][1] for at in known]
    assert all(abs(a - b) <= 0.001 for (a, _), (b, _) in zip(got, expected, strict=True)), (got, expected)


async def test_a_cue_out_of_one_and_a_half_segments_or_less_is_answered_200_and_cuts_nothing(
        quiet: str, clock: ManualClock) -> None:
    async with running_simulator(quiet, clock=clock, edition="oss", version="0.19.0") as sim, \
            api_client(sim) as api, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(14.3)
        path = "/v1/vhosts/default/apps/app/streams/stream:sendEvent"
        for body in ({"cueType": "out", "duration": 9000}, {"cueType": "out"}):
            assert (await api.post(path, json={"eventFormat": "cue", "events": [body]})).status_code == 200
        clock.advance(20)
        names = _names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)
        listed = _segments((await pub.get(names["video"])).text)
    assert [duration for _, duration, _ in listed] == [6.0] * len(listed) and len(listed) >= 5


# -- open source 0.19 and 0.20: the playlists' layout ---------------------------------------------------------------

def _tag(line: str) -> str:
    return line.split(":", 1)[0] if line.startswith("#") else ("" if not line else "URI")


def _attributes(line: str) -> list[tuple[str, str]]:
    """NAME=value pairs of a tag line, quoted values kept whole."""
    body, pairs, at = line.split(":", 1)[1], [], 0
    while at < len(body):
        name, _, rest = body[at:].partition("=")
        value = rest[:rest.index('"', 1) + 1] if rest.startswith('"') else rest.split(",", 1)[0]
        pairs.append((name, value))
        at += len(name) + 1 + len(value) + 1
    return pairs


async def test_the_multivariant_playlists_are_laid_out_as_captured(oss_019: RunningSimulator) -> None:
    """Same lines in the same order (two empty ones included), same attributes in the same order; fixed values
    equal, live ones by their format: URIs absolute, BANDWIDTH the input's bitrate (800 kb/s here)."""
    async with httpx.AsyncClient(base_url=oss_019.publisher_url) as pub:
        for capture_name, target in (("23_llhls_master.json", "/app/stream/llhls.m3u8"),
                                     ("26_hls_ts_playlist.json", "/app/stream/ts:playlist.m3u8")):
            captured = _capture(capture_name)["response"]["body"].split("\n")
            ours = (await pub.get(target)).text.split("\n")
            assert [_tag(line) for line in ours] == [_tag(line) for line in captured], capture_name
            m3u8.loads("\n".join(ours))  # an independent parser takes it
            for mine, theirs in zip(ours, captured, strict=True):
                if not mine.startswith(("#EXT-X-MEDIA:", "#EXT-X-STREAM-INF:")):
                    continue
                got, expected = _attributes(mine), _attributes(theirs)
                assert [name for name, _ in got] == [name for name, _ in expected], mine
                for (name, value), (_, captured_value) in zip(got, expected, strict=True):
                    if name in ("GROUP-ID", "NAME", "DEFAULT", "AUTOSELECT", "FRAME-RATE", "AUDIO"):
                        assert value == captured_value, name
                    elif name in ("BANDWIDTH", "AVERAGE-BANDWIDTH"):
                        assert value.isdigit(), name
                    elif name == "URI":
                        assert value.startswith('"/app/stream/chunklist_1_audio_'), value
            stream_inf = dict(_attributes(next(line for line in ours if line.startswith("#EXT-X-STREAM-INF"))))
            if capture_name.startswith("23"):
                assert stream_inf["BANDWIDTH"] == "800000"
                assert ours[-2].startswith("/app/stream/chunklist_0_video_")
            else:
                assert stream_inf["AVERAGE-BANDWIDTH"] == "800000"
                assert int(stream_inf["BANDWIDTH"]) > 800000  # the peak


async def test_the_chunklists_carry_each_tracks_part_target_and_no_rendition_report(
        oss_019: RunningSimulator) -> None:
    """The capture: video PART-TARGET 0.5, audio 0.511 (its longest part: the AAC frame crossing 0.5 s),
    PART-HOLD-BACK 1.533 = 3 x 0.511 in both, no RENDITION-REPORT; the header tags in the capture's order."""
    captured = {track: _capture(name)["response"]["body"] for track, name in
                (("video", "24_llhls_chunklist_video.json"), ("audio", "25_llhls_chunklist_audio.json"))}
    async with httpx.AsyncClient(base_url=oss_019.publisher_url) as pub:
        names = _names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)
        ours = {track: (await pub.get(names[track])).text for track in ("video", "audio")}
    for text in (*captured.values(), *ours.values()):
        playlist = m3u8.loads(text)
        parts = [part.duration for segment in playlist.segments for part in segment.parts]
        assert playlist.part_inf.part_target == max(parts)  # a track's PART-TARGET is its longest part
        assert "#EXT-X-RENDITION-REPORT" not in text
    for source in (captured, ours):
        targets = [m3u8.loads(source[track]).part_inf.part_target for track in ("video", "audio")]
        for track in ("video", "audio"):
            assert m3u8.loads(source[track]).server_control.part_hold_back == pytest.approx(3 * max(targets))
    head = [_tag(line) for line in captured["video"].splitlines()[:7]]
    assert [_tag(line) for line in ours["video"].splitlines()[:7]] == head
    assert m3u8.loads(ours["audio"]).part_inf.part_target > m3u8.loads(ours["video"]).part_inf.part_target == 0.5


async def test_the_cut_segments_are_media_a_demuxer_reads_with_the_durations_the_playlist_states(
        quiet: str, clock: ManualClock) -> None:
    """PyAV on the segments around a cue-out's cut: the cut one ends on the frame before the cue point, the
    short one after it holds the frames up to the next keyframe and does not start on one, and their
    timestamps run on without a gap."""
    async with running_simulator(quiet, clock=clock, edition="oss", version="0.19.0") as sim, \
            api_client(sim) as api, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(12 + 5.87)
        body = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
        assert (await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", json=body)).status_code == 200
        clock.advance(8)
        names = _names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)
        chunklist = (await pub.get(names["video"])).text
        stated = {msn: duration for msn, duration, _ in _segments(chunklist)}
        key = names["video"].split("_")[3]
        init = (await pub.get(f"/app/stream/init_0_video_{key}_llhls.m4s")).content
        media = {msn: (await pub.get(f"/app/stream/seg_0_{msn}_video_{key}_llhls.m4s")).content for msn in (2, 3, 4)}
    packets = {}
    for msn, data in media.items():
        with av.open(io.BytesIO(init + data), format="mp4") as container:
            stream = container.streams.video[0]
            found = [p for p in container.demux(stream) if p.size]
            assert stream.time_base is not None
            packets[msn] = [(float(p.pts * stream.time_base), float(p.duration * stream.time_base), p.is_keyframe)
                            for p in found if p.pts is not None and p.duration is not None]
    for msn, listed in packets.items():
        assert sum(duration for _, duration, _ in listed) == pytest.approx(stated[msn], abs=1e-4), msn
    assert len(packets[2]) == 176 and len(packets[3]) == 4  # 5.867 s and 0.133 s of 30 fps
    assert packets[2][0][2] and not packets[3][0][2] and packets[4][0][2]  # the short one starts between keyframes
    ends = [listed[-1][0] + listed[-1][1] for listed in (packets[2], packets[3])]
    assert [packets[3][0][0], packets[4][0][0]] == pytest.approx(ends, abs=1e-4)


async def test_the_hls_v3_media_playlist_is_four_segments_of_four_seconds_as_captured(
        oss_019: RunningSimulator, clock: ManualClock) -> None:
    """Capture 27: the captured server's HLS v3 SegmentDuration 4 and SegmentCount 4, `#EXTINF` with 3 decimals;
    the same lines here, and PyAV reads 4 s of video from the newest segment."""
    clock.advance(20)
    captured = _capture("27_hls_ts_media_playlist.json")["response"]["body"]
    async with httpx.AsyncClient(base_url=oss_019.publisher_url) as pub:
        master = (await pub.get("/app/stream/ts:playlist.m3u8")).text
        text = (await pub.get("/app/stream/" + master.splitlines()[-1])).text
        newest = [line for line in text.splitlines() if line.startswith("seg_")][-1]
        segment = (await pub.get("/app/stream/" + newest)).content
    assert [_tag(line) for line in text.split("\n")] == [_tag(line) for line in captured.split("\n")]
    ours, theirs = m3u8.loads(text), m3u8.loads(captured)
    assert ours.target_duration == theirs.target_duration == 4
    assert [s.duration for s in ours.segments] == [s.duration for s in theirs.segments] == [4.0] * 4
    assert all(line == "#EXTINF:4.000," for line in text.splitlines() if line.startswith("#EXTINF"))
    with av.open(io.BytesIO(segment), format="mpegts") as container:
        video = [p for p in container.demux(container.streams.video[0]) if p.size]
    assert len(video) == 4 * 30


async def test_the_hls_v3_packager_cuts_at_the_first_cue_out_only(quiet: str, clock: ManualClock) -> None:
    """The captured caveat: a cue-out without duration (LL-HLS dropped it) cut the TS media playlist into 4.000
    then 1.000 s; every later cue-out was refused by the TS packager while LL-HLS took it."""
    async with running_simulator(quiet, clock=clock, edition="oss", version="0.19.0") as sim, \
            api_client(sim) as api, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        path = "/v1/vhosts/default/apps/app/streams/stream:sendEvent"
        clock.advance(15.96)  # 40 ms before a TS boundary (16 s), as the captured one (279.96 s)
        assert (await api.post(path, json={"eventFormat": "cue", "events": [{"cueType": "out"}]})).status_code == 200
        clock.advance(30.5 - 15.96)
        later = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 12000}]}
        assert (await api.post(path, json=later)).status_code == 200
        clock.advance(50 - 30.5)
        master = (await pub.get("/app/stream/ts:playlist.m3u8")).text
        ts = m3u8.loads((await pub.get("/app/stream/" + master.splitlines()[-1])).text)
        names = _names("/app/stream/", (await pub.get("/app/stream/llhls.m3u8")).text)
        llhls = _segments((await pub.get(names["video"])).text)
    # 32-48 s: the later cue-out (30.5 s, 12 s long) would have cut at 31 and 43 s; segment 4 was the 1.0 s one
    assert [(s.uri.split("_")[2], s.duration) for s in ts.segments] == [
        ("9", 4.0), ("10", 4.0), ("11", 4.0), ("12", 4.0)]
    assert any(duration < 6.0 for _, duration, _ in llhls)  # LL-HLS cut at the later one (30.5 s)


async def test_the_first_cue_out_without_duration_cuts_a_one_second_ts_segment(
        quiet: str, clock: ManualClock) -> None:
    async with running_simulator(quiet, clock=clock, edition="oss", version="0.19.0") as sim, \
            api_client(sim) as api, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(15.96)
        body = {"eventFormat": "cue", "events": [{"cueType": "out"}]}
        assert (await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", json=body)).status_code == 200
        clock.advance(23 - 15.96)
        master = (await pub.get("/app/stream/ts:playlist.m3u8")).text
        ts = m3u8.loads((await pub.get("/app/stream/" + master.splitlines()[-1])).text)
    assert [s.duration for s in ts.segments] == [4.0, 4.0, 1.0, 3.0]  # 8-12, 12-16, 16-17, 17-20

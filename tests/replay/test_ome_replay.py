"""The replay of the real OvenMediaEngine 0.19.0 (`ome_replay.py`) answers as the captures say, byte for byte."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fake_clock import FakeClock
from ome_replay import FIXTURES, STATS_PATH, OmeReplay

VIDEO = "/app/stream/chunklist_0_video_7930408358254892257_llhls.m3u8"
AUDIO = "/app/stream/chunklist_1_audio_7930408358254892257_llhls.m3u8"
MARKERS = FIXTURES / "markers"


class Raw:
    """One keep-alive connection that sends bytes and reads one reply whole (head + Content-Length body)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> Raw:
        parts = urlsplit(url)
        return cls(*await asyncio.open_connection(parts.hostname, parts.port))

    async def send(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes = b"") -> None:
        head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        self.writer.write(head.encode("latin-1") + body)
        await self.writer.drain()

    async def reply(self) -> bytes:
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        return head + await self.reader.readexactly(length)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


async def ask(url: str, method: str, target: str, headers: list[tuple[str, str]], body: bytes = b"") -> bytes:
    raw = await Raw.open(url)
    try:
        await raw.send(method, target, headers, body)
        return await raw.reply()
    finally:
        await raw.close()


def wire(response: dict[str, object], body: bytes | None = None) -> bytes:
    """The captured reply as it came over the wire."""
    headers = response["headers"]
    assert isinstance(headers, list)
    text = response.get("body") or ""
    assert isinstance(text, str)
    data = text.encode() if body is None else body
    head = f"HTTP/1.1 {response['status']} {response['reason']}\r\n" + "".join(
        f"{k}: {str(len(data)) if k == 'Content-Length' else v}\r\n" for k, v in headers) + "\r\n"
    return head.encode("latin-1") + data


def sent_headers(captured: list[list[str]], token: str) -> list[tuple[str, str]]:
    """The captured request's headers with the redacted credentials made real again."""
    real = {"Basic <token>": "Basic " + base64.b64encode(token.encode()).decode(),
            "Basic base64(<token>:)": "Basic " + base64.b64encode(f"{token}:".encode()).decode(),
            "Bearer <token>": f"Bearer {token}"}
    headers = []
    for name, value in captured:
        if name == "Authorization":
            value = real.get(value, value.split("  ", 1)[0])
        headers.append((name, value))
    return headers


def api_captures() -> list[Path]:
    return [path for path in sorted((FIXTURES / "api").glob("*.json"))
            if json.loads(path.read_text())["request"]["path"] != STATS_PATH]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def test_every_captured_api_request_is_answered_byte_for_byte(clock: FakeClock) -> None:
    async with OmeReplay(clock) as replay:
        for path in api_captures():
            exchange = json.loads(path.read_text())
            request = exchange["request"]
            body = (request["body"] or "").encode()
            got = await ask(replay.api_url, request["method"], request["path"],
                            sent_headers(request["headers"], replay.token), body)
            assert got == wire(exchange["response"]), path.name
        assert replay.unmatched == []


async def test_captured_publisher_targets_are_answered_byte_for_byte(clock: FakeClock) -> None:
    static = ["28_hls_ts_master", "29_hls_ts_master_query", "48_llhls_master_head_missing_stream",
              "49_hls_playlist_query_format"]
    async with OmeReplay(clock) as replay:
        for name in static:
            exchange = json.loads((FIXTURES / "playlists" / f"{name}.json").read_text())
            got = await ask(replay.publisher_url, "GET", exchange["request"]["path"], [("Host", "127.0.0.1")])
            assert got == wire(exchange["response"]), name
        for name in ("llhls_master_before_cue_out", "llhls_chunklist_video_before_cue_out",
                     "llhls_chunklist_audio_before_cue_out", "hls_ts_medialist_before_cue_out",
                     "hls_ts_master_before_cue_out"):
            exchange = json.loads((MARKERS / f"{name}.m3u8.http.json").read_text())
            got = await ask(replay.publisher_url, "GET", exchange["request"]["path"], [("Host", "127.0.0.1")])
            assert got == wire(exchange["response"]), name


async def test_the_statistics_series_plays_forward_on_the_clock_and_then_stays(clock: FakeClock) -> None:
    series = json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())
    head = json.loads((FIXTURES / "api" / "03_stats_stream.json").read_text())["response"]
    async with OmeReplay(clock) as replay:
        auth = [("Host", "127.0.0.1"), ("Authorization", replay.authorization)]
        first = series[0]["t_wall"]
        for index in (0, 1, 5, 6, 30, 65):
            clock.advance(series[index]["t_wall"] - first - (clock.monotonic() - replay.started_at))
            got = await ask(replay.api_url, "GET", STATS_PATH, auth)
            assert got == wire(head, series[index]["body"].encode()), index
        clock.advance(3600)
        assert await ask(replay.api_url, "GET", STATS_PATH, auth) == wire(head, series[-1]["body"].encode())


async def test_a_cue_out_switches_the_playlists_to_the_captured_versions_on_the_clock(clock: FakeClock) -> None:
    cue_out = json.loads((FIXTURES / "api" / "30_sendEvent_cue_out.json").read_text())
    head = json.loads((MARKERS / "llhls_chunklist_video_before_cue_out.m3u8.http.json").read_text())["response"]
    async with OmeReplay(clock) as replay:
        plain = [("Host", "127.0.0.1")]
        clock.advance(20)  # nothing moves before the cue-out: the stream is the one captured before it
        assert await ask(replay.publisher_url, "GET", VIDEO, plain) == wire(head)
        request = cue_out["request"]
        got = await ask(replay.api_url, "POST", request["path"], sent_headers(request["headers"], replay.token),
                        request["body"].encode())
        assert got == wire(cue_out["response"])
        for offset, name in ((0.0, "video_000.00"), (1.21, "video_001.21"), (8.05, "video_008.05"),
                             (16.92, "video_016.92"), (60.0, "video_049.93")):
            clock.advance(offset - replay.since_cue_out())
            version = (MARKERS / "versions" / f"{name}.m3u8").read_bytes()
            assert await ask(replay.publisher_url, "GET", VIDEO, plain) == wire(head, version), name
        after = (MARKERS / "versions" / "video_049.93.m3u8").read_text()
        assert "#EXTINF:12.500000," in after and "CUE" not in after and "DATERANGE" not in after


async def test_a_blocking_reload_is_held_until_a_version_lists_the_part(clock: FakeClock) -> None:
    cue_out = json.loads((FIXTURES / "api" / "30_sendEvent_cue_out.json").read_text())["request"]
    blocking = json.loads((FIXTURES / "playlists" / "50_llhls_blocking_reload_hinted_part.json").read_text())
    async with OmeReplay(clock) as replay:
        await ask(replay.api_url, "POST", cue_out["path"], sent_headers(cue_out["headers"], replay.token),
                  cue_out["body"].encode())
        # before the cue-out the last part is (52, 8); video_001.21 is the first version past it (52 cut at 5.867 s)
        raw = await Raw.open(replay.publisher_url)
        try:
            await raw.send("GET", f"{VIDEO}?_HLS_msn=52&_HLS_part=9", [("Host", "127.0.0.1")])
            waiting = asyncio.ensure_future(raw.reply())
            await asyncio.wait_for(clock.parked(1), 10)
            assert not waiting.done()
            clock.advance(1.0)
            await asyncio.sleep(0)
            assert not waiting.done()
            clock.advance(0.21)
            got = await asyncio.wait_for(waiting, 10)
        finally:
            await raw.close()
        version = (MARKERS / "versions" / "video_001.21.m3u8").read_bytes()
        assert got == wire(blocking["response"], version)
        assert b"Cache-Control: max-age=60\r\n" in got


async def test_the_captured_id3_request_puts_the_captured_emsg_part_in_the_video_chunklist(clock: FakeClock) -> None:
    id3 = json.loads((MARKERS / "id3_emsg_part.json").read_text())
    request = json.loads((FIXTURES / "api" / "32_sendEvent_id3v2.json").read_text())["request"]
    part_url = f"/app/stream/{id3['part']}"
    async with OmeReplay(clock) as replay:
        plain = [("Host", "127.0.0.1")]
        got = await ask(replay.api_url, "POST", request["path"], sent_headers(request["headers"], replay.token),
                        request["body"].encode())
        assert got.startswith(b"HTTP/1.1 200 OK\r\n")
        assert id3["part"].encode() not in await ask(replay.publisher_url, "GET", VIDEO, plain)
        clock.advance(id3["found_after_s"])
        assert f'URI="{id3["part"]}"'.encode() in await ask(replay.publisher_url, "GET", VIDEO, plain)
        assert id3["part"].encode() not in await ask(replay.publisher_url, "GET", AUDIO, plain)
        part = await ask(replay.publisher_url, "GET", part_url, plain)
        assert part.endswith((MARKERS / f"id3_emsg_{id3['part']}").read_bytes())


async def test_an_open_publisher_connection_counts_as_a_viewer_as_the_real_server_counts_it(clock: FakeClock) -> None:
    series = json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())
    async with OmeReplay(clock) as replay:
        auth = [("Host", "127.0.0.1"), ("Authorization", replay.authorization)]
        reader = await Raw.open(replay.publisher_url)
        await reader.send("GET", "/app/stream/llhls.m3u8", [("Host", "127.0.0.1")])
        sent = len(await reader.reply())  # status line, headers and body: what the real server counts
        held = json.loads((await ask(replay.api_url, "GET", STATS_PATH, auth)).split(b"\r\n\r\n", 1)[1])
        assert (held["response"]["totalConnections"], held["response"]["connections"]["llhls"],
                held["response"]["maxTotalConnections"]) == (1, 1, 1)
        captured = json.loads(series[0]["body"])["response"]
        assert held["response"]["totalBytesOut"] == captured["totalBytesOut"] + sent
        await reader.close()
        await asyncio.wait_for(replay.readers(0), 10)
        closed = json.loads((await ask(replay.api_url, "GET", STATS_PATH, auth)).split(b"\r\n\r\n", 1)[1])
        # The connection no longer counts; its bytes and the peak it made stay, as on the real server.
        assert closed["response"] == {**captured, "maxTotalConnections": 1,
                                      "totalBytesOut": captured["totalBytesOut"] + sent}


async def test_what_was_never_captured_is_answered_501_and_listed(clock: FakeClock) -> None:
    async with OmeReplay(clock) as replay:
        got = await ask(replay.api_url, "GET", "/v1/vhosts/default/apps/app/streams/stream/nothing",
                        [("Authorization", replay.authorization)])
        assert got.startswith(b"HTTP/1.1 501 Not In Captures\r\n")
        assert [seen.target for seen in replay.unmatched] == ["/v1/vhosts/default/apps/app/streams/stream/nothing"]
        refused = await ask(replay.api_url, "GET", "/v1/vhosts/default/apps/app/streams/stream/nothing", [])
        assert b'"[HTTP] Authorization header is required to call API (401)"' in refused


async def test_send_events_of_sets_captured_alone_answers_as_the_captured_send_events(clock: FakeClock) -> None:
    one = json.loads((FIXTURES / "api" / "32_sendEvent_id3v2.json").read_text())["request"]
    both = json.loads((FIXTURES / "api" / "33_sendEvents_id3v2.json").read_text())["response"]
    async with OmeReplay(clock) as replay:
        body = f"[{one['body']}]".encode()
        got = await ask(replay.api_url, "POST", one["path"] + "s",
                        [("Authorization", replay.authorization), ("Content-Length", str(len(body)))], body)
        assert got == wire(both, b'[{"message":"OK","statusCode":200}]')
        assert replay.id3_at == clock.monotonic()  # the captured ID3 set, sent the console's way
        unknown = b'[{"eventFormat":"cue","events":[{"cueType":"out","duration":5000}]}]'
        refused = await ask(replay.api_url, "POST", one["path"] + "s",
                            [("Authorization", replay.authorization), ("Content-Length", str(len(unknown)))], unknown)
        assert refused.startswith(b"HTTP/1.1 501 Not In Captures\r\n")


async def test_a_reader_that_leaves_during_a_held_reload_stops_counting(clock: FakeClock) -> None:
    cue_out = json.loads((FIXTURES / "api" / "30_sendEvent_cue_out.json").read_text())["request"]
    async with OmeReplay(clock) as replay:
        await ask(replay.api_url, "POST", cue_out["path"], sent_headers(cue_out["headers"], replay.token),
                  cue_out["body"].encode())
        raw = await Raw.open(replay.publisher_url)
        await raw.send("GET", f"{VIDEO}?_HLS_msn=60", [("Host", "127.0.0.1")])
        await asyncio.wait_for(replay.readers(1), 10)
        await asyncio.wait_for(clock.parked(1), 10)  # held: the reload waits on the clock for a version
        await raw.close()
        await asyncio.wait_for(replay.readers(0), 10)


async def test_the_keep_alive_series_shows_the_captured_reader_while_its_connection_was_open(clock: FakeClock) -> None:
    series = json.loads((FIXTURES / "stats_stream_series_keepalive_20s.json").read_text())
    async with OmeReplay(clock, series="keepalive") as replay:
        auth = [("Host", "127.0.0.1"), ("Authorization", replay.authorization)]
        seen = []
        for index in (2, 3, 15, 16):
            clock.advance(series[index]["t_wall"] - series[0]["t_wall"] - (clock.monotonic() - replay.started_at))
            body = (await ask(replay.api_url, "GET", STATS_PATH, auth)).split(b"\r\n\r\n", 1)[1]
            assert body == series[index]["body"].encode()
            seen.append(json.loads(body)["response"]["connections"]["llhls"])
    assert seen == [0, 1, 1, 0]  # the capture's own keep-alive reader, 00:09:59.334 to 00:10:11.338

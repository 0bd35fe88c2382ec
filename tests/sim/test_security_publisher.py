"""The publisher port against hostile requests: odd and traversing paths (plain, encoded, double-encoded),
bad blocking-reload directives and query strings (non-ASCII digits included), other methods, hostile
CORS preflights. Every answer is a 4xx (or the preflight's 200), a refusal is the real server's empty
404 without CORS headers, and no file is opened while they are served (an audit hook records every `open`
of the process).

Requests are written byte for byte on a raw socket: an HTTP library would normalise `..` away.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_support import ThreadedSimulator

import simulator
from simulator.http.server import DEFAULT_ACCESS_TOKEN, start_simulator
from simulator.world.clock import ManualClock

_opened: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _opened is not None and event in ("open", "os.listdir", "os.scandir") and args:
        _opened.append(str(args[0]))


sys.addaudithook(_audit)  # hooks cannot be removed; this one records only while a test asks it to


class Publisher(ThreadedSimulator):
    """The simulator thirty seconds into its demo, reached byte for byte (hypothesis drives it synchronously)."""

    def __init__(self) -> None:
        super().__init__(access_token=DEFAULT_ACCESS_TOKEN, seed=2)
        self.advance(30)
        host, port = self.running.publisher_url.removeprefix("http://").rsplit(":", 1)
        self.address = (host, int(port))

    def raw(self, target: bytes, method: bytes = b"GET") -> tuple[int, bytes]:
        """Status and body of one request with exactly this request target."""
        status, _, body = self.exchange(target, method)
        return status, body

    def exchange(self, target: bytes, method: bytes = b"GET",
                 headers: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
        """Status, headers (lower-case names) and body of one request, `headers` being extra header lines."""
        with socket.create_connection(self.address, timeout=10) as connection:
            connection.sendall(method + b" " + target + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                               + headers + b"\r\n")
            reply = b""
            while chunk := connection.recv(65536):
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        status_line, *lines = head.split(b"\r\n")
        fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(b":") for line in lines)}
        return int(status_line.split(b" ", 2)[1]), fields, body


@pytest.fixture(scope="module")
def publisher() -> Iterator[Publisher]:
    with Publisher() as running:
        yield running


ASSETS = (Path(simulator.__file__).parent / "media" / "assets").resolve()


def served_opening_nothing(publisher: Publisher, target: bytes, method: bytes = b"GET") -> tuple[int, bytes]:
    """One raw request; fails if the process opened or listed any file outside the media assets meanwhile."""
    status, _, body = exchanged_opening_nothing(publisher, target, method)
    return status, body


def exchanged_opening_nothing(publisher: Publisher, target: bytes, method: bytes = b"GET",
                              headers: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
    """As served_opening_nothing, with extra header lines sent and the reply's headers returned."""
    global _opened
    _opened = []
    try:
        reply = publisher.exchange(target, method, headers)
    finally:
        recorded, _opened = _opened, None
    outside = [p for p in recorded if not Path(p).resolve().is_relative_to(ASSETS)]
    assert outside == [], f"files opened while serving {target!r}: {outside}"
    return reply


def test_the_stream_is_really_served_and_a_query_never_names_a_file(publisher: Publisher) -> None:
    status, body = served_opening_nothing(publisher, b"/app/stream/llhls.m3u8")
    assert status == 200 and body.startswith(b"#EXTM3U")
    assert served_opening_nothing(publisher, b"/app/stream/llhls.m3u8?../../etc/passwd") == (status, body)


TRAVERSALS = [
    b"/../../../../etc/passwd", b"/app/stream/../../../../etc/passwd", b"/app/../../etc/passwd",
    b"/app/stream/..%2f..%2f..%2fetc%2fpasswd", b"/app/stream/%2e%2e/%2e%2e/etc/passwd",
    b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd", b"/app/stream/%252e%252e%252fetc%252fpasswd",
    b"/app/stream/..%5c..%5c..%5cwindows%5cwin.ini", b"/app/stream/....//....//etc/passwd",
    b"/app/stream/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", b"/app/stream/llhls.m3u8%00.png",
    b"/app/stream/llhls.m3u8/..", b"/app/stream/./llhls.m3u8/", b"//etc/passwd", b"/app//stream/llhls.m3u8",
    b"/app/stream/" + b"a" * 8000, b"/" + b"%2e%2e/" * 500 + b"etc/passwd",
    b"/app/stream/chunklist_0_video_..%2f..%2fetc_llhls.m3u8", b"/app/stream/seg_../../x_1_hls.ts",
    b"/app/stream/%00", b"/app/stream/\xc3\xa9.m3u8",
    b"/etc/passwd", b"/proc/self/environ", b"/simulator/media/assets/loop.h264", b"/assets/loop.aac",
    b"/app/stream/loop.h264", b"/app/stream/../../../simulator/http/server.py",
]


@pytest.mark.parametrize("target", TRAVERSALS, ids=range(len(TRAVERSALS)))
def test_traversal_and_odd_paths_are_4xx_and_open_nothing(publisher: Publisher, target: bytes) -> None:
    status, body = served_opening_nothing(publisher, target)
    assert 400 <= status < 500, (target, status)
    assert b"root:" not in body and b"[fonts]" not in body and b"import" not in body


BAD_QUERIES = [
    b"_HLS_msn=-1", b"_HLS_msn=99999999999999999999999999999999", b"_HLS_msn=1e3", b"_HLS_msn=1.5",
    b"_HLS_msn=abc", b"_HLS_msn=1&_HLS_msn=2", b"_HLS_part=0",
    b"_HLS_msn=1&_HLS_part=-3", b"_HLS_msn=%00", b"_HLS_msn=0x10",
    b"_HLS_msn=" + b"9" * 5000, b"_HLS_skip=YES&_HLS_msn=-5", b"_HLS_msn=\xff\xfe",
    # digits that are not ASCII: superscripts (int() refuses them), circled and Arabic-Indic (int() takes them)
    b"_HLS_msn=%C2%B2", b"_HLS_msn=%E2%91%A0", b"_HLS_msn=1&_HLS_part=%C2%B3", b"_HLS_msn=%D9%A1",
    b"_HLS_msn=1&_HLS_part=%DB%B2", b"_HLS_msn=%EF%BC%91",
]


@pytest.mark.parametrize("query", BAD_QUERIES, ids=range(len(BAD_QUERIES)))
def test_bad_blocking_reload_directives_are_an_empty_404(publisher: Publisher, query: bytes) -> None:
    """The real server answers a failure of its publisher 404 with nothing in the body (ome-api.md)."""
    status, _ = served_opening_nothing(publisher, b"/app/stream/llhls.m3u8?" + query)
    assert status < 500
    chunklist = _chunklist(publisher)
    status, body = served_opening_nothing(publisher, chunklist + b"?" + query)
    if status == 400:  # raw bytes the HTTP parser itself refuses (\xff in the request line)
        assert body == b"Invalid HTTP request received.", query
    else:
        assert (status, body) == (404, b""), query


def test_more_query_parameters_than_allowed_are_refused_before_parsing_on(publisher: Publisher) -> None:
    status, body = served_opening_nothing(publisher, _chunklist(publisher) + b"?" + b"&".join(
        b"f%d=1" % i for i in range(100)))
    assert (status, body) == (400, b"")


def test_file_names_with_digits_of_other_scripts_are_unknown_files(publisher: Publisher) -> None:
    chunklist = _chunklist(publisher)
    key = chunklist.decode().split("_")[3]
    for name in (f"seg_0_\u0661_video_{key}_llhls.m4s", f"part_0_\u00b2_0_video_{key}_llhls.m4s",
                 f"part_0_1_\u0660_video_{key}_llhls.m4s", f"seg_{key}_\u0661_hls.ts"):
        status, _ = served_opening_nothing(publisher, b"/app/stream/" + quote(name).encode())
        assert status == 404, name


def _chunklist(publisher: Publisher) -> bytes:
    _, body = publisher.raw(b"/app/stream/llhls.m3u8")
    name = next(line for line in body.decode().splitlines() if line.startswith("chunklist") or "chunklist" in line)
    name = name.split('URI="')[1].split('"')[0] if 'URI="' in name else name
    return b"/app/stream/" + name.encode()


@pytest.mark.parametrize("method", [b"POST", b"PUT", b"DELETE", b"PATCH", b"TRACE", b"CONNECT", b"FOO"])
def test_methods_other_than_get_and_head_are_refused(publisher: Publisher, method: bytes) -> None:
    status, headers, body = publisher.exchange(b"/app/stream/llhls.m3u8", method)
    assert status in (400, 404)  # 404 as the real server answers a POST; 400 from the parser for odd methods
    if status == 404:
        assert body == b"" and b"access-control-allow-origin" not in headers


def test_every_200_allows_any_origin_and_no_refusal_does(publisher: Publisher) -> None:
    """As the real server: CORS headers on what it serves, none on its empty 404 (captures playlists/48)."""
    chunklist = _chunklist(publisher)
    for target, expected in ((b"/app/stream/llhls.m3u8", 200), (chunklist, 200), (b"/app/nostream/llhls.m3u8", 404),
                             (b"/etc/passwd", 404), (chunklist + b"?_HLS_part=1", 404),
                             (chunklist + b"?_HLS_msn=%C2%B2", 404)):
        status, headers, _ = publisher.exchange(target, headers=b"Origin: https://player.example\r\n")
        assert status == expected, target
        assert (headers.get(b"access-control-allow-origin") == b"*") == (status == 200), target


PREFLIGHTS = [b"/app/stream/llhls.m3u8", b"/app/stream/ts:playlist.m3u8", b"/app/stream/part_0_1_0_video_x_llhls.m4s",
              b"/app/stream/seg_x_1_hls.ts", b"/app/nostream/llhls.m3u8", b"/nothing"]


@pytest.mark.parametrize("target", PREFLIGHTS, ids=range(len(PREFLIGHTS)))
def test_a_preflight_is_answered_200_with_the_requested_headers_allowed(publisher: Publisher, target: bytes) -> None:
    status, headers, body = exchanged_opening_nothing(
        publisher, target, b"OPTIONS", b"Origin: https://player.example\r\nAccess-Control-Request-Method: GET\r\n"
                                      b"Access-Control-Request-Headers: x-player-token, authorization\r\n")
    assert (status, body) == (200, b"")
    assert headers[b"access-control-allow-origin"] == b"*"
    assert b"GET" in headers[b"access-control-allow-methods"]
    assert headers[b"access-control-allow-headers"] == b"x-player-token, authorization"


@pytest.mark.parametrize("requested", [b"x-a, <script>", b"x-a;y", b"a" * 2000, b"x-a,,x-b", b"\xff\xfe"])
def test_a_preflight_never_echoes_what_is_not_a_header_list(publisher: Publisher, requested: bytes) -> None:
    status, headers, _ = publisher.exchange(b"/app/stream/llhls.m3u8", b"OPTIONS",
                                            b"Access-Control-Request-Headers: " + requested + b"\r\n")
    assert status == 200 and b"access-control-allow-headers" not in headers



path_bytes = st.binary(max_size=60).map(lambda b: b.translate(bytes.maketrans(b" \r\n\t", b"%%%%")))
path_text = st.lists(st.sampled_from(["..", ".", "%2e", "%2f", "%5c", "%25", "app", "stream", "llhls.m3u8",
                                      "etc", "passwd", "", "%00", "chunklist_0_video_x_llhls.m3u8", "?", "&",
                                      "_HLS_msn=", "-1", "9" * 30, "=", ";", "#"]), max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(path_text.map(lambda parts: "/".join(parts).encode()) | path_bytes)
def test_any_request_target_is_answered_without_a_server_error(publisher: Publisher, target: bytes) -> None:
    status, body = served_opening_nothing(publisher, b"/" + target.lstrip(b"/"))
    assert status < 500
    assert b"root:" not in body
    if status == 200:
        assert body.startswith(b"#EXTM3U") or body[:1] == b"G" or b"ftyp" in body[:16] or b"moof" in body[:64]


async def test_the_publisher_keeps_serving_after_the_onslaught() -> None:
    running = await start_simulator("demo", api_port=0, publisher_port=0, seed=2, clock=ManualClock())
    try:
        async with httpx.AsyncClient(base_url=running.publisher_url, timeout=10) as http:
            for target in TRAVERSALS[:10]:
                await http.get(target.decode("latin-1"))
            assert (await http.get("/app/stream/llhls.m3u8")).status_code == 200
    finally:
        await running.stop()


def test_the_audit_hook_does_see_files_being_opened() -> None:
    global _opened
    _opened = []
    try:
        Path(__file__).read_bytes()
    finally:
        recorded, _opened = _opened, None
    assert str(Path(__file__)) in recorded


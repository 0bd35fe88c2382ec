"""The simulator as open source 0.19.0, diffed against what a real 0.19.0 answered (support/fixtures/ome-0.19.0/api).

Each capture is one request and the real server's exact reply. The same request goes to the simulator
(`--edition oss --version 0.19.0`, a scenario shaped like the captured server: virtual host `default`, application
`app`, stream `stream` pushed over RTMP) and the replies are compared: status, reason phrase, header names and
their order, the values of the fixed headers, the body's JSON keys in their order and every value's type, and
every text. Values that are live (times, byte counts, rates, the RTMP peer's port) are compared by type and format.

The differences kept on purpose are listed in KEPT below, each with its reason; README.md ("Simulator versus the
real server") says the same for a reader. Anything else that differs fails.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from sim_support import TEST_TOKEN, running_simulator

from simulator.world.clock import ManualClock
from simulator.world.scenario import parse_scenario

CAPTURES = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0" / "api"
CAPTURED_SERVER = parse_scenario("""
[media]
part_target = 0.5
segment_duration = 6.0
segment_count = 10

[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "app"
    [[vhosts.apps.streams]]
    name = "stream"
    input = "rtmp"
    bitrate_kbps = 900
    audience = 0
    permanent = true
""", "captured-0.19.0")

TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}")
LIVE = {
    # Counters and times of a running server: their type and format are the contract, not their value.
    "avgThroughputIn", "avgThroughputOut", "lastThroughputIn", "lastThroughputOut", "maxThroughputIn",
    "maxThroughputOut", "totalBytesIn", "totalBytesOut", "totalConnections", "maxTotalConnections",
    "createdTime", "lastRecvTime", "lastSentTime", "lastUpdatedTime", "maxTotalConnectionTime",
    "file", "hlsv3", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc",
    "bitrate", "bitrateAvg", "bitrateConf", "bitrateLatest", "framerateLatest", "keyFrameInterval",
    "keyFrameIntervalAvg", "keyFrameIntervalLatest", "deltaFramesSinceLastKeyFrame",
}
KEPT = {
    # Differences kept on purpose (README.md, "Simulator versus the real server"), by capture and JSON path:
    # the simulator names itself in gitVersion; the real one said "(From archive)", a tarball build.
    ("43_version.json", "response/gitVersion"): "v0.19.0-omesim",
    # an RTMP peer's address: the capture's was ffmpeg on loopback; the simulator's is a documentation address.
    ("22_stream.json", "response/input/sourceUrl"): re.compile(r"TCP://192\.0\.2\.\d+:\d+"),
    # the captured input was mono AAC at 44.1 kHz; the simulator publishes its packaged loop, stereo at 48 kHz.
    ("22_stream.json", "response/input/tracks/1/audio/channel"): 2,
    ("22_stream.json", "response/input/tracks/1/audio/samplerate"): 48000,
    # the captured server's Server.xml named its host 127.0.0.1; the simulator answers for any name.
    ("18_vhost_default.json", "response/host/names/0"): "*",
    # the captured server's HLS v3 was configured 4 s x 4; the simulator packages TS with its scenario's
    # segment settings (here those of its LL-HLS, 6 s x 10).
    ("20_app.json", "response/publishers/hls/segmentCount"): "10",
    ("20_app.json", "response/publishers/hls/segmentDuration"): "6",
}


def _captures() -> list[Path]:
    return sorted(CAPTURES.glob("*.json"))


def _authorization(captured: str, token: str) -> str:
    """The capture writes the token as <token>; the simulator's is sent in its place, spelled the same way."""
    if captured.startswith("Basic d3JvbmctdG9rZW4="):
        return "Basic d3JvbmctdG9rZW4="  # base64 of 'wrong-token', as captured
    if captured == "Basic base64(<token>:)":
        return "Basic " + base64.b64encode(f"{token}:".encode()).decode()
    return captured.replace("Basic <token>", "Basic " + base64.b64encode(token.encode()).decode()).replace(
        "<token>", token)


def _pairs(text: str) -> Any:
    """JSON with every object as its list of (key, value) pairs: key order is part of the comparison."""
    return json.loads(text, object_pairs_hook=list) if text else None


def _differences(name: str, real: Any, ours: Any, path: str = "") -> list[str]:
    kept = KEPT.get((name, path.strip("/")))
    if kept is not None:
        matches = kept.fullmatch(ours) is not None if isinstance(kept, re.Pattern) else ours == kept
        return [] if matches else [f"{path}: {ours!r}, kept difference expected {kept!r}"]
    if isinstance(real, list) and real and isinstance(real[0], tuple):  # an object
        if not (isinstance(ours, list) and all(isinstance(p, tuple) for p in ours)):
            return [f"{path}: an object expected, got {ours!r}"]
        if [k for k, _ in real] != [k for k, _ in ours]:
            return [f"{path}: keys {[k for k, _ in ours]} instead of {[k for k, _ in real]}"]
        return [d for (key, a), (_, b) in zip(real, ours, strict=True)
                for d in _differences(name, a, b, f"{path}/{key}")]
    if isinstance(real, list):
        if not isinstance(ours, list) or len(ours) != len(real):
            return [f"{path}: {ours!r} instead of a list like {real!r}"]
        return [d for index, (a, b) in enumerate(zip(real, ours, strict=True))
                for d in _differences(name, a, b, f"{path}/{index}")]
    if type(real) is not type(ours):
        return [f"{path}: {type(ours).__name__} {ours!r} instead of {type(real).__name__} {real!r}"]
    key = path.rsplit("/", 1)[-1]
    if key in LIVE:
        if isinstance(real, str) and not (TIME.fullmatch(real) and TIME.fullmatch(ours)):
            return [f"{path}: {ours!r} is not a time like {real!r}"]
        return []
    return [] if real == ours else [f"{path}: {ours!r} instead of {real!r}"]


def _header_differences(real: list[list[str]], ours: list[tuple[bytes, bytes]], body: bytes) -> list[str]:
    """Names in the captured order (uvicorn writes them in lower case: HTTP names are case-insensitive) and
    the captured values, Content-Length being the length of the simulator's own body."""
    names = [name.lower() for name, _ in real]
    got = [name.decode("latin-1").lower() for name, _ in ours]
    if got != names:
        return [f"header names {got} instead of {names}"]
    problems = []
    for (name, value), (_, ours_value) in zip(real, ours, strict=True):
        expected = str(len(body)) if name.lower() == "content-length" else value
        if ours_value.decode("latin-1") != expected:
            problems.append(f"{name}: {ours_value!r} instead of {expected!r}")
    return problems


async def test_every_captured_api_reply_of_a_real_0_19_0_is_what_the_simulator_answers() -> None:
    clock = ManualClock()
    async with running_simulator(CAPTURED_SERVER, edition="oss", version="0.19.0", clock=clock) as simulator, \
            httpx.AsyncClient(base_url=simulator.api_url, timeout=10) as http:
        clock.advance(30)  # ingest running, counters moving: the captured server had run for minutes
        report: dict[str, list[str]] = {}
        for capture in _captures():
            recorded = json.loads(capture.read_text("utf-8"))
            request, real = recorded["request"], recorded["response"]
            headers = [(name, _authorization(value, TEST_TOKEN) if name == "Authorization" else value)
                       for name, value in request["headers"] if name not in ("Host", "Content-Length")]
            body = (request["body"] or "").encode("utf-8")
            reply = await http.request(request["method"], request["path"], headers=headers,
                                       content=body if request["body"] is not None else None)
            problems = []
            if (reply.status_code, reply.reason_phrase) != (real["status"], real["reason"]):
                problems.append(f"status {reply.status_code} {reply.reason_phrase} instead of "
                                f"{real['status']} {real['reason']}")
            problems += _header_differences(real["headers"], reply.headers.raw, reply.content)
            problems += _differences(capture.name, _pairs(real["body"]), _pairs(reply.text))
            if problems:
                report[capture.name] = problems
    assert report == {}
    assert len(_captures()) == 43  # every capture was replayed


def test_the_comparison_fails_on_what_it_is_meant_to_catch() -> None:
    """A key out of order, a type changed, a text changed: each is a difference, a live value is not."""
    real = _pairs('{"message":"OK","response":{"createdTime":"2026-11-29T00:03:27.354+00:00","totalBytesIn":5},'
                  '"statusCode":200}')
    assert _differences("x", real, _pairs('{"message":"OK","response":{"createdTime":"2026-01-01T00:00:00.000+00:00",'
                                          '"totalBytesIn":9},"statusCode":200}')) == []
    assert _differences("x", real, _pairs('{"message":"OK","response":{"totalBytesIn":5,'
                                          '"createdTime":"2026-11-29T00:03:27.354+00:00"},"statusCode":200}'))
    assert _differences("x", real, _pairs('{"message":"OK","response":{"createdTime":"2026-11-29T00:03:27.354Z",'
                                          '"totalBytesIn":5},"statusCode":200}'))
    assert _differences("x", real, _pairs('{"message":"OK","response":{"createdTime":"2026-11-29T00:03:27.354+00:00",'
                                          '"totalBytesIn":5.0},"statusCode":200}'))
    assert _differences("x", real, _pairs('{"message":"Ok","response":{"createdTime":"2026-11-29T00:03:27.354+00:00",'
                                          '"totalBytesIn":5},"statusCode":200}'))
    assert _header_differences([["Vary", "Origin"], ["Server", "OvenMediaEngine"]],
                               [(b"server", b"OvenMediaEngine"), (b"vary", b"Origin")], b"")


@pytest.mark.parametrize("version", ["0.20.5", "0.21.0"])
async def test_later_versions_keep_the_captured_texts_headers_and_status(version: str) -> None:
    """What 0.19.0 shares with later open source versions (reference §2, §4, §5): the 404, 401 and 400 texts,
    the CORS headers, the preflight, 207 Multi Status."""
    async with running_simulator(CAPTURED_SERVER, edition="oss", version=version) as simulator, \
            httpx.AsyncClient(base_url=simulator.api_url, timeout=10) as http:
        for name in ("14_missing_stream.json", "53_sendEvent_get_method.json", "35_sendEvent_malformed_json.json",
                     "34_sendEvents_mixed.json", "46_options_preflight.json", "47_post_on_get_path.json",
                     "08_bearer_vhosts.json"):
            recorded = json.loads((CAPTURES / name).read_text("utf-8"))
            request, real = recorded["request"], recorded["response"]
            headers = [(n, _authorization(v, TEST_TOKEN) if n == "Authorization" else v)
                       for n, v in request["headers"] if n not in ("Host", "Content-Length")]
            reply = await http.request(request["method"], request["path"], headers=headers,
                                       content=request["body"].encode() if request["body"] is not None else None)
            assert (reply.status_code, reply.reason_phrase, reply.text) == (real["status"], real["reason"],
                                                                            real["body"]), name
            assert _header_differences(real["headers"], reply.headers.raw, reply.content) == [], name

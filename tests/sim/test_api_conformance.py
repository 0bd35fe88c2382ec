"""Conformance of the management API with the seed's tables and DECISIONS.md: status, headers, body bytes.

One simulator (demo scenario, manual clock never moved) serves the whole module, so every record is
at the world's start time and the expected bytes can be written out literally.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import httpx
import pytest
import pytest_asyncio

from simulator.http.server import RunningSimulator

SimulatorFactory = Callable[..., AbstractAsyncContextManager[RunningSimulator]]
ClientFactory = Callable[..., httpx.AsyncClient]

pytestmark = pytest.mark.asyncio(loop_scope="module")

START = "2026-01-01T00:00:00.000+00:00"  # ManualClock's default start, in the server's format
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$")
PROVIDER_KEYS = ["file", "mpegts", "multiplex", "ovt", "rtmp", "rtsp", "rtsppull", "scheduled", "srt", "webrtc"]
PUBLISHER_KEYS = ["file", "hlsv3", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc"]
CUE_OUT = b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'
REALM = 'Basic realm="OvenMediaEngine"'
TEST_TOKEN = "conformance-token"

GET_ENDPOINTS = [
    "/v2/stats/current/vhosts/default",
    "/v2/stats/current/vhosts/default/apps/app",
    "/v2/stats/current/vhosts/default/apps/app/streams/stream",
    "/v1/stats/current",
    "/v1/stats/current/vhosts/default",
    "/v1/stats/current/vhosts/default/apps/app",
    "/v1/stats/current/vhosts/default/apps/app/streams/stream",
    "/v1/version",
    "/v1/vhosts",
    "/v1/vhosts/default/apps",
    "/v1/vhosts/default/apps/app/streams",
    "/v1/vhosts/default/apps/app/streams/stream",
    "/v1/openapi.json",
]
POST_ENDPOINTS = [
    ("/v1/vhosts/default/apps/app/streams/stream:sendEvent", CUE_OUT),
    ("/v1/vhosts/default/apps/app/streams/stream:sendEvents", b"[" + CUE_OUT + b"]"),
]
ALL_ENDPOINTS = [("GET", path, None) for path in GET_ENDPOINTS] + [("POST", p, b) for p, b in POST_ENDPOINTS]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def sim(simulator_factory: SimulatorFactory) -> AsyncIterator[RunningSimulator]:
    async with simulator_factory("demo", access_token=TEST_TOKEN) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def http(sim: RunningSimulator, client_factory: ClientFactory) -> AsyncIterator[httpx.AsyncClient]:
    async with client_factory(sim) as client:
        yield client


def canonical(body: bytes) -> bytes:
    """The body as jsoncpp would write the same value: compact, keys sorted, non-ASCII escaped."""
    return json.dumps(json.loads(body), separators=(",", ":"), sort_keys=True, ensure_ascii=True).encode()


def assert_json(response: httpx.Response, status: int, body: bytes | None = None) -> object:
    assert response.status_code == status, response.content
    assert response.headers["content-type"] == "application/json;charset=UTF-8"
    assert response.headers["server"] == "OvenMediaEngine"
    assert int(response.headers["content-length"]) == len(response.content)
    assert not response.content.endswith(b"\n")
    assert response.content == canonical(response.content)
    if body is not None:
        assert response.content == body
    return json.loads(response.content)


def error(status: int, text: str) -> bytes:
    return json.dumps({"message": f"[HTTP] {text} ({status})", "statusCode": status},
                      separators=(",", ":"), ensure_ascii=True).encode()


def basic(token: str) -> str:
    return "Basic " + base64.b64encode(token.encode()).decode()


# -- success ------------------------------------------------------------------------------------------


def check_v2_record(record: dict[str, object]) -> None:
    assert sorted(record) == ["createdTime", "lastUpdatedTime", "providers", "publishers"]
    providers, publishers = record["providers"], record["publishers"]
    assert isinstance(providers, dict) and isinstance(publishers, dict)
    assert sorted(providers) == ["avgThroughputIn", "connections", "lastRecvTime", "lastThroughputIn",
                                 "maxThroughputIn", "totalBytesIn"]
    assert sorted(publishers) == ["avgThroughputOut", "connections", "lastSentTime", "lastThroughputOut",
                                  "maxThroughputOut", "maxTotalConnectionTime", "maxTotalConnections",
                                  "totalBytesOut", "totalConnections"]
    assert list(providers["connections"]) == PROVIDER_KEYS
    assert list(publishers["connections"]) == PUBLISHER_KEYS
    for section in (providers, publishers):
        for key, value in section.items():
            if key.endswith("Time"):
                assert TIMESTAMP.match(value), value
            elif key == "connections":
                assert all(type(v) is int and v >= 0 for v in value.values())
            else:
                assert type(value) is int and value >= 0, (key, value)
    assert TIMESTAMP.match(record["createdTime"]) and TIMESTAMP.match(record["lastUpdatedTime"])
    assert publishers["totalConnections"] == sum(publishers["connections"].values())
    assert publishers["maxTotalConnections"] >= publishers["totalConnections"]


V1_KEYS = ["avgThroughputIn", "avgThroughputOut", "connections", "createdTime", "lastRecvTime", "lastSentTime",
           "lastThroughputIn", "lastThroughputOut", "lastUpdatedTime", "maxThroughputIn", "maxThroughputOut",
           "maxTotalConnectionTime", "maxTotalConnections", "totalBytesIn", "totalBytesOut", "totalConnections"]


@pytest.mark.parametrize("path", GET_ENDPOINTS[:3])
async def test_v2_stats_success_is_the_seed_record_in_the_envelope(http: httpx.AsyncClient, path: str) -> None:
    body = assert_json(await http.get(path), 200)
    assert isinstance(body, dict) and sorted(body) == ["message", "response", "statusCode"]
    assert body["message"] == "OK" and body["statusCode"] == 200
    check_v2_record(body["response"])


async def test_v2_stream_record_at_start_is_exact_for_the_unwatched_stream(http: httpx.AsyncClient) -> None:
    # app/backup has an mpegts input and nobody watching: seed rule 2, to the byte.
    zero_pub = ",".join(f'"{k}":0' for k in PUBLISHER_KEYS)
    prov = ",".join(f'"{k}":{1 if k == "mpegts" else 0}' for k in PROVIDER_KEYS)
    expected = (
        '{"message":"OK","response":{'
        f'"createdTime":"{START}","lastUpdatedTime":"{START}",'
        f'"providers":{{"avgThroughputIn":0,"connections":{{{prov}}},"lastRecvTime":"{START}",'
        '"lastThroughputIn":0,"maxThroughputIn":0,"totalBytesIn":0},'
        f'"publishers":{{"avgThroughputOut":0,"connections":{{{zero_pub}}},"lastSentTime":"{START}",'
        '"lastThroughputOut":0,"maxThroughputOut":0,'
        f'"maxTotalConnectionTime":"{START}","maxTotalConnections":0,"totalBytesOut":0,"totalConnections":0}}}},'
        '"statusCode":200}'
    ).encode()
    assert_json(await http.get("/v2/stats/current/vhosts/default/apps/app/streams/backup"), 200, expected)


async def test_v2_stream_record_counts_its_input_protocol(http: httpx.AsyncClient) -> None:
    expected_inputs = {"stream": "rtmp", "news": "srt", "sports": "webrtc", "backup": "mpegts"}
    for name, protocol in expected_inputs.items():
        body = assert_json(await http.get(f"/v2/stats/current/vhosts/default/apps/app/streams/{name}"), 200)
        connections = body["response"]["providers"]["connections"]  # type: ignore[index]
        assert connections == {k: int(k == protocol) for k in PROVIDER_KEYS}


async def test_v2_parent_records_count_every_live_child(http: httpx.AsyncClient) -> None:
    vhost = assert_json(await http.get("/v2/stats/current/vhosts/default"), 200)["response"]  # type: ignore[index]
    inputs = vhost["providers"]["connections"]
    assert sum(inputs.values()) == 8  # the demo's eight streams, each with one input
    assert {k for k, v in inputs.items() if v} == {"rtmp", "srt", "webrtc", "mpegts", "ovt"}
    total = 0
    for app in ("app", "live"):
        record = assert_json(await http.get(f"/v2/stats/current/vhosts/default/apps/{app}"), 200)["response"]  # type: ignore[index]
        total += record["publishers"]["totalConnections"]
    assert vhost["publishers"]["totalConnections"] == total


@pytest.mark.parametrize("path", GET_ENDPOINTS[3:7])
async def test_v1_stats_success_is_the_open_source_shape(http: httpx.AsyncClient, path: str) -> None:
    body = assert_json(await http.get(path), 200)
    record = body["response"]  # type: ignore[index]
    assert list(record) == V1_KEYS
    assert list(record["connections"]) == PUBLISHER_KEYS
    for key in V1_KEYS:
        if key.endswith("Time"):
            assert TIMESTAMP.match(record[key])
        elif key != "connections":
            assert type(record[key]) is int


async def test_v1_and_v2_records_agree(http: httpx.AsyncClient) -> None:
    v1 = assert_json(await http.get("/v1/stats/current/vhosts/default/apps/live"), 200)["response"]  # type: ignore[index]
    v2 = assert_json(await http.get("/v2/stats/current/vhosts/default/apps/live"), 200)["response"]  # type: ignore[index]
    assert v1["connections"] == v2["publishers"]["connections"]
    assert v1["totalConnections"] == v2["publishers"]["totalConnections"]
    assert v1["maxTotalConnections"] == v2["publishers"]["maxTotalConnections"]
    assert v1["createdTime"] == v2["createdTime"] == START


async def test_version_reports_an_edition_with_events(http: httpx.AsyncClient) -> None:
    body = assert_json(await http.get("/v1/version"), 200)
    response = body["response"]  # type: ignore[index]
    assert sorted(response) == ["gitVersion", "version"]
    numbers = tuple(int(n) for n in re.split(r"[.-]", response["version"]))
    assert numbers >= (0, 17, 3, 0, 1)


async def test_listings_are_name_arrays_in_creation_order(http: httpx.AsyncClient) -> None:
    assert_json(await http.get("/v1/vhosts"), 200, b'{"message":"OK","response":["default"],"statusCode":200}')
    assert_json(await http.get("/v1/vhosts/default/apps"), 200,
                b'{"message":"OK","response":["app","live"],"statusCode":200}')
    assert_json(await http.get("/v1/vhosts/default/apps/app/streams"), 200,
                b'{"message":"OK","response":["stream","news","sports","backup"],"statusCode":200}')
    assert_json(await http.get("/v1/vhosts/default/apps/live/streams"), 200,
                b'{"message":"OK","response":["concert","lobby-cam","studio-b","church"],"statusCode":200}')


async def test_stream_info_describes_input_tracks_and_outputs(http: httpx.AsyncClient) -> None:
    response = await http.get("/v1/vhosts/default/apps/app/streams/stream")
    info = assert_json(response, 200)["response"]  # type: ignore[index]
    assert info["name"] == "stream"
    source = info["input"]
    assert source["sourceType"] == "Rtmp" and "sourceUrl" not in source  # pushed input: no URL, never ""
    assert source["createdTime"] == START
    video = next(t for t in source["tracks"] if t["type"] == "Video")["video"]
    assert video["codec"] == "H264" and (video["width"], video["height"]) == (640, 360)  # the loop it publishes
    assert video["framerate"] == 30.0 and b'"framerate":30.0' in response.content  # jsoncpp writes 30.0
    assert video["keyFrameInterval"] == 30.0 and type(video["bitrate"]) is int
    assert video["maxFramerate"] == 30.0  # the highest frame rate seen (required by the vendor's document)
    data = next(t for t in source["tracks"] if t["type"] == "Data")
    assert "data" not in data  # 0.20.5 (this edition's version) writes no data object; 0.21 does
    audio = next(t for t in source["tracks"] if t["type"] == "Audio")["audio"]
    assert audio["codec"] == "AAC" and audio["samplerate"] == 48000
    output = info["outputs"][0]
    assert output["tracks"] and output["playlists"][0]["fileName"] == "llhls"
    pulled = assert_json(await http.get("/v1/vhosts/default/apps/live/streams/concert"), 200)["response"]  # type: ignore[index]
    assert pulled["input"]["sourceType"] == "Ovt"
    assert pulled["input"]["sourceUrl"].startswith("ovt://")


async def test_openapi_document_lists_every_endpoint(http: httpx.AsyncClient) -> None:
    doc = assert_json(await http.get("/v1/openapi.json"), 200)
    assert isinstance(doc, dict) and doc["openapi"].startswith("3.")
    paths = set(doc["paths"])
    for path in ["/v2/stats/current/vhosts/{vhost}", "/v2/stats/current/vhosts/{vhost}/apps/{app}",
                 "/v2/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}", "/v1/version", "/v1/vhosts",
                 "/v1/vhosts/{vhost}/apps/{app}/streams/{stream}:sendEvent",
                 "/v1/vhosts/{vhost}/apps/{app}/streams/{stream}:sendEvents"]:
        assert path in paths
    # Every $ref resolves inside the document.
    text = json.dumps(doc)
    for ref in set(re.findall(r'"\$ref": "#/components/schemas/(\w+)"', text)):
        assert ref in doc["components"]["schemas"]


@pytest.mark.parametrize(("path", "body"), POST_ENDPOINTS)
async def test_send_operations_answer_ok_without_response(http: httpx.AsyncClient, path: str, body: bytes) -> None:
    assert_json(await http.post(path, content=body), 200, b'{"message":"OK","statusCode":200}')


async def test_query_string_is_ignored(http: httpx.AsyncClient) -> None:
    plain = await http.get("/v1/vhosts")
    assert (await http.get("/v1/vhosts?x=1&y")).content == plain.content


# -- authentication ---------------------------------------------------------------------------------

AUTH_FAILURES = [
    (None, "Authorization header is required to call API"),
    ("Bearer " + base64.b64encode(TEST_TOKEN.encode()).decode(), "Not supported credential type: Bearer"),
    ("Digest abc", "Not supported credential type: Digest"),
    (basic("wrong-token"), "Invalid credential"),
    (basic(TEST_TOKEN + "x"), "Invalid credential"),
    (basic(TEST_TOKEN[:-1]), "Invalid credential"),
    ("Basic", "Invalid authorization header"),
    (basic(TEST_TOKEN) + " extra", "Invalid authorization header"),
    ("Basic  " + basic(TEST_TOKEN)[6:], "Invalid authorization header"),  # two spaces: three tokens
    ("Basic ====", "Invalid credential format"),  # decodes to nothing
    ("Basic !!!!", "Invalid credential format"),
]


@pytest.mark.parametrize(("header", "message"), AUTH_FAILURES)
async def test_every_endpoint_refuses_bad_credentials(sim: RunningSimulator, header: str | None, message: str) -> None:
    headers = {"Authorization": header} if header is not None else {}
    stream = sim.world.find_stream("default", "app", "stream")
    assert stream is not None
    before = len(stream.events.events)
    async with httpx.AsyncClient(base_url=sim.api_url, headers=headers) as anonymous:
        for method, path, body in ALL_ENDPOINTS:
            response = await anonymous.request(method, path, content=body)
            assert_json(response, 401, error(401, message))
            assert response.headers["www-authenticate"] == REALM, path
    assert len(stream.events.events) == before


@pytest.mark.parametrize("path", ["/nope", "/v1/nope", "/v2/stats/current/vhosts/nope", "/"])
async def test_authentication_comes_before_routing(sim: RunningSimulator, path: str) -> None:
    async with httpx.AsyncClient(base_url=sim.api_url) as anonymous:
        response = await anonymous.get(path)
    assert_json(response, 401, error(401, "Authorization header is required to call API"))
    assert response.headers["www-authenticate"] == REALM


async def test_scheme_is_case_insensitive(sim: RunningSimulator) -> None:
    async with httpx.AsyncClient(base_url=sim.api_url) as raw:
        for scheme in ("basic", "BASIC", "bAsIc"):
            response = await raw.get("/v1/vhosts", headers={"Authorization": f"{scheme} {basic(TEST_TOKEN)[6:]}"})
            assert response.status_code == 200


@pytest.mark.parametrize("path", ["/v1/vhosts", "/v2/stats/current/vhosts/default", "/nope",
                                  "/v1/vhosts/default/apps/app/streams/stream:sendEvent"])
async def test_options_answers_204_without_authentication(sim: RunningSimulator, path: str) -> None:
    async with httpx.AsyncClient(base_url=sim.api_url) as anonymous:
        response = await anonymous.options(path)
    assert response.status_code == 204
    assert response.content == b""
    assert "www-authenticate" not in response.headers
    assert "GET" in response.headers["access-control-allow-methods"]


# -- 404 at each level --------------------------------------------------------------------------------

VHOST_404 = error(404, "Could not find the virtual host: [nope]")
APP_404 = error(404, "Could not find the application: [default/nope]")
STREAM_404 = error(404, "Could not find the stream: [default/app/nope]")
LEVEL_404 = [
    ("vhosts/nope", VHOST_404),
    ("vhosts/nope/apps/app", VHOST_404),
    ("vhosts/default/apps/nope", APP_404),
    ("vhosts/nope/apps/app/streams/stream", VHOST_404),
    ("vhosts/default/apps/nope/streams/stream", APP_404),
    ("vhosts/default/apps/app/streams/nope", STREAM_404),
    ("vhosts/default/apps/live/streams/stream", error(404, "Could not find the stream: [default/live/stream]")),
]


@pytest.mark.parametrize("prefix", ["/v2/stats/current/", "/v1/stats/current/"])
@pytest.mark.parametrize(("path", "expected"), LEVEL_404)
async def test_stats_404_at_each_level(http: httpx.AsyncClient, prefix: str, path: str, expected: bytes) -> None:
    assert_json(await http.get(prefix + path), 404, expected)


@pytest.mark.parametrize(("path", "expected"), [
    ("/v1/vhosts/nope/apps", VHOST_404),
    ("/v1/vhosts/nope/apps/app/streams", VHOST_404),
    ("/v1/vhosts/default/apps/nope/streams", APP_404),
    ("/v1/vhosts/nope/apps/app/streams/stream", VHOST_404),
    ("/v1/vhosts/default/apps/nope/streams/stream", APP_404),
    ("/v1/vhosts/default/apps/app/streams/nope", STREAM_404),
    # A GET on an action path names a stream "stream:sendEvent", as on the real server.
    ("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
     error(404, "Could not find the stream: [default/app/stream:sendEvent]")),
    ("/v2/stats/current/vhosts/", error(404, "Could not find the virtual host: []")),
])
async def test_listing_and_info_404_at_each_level(http: httpx.AsyncClient, path: str, expected: bytes) -> None:
    assert_json(await http.get(path), 404, expected)


@pytest.mark.parametrize("action", ["sendEvent", "sendEvents"])
@pytest.mark.parametrize(("path", "expected"), LEVEL_404[3:])
async def test_send_404_at_each_level_applies_nothing(
    sim: RunningSimulator, http: httpx.AsyncClient, action: str, path: str, expected: bytes
) -> None:
    body = CUE_OUT if action == "sendEvent" else b"[" + CUE_OUT + b"]"
    before = sum(len(s.events.events) for s in sim.world.streams_by_row)
    assert_json(await http.post(f"/v1/{path}:{action}", content=body), 404, expected)
    assert sum(len(s.events.events) for s in sim.world.streams_by_row) == before


CONTROLLER_NOT_FOUND = error(404, "Controller not found")


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/"),
    ("GET", "/v3/stats/current/vhosts/default"),
    ("GET", "/v1/nope"),
    ("GET", "/v1/stats"),
    ("GET", "/v2/stats/current"),
    ("GET", "/v2/stats/history/vhosts/default"),
    ("GET", "/v2/stats/current/vhosts/default/apps/app/streams/stream/extra"),
    ("GET", "/v1/vhosts/default/apps/app/streams/stream/extra"),
    ("PUT", "/v1/vhosts"),
    ("DELETE", "/v2/stats/current/vhosts/default"),
    ("PATCH", "/v1/vhosts/default/apps/app"),
    ("POST", "/v2/stats/current/vhosts/default"),
    ("POST", "/v1/vhosts/default/apps/app/streams/stream"),
    ("POST", "/v1/vhosts/default/apps/app/streams/stream:unknownAction"),
    ("POST", "/v1/vhosts/default/apps/app:sendEvent"),
    ("GET", "/v1/vhosts/default/apps/app/streams/stream:sendEvents/x"),
])
async def test_unknown_path_or_method_is_controller_not_found(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    assert_json(await http.request(method, path, content=CUE_OUT if method != "GET" else None),
                404, CONTROLLER_NOT_FOUND)


# -- names with odd characters ------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "shown"), [
    ("a%20b", "a b"),
    ("quote%22and%5Cbackslash", 'quote\\"and\\\\backslash'),
    ("%C3%A9t%C3%A9", "\\u00e9t\\u00e9"),
    ("cam%F0%9F%8E%A5", "cam\\ud83c\\udfa5"),
    ("bad%FFbyte", "bad\\ufffdbyte"),
    ("tab%09nl%0A", "tab\\tnl\\n"),
    ("%2F", "/"),
    ("%25", "%"),
    ("x:y", "x:y"),
])
async def test_odd_names_are_echoed_escaped_in_404(http: httpx.AsyncClient, raw: str, shown: str) -> None:
    expected = ('{"message":"[HTTP] Could not find the virtual host: [' + shown + '] (404)","statusCode":404}')
    assert_json(await http.get(f"/v2/stats/current/vhosts/{raw}"), 404, expected.encode())


async def test_very_long_name_is_a_plain_404(http: httpx.AsyncClient) -> None:
    name = "n" * 4000
    assert_json(await http.get(f"/v2/stats/current/vhosts/{name}"), 404,
                error(404, f"Could not find the virtual host: [{name}]"))


async def test_repeated_reads_are_identical_whatever_the_header_spelling(sim: RunningSimulator) -> None:
    path = "/v2/stats/current/vhosts/default/apps/live/streams/concert"
    token = base64.b64encode(TEST_TOKEN.encode()).decode()
    replies = []
    for header in (f"Basic {token}", f"Basic {token}", f"basic {token}", f"BASIC {token.rstrip('=')}"):
        async with httpx.AsyncClient(base_url=sim.api_url, headers={"Authorization": header}) as client:
            replies.append(await client.get(path))
    for reply in replies:
        assert_json(reply, 200, replies[0].content)
        assert reply.headers["content-length"] == replies[0].headers["content-length"]


async def test_json_writer_escapes_non_ascii_like_the_real_server_and_leaves_del_raw() -> None:
    """jsoncpp writes non-ASCII as lowercase \\u escapes (surrogate pairs above U+FFFF) and DEL raw;
    a literal backslash-u text stays escaped as text."""
    from simulator.http.wire_json import encode

    value = {"m": "a\x7f\u00e9/\U0001f600\n\\u007f"}
    assert encode(value) == b'{"m":"a\x7f\\u00e9/\\ud83d\\ude00\\n\\\\u007f"}'
    assert json.loads(encode(value)) == value

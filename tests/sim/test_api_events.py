"""sendEvent / sendEvents: every 400 rule with its exact text, body limits, and what reaches the stream.

Accepted events must land on the stream in order with the exact bodies sent; a refused request
must apply nothing. One simulator serves the module; each test compares a stream's event log
before and after.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
import pytest
import pytest_asyncio

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.events import AcceptedEvent
from simulator.world.scenario import parse_scenario
from simulator.world.wire import CueEvent, CueEventSet, Id3EventSet

pytestmark = pytest.mark.asyncio(loop_scope="module")

SimulatorFactory = Callable[..., AbstractAsyncContextManager[RunningSimulator]]
ClientFactory = Callable[..., httpx.AsyncClient]

STREAM = "/v1/vhosts/default/apps/app/streams/stream"
SEND_EVENT = STREAM + ":sendEvent"
SEND_EVENTS = STREAM + ":sendEvents"
OK = b'{"message":"OK","statusCode":200}'
CUE_OUT = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
CUE_IN = {"eventFormat": "cue", "events": [{"cueType": "in"}]}
ID3 = {"eventFormat": "id3v2", "eventType": "video",
       "events": [{"frameType": "TXXX", "info": "ad", "data": "break-1"}, {"frameType": "TIT2", "data": "Title"}]}
LIMIT = 1024 * 1024


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def clock() -> ManualClock:
    return ManualClock()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def sim(simulator_factory: SimulatorFactory, clock: ManualClock) -> AsyncIterator[RunningSimulator]:
    async with simulator_factory("demo", clock=clock) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def http(sim: RunningSimulator, client_factory: ClientFactory) -> AsyncIterator[httpx.AsyncClient]:
    async with client_factory(sim) as client:
        yield client


def events_of(sim: RunningSimulator, app: str = "app", stream: str = "stream") -> list[AcceptedEvent]:
    found = sim.world.find_stream("default", app, stream)
    assert found is not None
    return found.events.events


def all_event_counts(sim: RunningSimulator) -> list[int]:
    return [len(s.events.events) for s in sim.world.streams_by_row]


def error(status: int, text: str) -> bytes:
    return json.dumps({"message": f"[HTTP] {text} ({status})", "statusCode": status},
                      separators=(",", ":"), ensure_ascii=True).encode()


def as_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def assert_reply(response: httpx.Response, status: int, body: bytes) -> None:
    assert (response.status_code, response.content) == (status, body)
    assert response.headers["content-type"] == "application/json;charset=UTF-8"


@pytest.fixture
def unchanged(sim: RunningSimulator) -> Iterator[None]:
    """Asserts that the test applied no event to any stream."""
    before = all_event_counts(sim)
    yield
    assert all_event_counts(sim) == before


# -- acceptance -------------------------------------------------------------------------------------


async def test_send_event_hands_the_cue_to_the_stream(
    sim: RunningSimulator, http: httpx.AsyncClient, clock: ManualClock
) -> None:
    log = events_of(sim)
    before = len(log)
    clock.advance(2.5)
    assert_reply(await http.post(SEND_EVENT, json=CUE_OUT), 200, OK)
    assert len(log) == before + 1
    event = log[-1]
    assert event.body == CUE_OUT
    assert event.accepted_ms == clock.now_ms()
    assert isinstance(event.event_set, CueEventSet)
    assert event.event_set.events[0].cueType == "out" and event.event_set.events[0].duration == 30000


async def test_send_events_hands_every_set_over_in_order(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    log = events_of(sim, "live", "concert")
    before = len(log)
    bodies = [CUE_OUT, ID3, CUE_IN]
    assert_reply(await http.post("/v1/vhosts/default/apps/live/streams/concert:sendEvents", json=bodies), 200, OK)
    new = log[before:]
    assert [e.body for e in new] == bodies
    assert [e.seq for e in new] == sorted(e.seq for e in new) and len({e.seq for e in new}) == 3
    assert isinstance(new[1].event_set, Id3EventSet)
    assert new[1].event_set.eventType == "video"
    assert [(f.frameType, f.info, f.data) for f in new[1].event_set.events] == [
        ("TXXX", "ad", "break-1"), ("TIT2", None, "Title")]


async def test_events_go_only_to_the_named_stream(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    before = all_event_counts(sim)
    assert_reply(await http.post("/v1/vhosts/default/apps/app/streams/news:sendEvent", json=CUE_IN), 200, OK)
    after = all_event_counts(sim)
    news = sim.world.find_stream("default", "app", "news")
    assert news is not None
    assert [a - b for a, b in zip(after, before, strict=False)] == [int(i == news.row) for i in range(len(before))]


async def test_unknown_fields_are_ignored_and_kept_in_the_body(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    body = {"eventFormat": "CUE", "extra": {"nested": [1, 2]}, "urgent": True,
            "events": [{"cueType": "OUT", "duration": 60000, "note": "x"}]}
    assert_reply(await http.post(SEND_EVENT, json=body), 200, OK)
    event = events_of(sim)[-1]
    assert event.body == body
    assert event.event_set == CueEventSet(events=(CueEvent(cueType="out", duration=60000),), urgent=True)


async def test_send_event_accepts_an_id3_set_too(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    body = {"eventFormat": "id3v2", "eventTarget": "video", "events": [{"frameType": "priv", "info": "owner"}]}
    assert_reply(await http.post(SEND_EVENT, json=body), 200, OK)
    event_set = events_of(sim)[-1].event_set
    assert isinstance(event_set, Id3EventSet)
    assert event_set.eventType == "video" and event_set.events[0].frameType == "PRIV"


async def test_id3_event_type_defaults_to_event(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    body = [{"eventFormat": "id3v2", "events": [{"frameType": "TPE1", "data": "Artist"}]}]
    assert_reply(await http.post(SEND_EVENTS, json=body), 200, OK)
    event_set = events_of(sim)[-1].event_set
    assert isinstance(event_set, Id3EventSet) and event_set.eventType == "event"


async def test_nesting_of_64_levels_is_accepted(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    # object (1) > events array (2) > event object (3) > 61 nested arrays: 64 levels in all.
    body = b'{"eventFormat":"cue","events":[{"cueType":"in","deep":' + b"[" * 61 + b"]" * 61 + b"}]}"
    assert_reply(await http.post(SEND_EVENT, content=body), 200, OK)
    assert events_of(sim)[-1].body == json.loads(body)


async def test_a_body_of_exactly_the_limit_is_read(sim: RunningSimulator, http: httpx.AsyncClient) -> None:
    compact = json.dumps(CUE_IN).encode()
    body = compact + b" " * (LIMIT - len(compact))
    assert_reply(await http.post(SEND_EVENT, content=body), 200, OK)
    assert events_of(sim)[-1].body == CUE_IN


# -- 400: each rule, exact text, nothing applied -------------------------------------------------------

REQUIRED = "eventFormat(string) and events(array) are required"
DURATION = "duration must be an integer from 1 to 86400000 milliseconds"
SEND_EVENT_RULES: list[tuple[bytes, str]] = [
    (b"", REQUIRED),  # no body is JSON null on the real server
    (b"null", REQUIRED),
    (b"[]", REQUIRED),
    (b'"cue"', REQUIRED),
    (b"42", REQUIRED),
    (b"{}", REQUIRED),
    (as_json({"events": [{"cueType": "in"}]}), REQUIRED),
    (as_json({"eventFormat": 1, "events": [{"cueType": "in"}]}), REQUIRED),
    (as_json({"eventFormat": "cue"}), REQUIRED),
    (as_json({"eventFormat": "cue", "events": {"cueType": "in"}}), REQUIRED),
    (as_json({"eventFormat": "cue", "events": []}), REQUIRED),
    (as_json({"eventFormat": "scte35", "events": [{}]}), "eventFormat is not supported: [scte35]"),
    (as_json({"eventFormat": "Foo", "events": [{}]}), "eventFormat is not supported: [Foo]"),
    (as_json({**CUE_IN, "urgent": "yes"}), "urgent must be boolean"),
    (as_json({**CUE_IN, "urgent": 1}), "urgent must be boolean"),
    (as_json({"eventFormat": "cue", "events": [1]}), "cueType is required in events"),
    (as_json({"eventFormat": "cue", "events": [{}]}), "cueType is required in events"),
    (as_json({"eventFormat": "cue", "events": [{"cueType": 1}]}), "cueType is required in events"),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "cont"}]}), "cueType is not supported: [cont]"),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out"}]}),
     "duration(integer, milliseconds) is required for cueType out"),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": None}]}),
     "duration(integer, milliseconds) is required for cueType out"),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": 0}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": -1}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": 1.5}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000.0}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": "30000"}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": True}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "out", "duration": 86_400_001}]}), DURATION),
    (as_json({"eventFormat": "cue", "events": [{"cueType": "in"}, {"cueType": "pause"}]}),
     "cueType is not supported: [pause]"),
    (as_json({"eventFormat": "id3v2", "events": [{}]}), "frameType is required in events"),
    (as_json({"eventFormat": "id3v2", "events": ["TXXX"]}), "frameType is required in events"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": 5}]}), "frameType is required in events"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "APIC"}]}), "frameType is not supported: [APIC]"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "TX"}]}), "frameType is not supported: [TX]"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "T!T2"}]}), "frameType is not supported: [T!T2]"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": 1}]}), "info must be string"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "data": []}]}), "data must be string"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "PRIV", "info": "a\u0000b"}]}),
     "info of a PRIV frame must not contain NUL"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "PRIV", "info": "owner-\u0100", "data": "x"}]}),
     "info of a PRIV frame must be Latin-1 text"),
    (as_json({"eventFormat": "id3v2", "eventType": 1, "events": [{"frameType": "TIT2"}]}),
     "eventType must be string"),
    (as_json({"eventFormat": "id3v2", "eventType": "subtitle", "events": [{"frameType": "TIT2"}]}),
     "eventType is not supported: [subtitle]"),
    (as_json({"eventFormat": "id3v2", "eventTarget": False, "events": [{"frameType": "TIT2"}]}),
     "eventTarget must be string"),
    (as_json({"eventFormat": "id3v2", "eventType": "video", "eventTarget": "audio",
              "events": [{"frameType": "TIT2"}]}), "eventType and eventTarget differ: [video] [audio]"),
    (as_json({"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "data": "x" * 70_000}]}),
     "ID3 tag is too large: 70022 bytes (limit 65535)"),
]


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(("body", "message"), SEND_EVENT_RULES)
async def test_send_event_refuses_each_broken_rule(http: httpx.AsyncClient, body: bytes, message: str) -> None:
    assert_reply(await http.post(SEND_EVENT, content=body), 400, error(400, message))


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(("body", "message"), SEND_EVENT_RULES[6:])
async def test_send_events_names_the_bad_element_and_applies_nothing(
    http: httpx.AsyncClient, body: bytes, message: str
) -> None:
    batch = b"[" + as_json(CUE_OUT) + b"," + as_json(ID3) + b"," + body + b"]"
    assert_reply(await http.post(SEND_EVENTS, content=batch), 400, error(400, f"events[2]: {message}"))


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("body", [b"", b"null", b"{}", b"[]", as_json(CUE_OUT), b'"x"', b"0"])
async def test_send_events_needs_a_non_empty_array(http: httpx.AsyncClient, body: bytes) -> None:
    assert_reply(await http.post(SEND_EVENTS, content=body), 400, error(400, "events(array) is required"))


@pytest.mark.usefixtures("unchanged")
async def test_only_the_first_bad_element_is_named(http: httpx.AsyncClient) -> None:
    batch = [CUE_OUT, {"eventFormat": "nope", "events": [{}]}, {}]
    assert_reply(await http.post(SEND_EVENTS, json=batch), 400,
                 error(400, "events[1]: eventFormat is not supported: [nope]"))


# -- bodies the JSON reader refuses ------------------------------------------------------------------

SYNTAX = "* Line 1, Column 1\n  Syntax error: value, object or array expected.\n"


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("url", [SEND_EVENT, SEND_EVENTS])
@pytest.mark.parametrize(("body", "reason"), [
    (b"garbage", SYNTAX),
    (b"}", SYNTAX),
    (b"NaN", SYNTAX),  # not JSON to the real server either: reported where it starts
    (b'{"eventFormat":"cue","events":[{"cueType":"out","duration":Infinity}]}',
     "* Line 1, Column 60\n  Syntax error: value, object or array expected.\n"),
    (b'{"eventFormat":"cue","events":[{"cueType":"out","duration":' + b"9" * 5000 + b"}]}",
     "Integer with more than 4300 digits\n"),
    (b'{"eventFormat":"\\ud800","events":[{}]}', "* Line 1, Column 16\n  additional six characters expected to parse "
     "unicode surrogate pair.\nSee Line 1, Column 23 for detail.\n"),  # a high surrogate: jsoncpp wants its pair
    (b'[{"eventFormat":"id3v2","events":[{"frameType":"TXXX","data":"\\udfff"}]}]',
     "Unpaired UTF-16 surrogate (\\ud800-\\udfff) in a string\n"),
    (b'{"eventFormat":"cue","ev\xffents":[]}', "* Line 1, Column 25\n  Invalid UTF-8 sequence in request body\n"),
    (b'{"a":\n"\xc3"}', "* Line 2, Column 2\n  Invalid UTF-8 sequence in request body\n"),
    (b'{"eventFormat":"cue","events":[{"cueType":"in","deep":' + b"[" * 62 + b"]" * 62 + b"}]}",
     "Exceeded stackLimit in readValue(): more than 64 levels of nesting\n"),
    (b"[" * 200_000, "Exceeded stackLimit in readValue(): more than 64 levels of nesting\n"),
])
async def test_unreadable_bodies_are_json_errors(http: httpx.AsyncClient, url: str, body: bytes, reason: str) -> None:
    assert_reply(await http.post(url, content=body), 400, error(400, f"[JSON] {reason}"))


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(("body", "reason"), [
    (b"{", "* Line 1, Column 2\n  Missing '}' or object member name\n"),
    (b'{"eventFormat" "cue"}', "* Line 1, Column 16\n  Missing ':' after object member name\n"),
    (b"[1,2", "* Line 1, Column 5\n  Missing ',' or ']' in array declaration\n"),
    (b'{"eventFormat":"cue",\n "events":[{"cueType":"out" "duration":1}]}',
     "* Line 2, Column 29\n  Missing ',' or '}' in object declaration\n"),
    (b'{"eventFormat":"cue","events":[{"cueType":"out","duration":1e}]}',
     "* Line 1, Column 60\n  '1e' is not a number.\n"),
    (b'{"eventFormat":"id3v2","events":[{"frameType":"TXXX","data":"\\q"}]}',
     "* Line 1, Column 61\n  Bad escape sequence in string\nSee Line 1, Column 64 for detail.\n"),
])
async def test_malformed_json_names_where_it_broke(http: httpx.AsyncClient, body: bytes, reason: str) -> None:
    """jsoncpp's report: the line and byte column where the offending token starts, and its wording."""
    assert_reply(await http.post(SEND_EVENT, content=body), 400, error(400, f"[JSON] {reason}"))


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("body", [b'{"eventFormat":"cue",}', b"{} x", b'/* a comment */ {"eventFormat":"cue"}'])
async def test_what_the_servers_json_reader_accepts_reaches_the_rules(http: httpx.AsyncClient, body: bytes) -> None:
    """A trailing comma, text after the value and comments are JSON to the real server's reader: the body is
    then judged by the sendEvent rules, not refused as malformed."""
    assert_reply(await http.post(SEND_EVENT, content=body), 400,
                 error(400, "eventFormat(string) and events(array) are required"))


@pytest.mark.usefixtures("unchanged")
async def test_json_is_read_before_the_stream_is_looked_up(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/vhosts/default/apps/app/streams/nope:sendEvent", content=b"garbage")
    assert_reply(response, 400, error(400, f"[JSON] {SYNTAX}"))
    # A readable but invalid body on a missing stream: the stream's 404 comes first.
    response = await http.post("/v1/vhosts/default/apps/app/streams/nope:sendEvent", content=b"{}")
    assert_reply(response, 404, error(404, "Could not find the stream: [default/app/nope]"))


# -- size limit ------------------------------------------------------------------------------------

TOO_LARGE = error(413, "Request body is too large (limit 1048576 bytes)")


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("url", [SEND_EVENT, SEND_EVENTS])
async def test_a_body_over_one_mebibyte_is_413(http: httpx.AsyncClient, url: str) -> None:
    compact = json.dumps(CUE_IN).encode()
    body = compact + b" " * (LIMIT + 1 - len(compact))
    assert_reply(await http.post(url, content=body), 413, TOO_LARGE)


@pytest.mark.usefixtures("unchanged")
async def test_a_chunked_body_over_the_limit_is_413(http: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"eventFormat":"cue","events":[{"cueType":"in"}],"pad":"'
        for _ in range(17):
            yield b"x" * 65536
        yield b'"}'

    assert_reply(await http.post(SEND_EVENT, content=chunks()), 413, TOO_LARGE)
    # The connection is still usable (or replaced) for the next request.
    assert (await http.get("/v1/vhosts")).status_code == 200


# -- odd names ---------------------------------------------------------------------------------------

ODD_SCENARIO = """
[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "app"
    [[vhosts.apps.streams]]
    name = "caméra #1 (main)"
    audience = 0
    [[vhosts.apps.streams]]
    name = "a&b=c?"
"""


async def test_streams_with_odd_names_are_reachable_when_escaped(
    simulator_factory: SimulatorFactory, client_factory: ClientFactory
) -> None:
    async with simulator_factory(parse_scenario(ODD_SCENARIO, "odd")) as running, client_factory(running) as http:
        listing = await http.get("/v1/vhosts/default/apps/app/streams")
        assert listing.content == b'{"message":"OK","response":["cam\\u00e9ra #1 (main)","a&b=c?"],"statusCode":200}'
        stats = await http.get("/v2/stats/current/vhosts/default/apps/app/streams/cam%C3%A9ra%20%231%20(main)")
        assert stats.status_code == 200
        response = await http.post("/v1/vhosts/default/apps/app/streams/a%26b%3Dc%3F:sendEvent", json=CUE_IN)
        assert_reply(response, 200, OK)
        stream = running.world.find_stream("default", "app", "a&b=c?")
        assert stream is not None and [e.body for e in stream.events.events] == [CUE_IN]


# -- the open source edition --------------------------------------------------------------------------


async def test_oss_edition(simulator_factory: SimulatorFactory, client_factory: ClientFactory) -> None:
    async with simulator_factory("demo", edition="oss") as running, client_factory(running) as http:
        log = events_of(running)
        response = await http.get("/v2/stats/current/vhosts/default")
        assert_reply(response, 404, error(404, "Controller not found"))
        assert (await http.get("/v1/stats/current/vhosts/default")).status_code == 200
        version = (await http.get("/v1/version")).json()["response"]["version"]
        assert version.startswith("0.21")
        openapi = (await http.get("/v1/openapi.json")).json()
        assert not [p for p in openapi["paths"] if p.startswith("/v2")]

        assert_reply(await http.post(SEND_EVENT, json=CUE_OUT), 400, error(400, "eventFormat is not supported: [cue]"))
        assert log == []

        # eventTarget is not read by the open source server: the default "event" applies.
        id3 = {"eventFormat": "id3v2", "eventTarget": "video", "events": [{"frameType": "TIT2", "data": "x"}]}
        assert_reply(await http.post(SEND_EVENT, json=id3), 200, OK)
        assert isinstance(log[-1].event_set, Id3EventSet) and log[-1].event_set.eventType == "event"

        # sendEvents: a bare array, one result per element; 207 when they differ, and the good ones apply.
        mixed = await http.post(SEND_EVENTS, json=[id3, CUE_IN, {"eventFormat": "id3v2", "events": [{}]}])
        assert mixed.status_code == 207
        assert mixed.content == (
            b'[{"message":"OK","statusCode":200},'
            b'{"message":"eventFormat is not supported: [cue]","statusCode":400},'
            b'{"message":"frameType is required in events","statusCode":400}]')
        assert [e.body for e in log] == [id3, id3]

        same = await http.post(SEND_EVENTS, json=[id3])
        assert (same.status_code, same.content) == (200, b'[{"message":"OK","statusCode":200}]')
        all_bad = await http.post(SEND_EVENTS, json=[CUE_IN])
        assert (all_bad.status_code, all_bad.content) == (
            400, b'[{"message":"eventFormat is not supported: [cue]","statusCode":400}]')
        assert_reply(await http.post(SEND_EVENTS, json=[]), 400, error(400, "events(array) is required"))
        assert len(log) == 3

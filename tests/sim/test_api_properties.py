"""Property tests: whatever JSON a client sends to either send operation, the answer is 200 or 400 in
the envelope, never anything else, and a 400 applies nothing while a 200 applies exactly what was sent.

The simulator runs on its own event loop in a background thread (ui_support's ThreadedSimulator) so
that hypothesis can drive it with a plain synchronous client; example counts are bounded and derandomised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from sim_support import TEST_TOKEN
from ui_support import ThreadedSimulator

from simulator.http.auth import basic_header
from simulator.http.json_body import parse_json_body
from simulator.http.server import RunningSimulator
from simulator.world.topology import Stream

URL = "/v1/vhosts/default/apps/app/streams/stream"
ERROR_MESSAGE = re.compile(r"^\[HTTP\] .+ \(400\)$", re.DOTALL)
PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module", params=["enterprise", "oss"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[RunningSimulator, httpx.Client]]:
    with ThreadedSimulator(edition=request.param, seed=3, access_token=TEST_TOKEN) as threaded:
        running = threaded.running
        headers = {"Authorization": basic_header(running.access_token)}
        with httpx.Client(base_url=running.api_url, headers=headers, timeout=10) as client:
            yield running, client


# -- strategies ------------------------------------------------------------------------------------

any_text = st.text(st.characters(exclude_categories=()), max_size=12)  # includes lone surrogates
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | any_text
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(any_text, children, max_size=4),
    max_leaves=12,
)


extra_fields = st.dictionaries(st.sampled_from(["note", "id", "x-extra", "startOffset"]), json_values, max_size=2)
cue_event = st.one_of(
    st.builds(lambda d, extra: {**extra, "cueType": "out", "duration": d}, st.integers(1, 86_400_000), extra_fields),
    st.builds(lambda extra: {**extra, "cueType": "in"}, extra_fields),
)
id3_frame = st.builds(
    lambda frame, fields: {"frameType": frame, **fields},
    st.sampled_from(["TXXX", "TIT2", "TPE1", "PRIV", "priv"]),
    st.fixed_dictionaries({}, optional={"info": any_text, "data": any_text}),
)
valid_set = st.one_of(
    st.builds(lambda events, extra: {**extra, "eventFormat": "cue", "events": events},
              st.lists(cue_event, min_size=1, max_size=3), extra_fields),
    st.builds(lambda events, kind, extra: {**extra, "eventFormat": "id3v2", "events": events, **kind},
              st.lists(id3_frame, min_size=1, max_size=3),
              st.sampled_from([{}, {"eventType": "video"}, {"eventTarget": "audio"}, {"eventType": "EVENT"}]),
              extra_fields),
)


@st.composite
def mutated_set(draw: st.DrawFn) -> Any:
    """A valid set with one thing broken: a value replaced by anything, a key dropped, or an event broken."""
    value = dict(draw(valid_set))
    key = draw(st.sampled_from(sorted(value)))
    match draw(st.sampled_from(["replace", "drop", "event"])):
        case "replace":
            value[key] = draw(json_values)
        case "drop":
            del value[key]
        case "event":
            events = list(value["events"])
            index = draw(st.integers(0, len(events) - 1))
            event = dict(events[index])
            event[draw(st.sampled_from(["cueType", "duration", "frameType", "info", "data"]))] = draw(json_values)
            events[index] = event
            value["events"] = events
    return value


event_set = valid_set | mutated_set()
bodies = st.one_of(
    event_set,
    st.lists(event_set, min_size=1, max_size=4),
    st.lists(valid_set, min_size=1, max_size=4),
    json_values,
)


def stream_of(running: RunningSimulator) -> Stream:
    stream = running.world.find_stream("default", "app", "stream")
    assert stream is not None
    return stream


def as_read(body: bytes) -> Any:
    """The body as the server's reader reads it (jsoncpp's grammar, tests/unit/test_sim_json_reader.py holds it to
    jsoncpp): an integer beyond 64 bits is a double, `\\ud800` followed by any `\\u` escape is one pair."""
    return parse_json_body(body)


def check_one(running: RunningSimulator, client: httpx.Client, action: str, body: bytes, value: Any) -> None:
    log = stream_of(running).events.events
    before = len(log)
    response = client.post(f"{URL}:{action}", content=body)
    assert response.headers["content-type"] == "application/json;charset=UTF-8"
    reply = json.loads(response.content)
    event(f"{action} {response.status_code}")
    oss_batch = action == "sendEvents" and running.api.edition == "oss" and isinstance(reply, list)
    if oss_batch:
        # The open source shape: a bare array of results, one per element; the good ones applied.
        assert response.status_code in (200, 207, 400)
        assert len(reply) == len(value)
        assert all(sorted(r) == ["message", "statusCode"] and r["statusCode"] in (200, 400) for r in reply)
        applied = [v for v, r in zip(as_read(body), reply, strict=True) if r["statusCode"] == 200]
        assert [e.body for e in log[before:]] == applied
        return
    assert response.status_code in (200, 400), response.content
    assert sorted(reply) == ["message", "statusCode"]
    assert reply["statusCode"] == response.status_code
    if response.status_code == 400:
        assert ERROR_MESSAGE.match(reply["message"]), reply
        assert len(log) == before
        return
    assert response.content == b'{"message":"OK","statusCode":200}'
    read = as_read(body)
    assert [e.body for e in log[before:]] == ([read] if action == "sendEvent" else read)


@PROPERTY_SETTINGS
@given(value=bodies)
@example(value={"eventFormat": "cue", "events": [{"cueType": "in"}], "note": -(2**63) - 1})  # read as a double
@example(value={"eventFormat": "cue", "events": [{"cueType": "in"}], "note": "\ud800\x1f"})  # read as one pair
def test_any_json_body_is_200_or_400_and_a_400_applies_nothing(
    served: tuple[RunningSimulator, httpx.Client], value: Any
) -> None:
    running, client = served
    body = json.dumps(value).encode()
    for action in ("sendEvent", "sendEvents"):
        check_one(running, client, action, body, value)


@PROPERTY_SETTINGS
@given(raw=st.binary(max_size=64) | st.text(max_size=40).map(str.encode))
def test_any_bytes_are_200_or_400(served: tuple[RunningSimulator, httpx.Client], raw: bytes) -> None:
    running, client = served
    try:
        value = json.loads(raw.decode("utf-8"))
    except ValueError:
        value = None  # unreadable: the server must answer 400 and apply nothing
    for action in ("sendEvent", "sendEvents"):
        check_one(running, client, action, raw, value)

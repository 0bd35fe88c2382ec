"""Hypothesis on the API's pure parts: request body parsing and event validation never fail in a way a
client would see as a crash, and what they accept or refuse follows the documented rules."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.http.event_validation import EventRejected, validate_event_set, validate_event_sets
from simulator.http.json_body import MAX_NESTING, JsonBodyError, parse_json_body
from simulator.world.edition import ENTERPRISE, server_profile
from simulator.world.wire import CueEventSet, Id3EventSet

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False,
                                                                                     allow_infinity=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)

cue_events = st.one_of(
    st.fixed_dictionaries({"cueType": st.sampled_from(["out", "OUT", "Out"]),
                           "duration": st.integers(1, 86_400_000)}),
    st.fixed_dictionaries({"cueType": st.sampled_from(["in", "IN"])}),
)
cue_sets = st.fixed_dictionaries({"eventFormat": st.sampled_from(["cue", "CUE"]),
                                  "events": st.lists(cue_events, min_size=1, max_size=4)},
                                 optional={"urgent": st.booleans()})
frame_types = st.sampled_from(["TXXX", "TIT2", "TPE1", "TCOP", "T000", "PRIV", "txxx"])
id3_frames = st.fixed_dictionaries({"frameType": frame_types},
                                   optional={"info": st.text(max_size=40).filter(lambda t: "\x00" not in t),
                                             "data": st.text(max_size=80)}).filter(
    lambda f: f["frameType"] != "PRIV" or all(ord(c) <= 0xFF for c in f.get("info", "")))  # owners are Latin-1
id3_sets = st.fixed_dictionaries({"eventFormat": st.sampled_from(["id3v2", "ID3V2"]),
                                  "events": st.lists(id3_frames, min_size=1, max_size=5)},
                                 optional={"eventType": st.sampled_from(["video", "audio", "event", "Video"]),
                                           "urgent": st.booleans()})
valid_sets = cue_sets | id3_sets
# Near misses: valid sets with one key replaced by something of another shape.
mutated_sets = st.builds(lambda good, key, value: {**good, key: value}, valid_sets,
                         st.sampled_from(["eventFormat", "events", "urgent", "eventType", "eventTarget"]), json_values)


def _outcome(value: Any) -> CueEventSet | Id3EventSet | EventRejected:
    try:
        return validate_event_set(value, ENTERPRISE)
    except EventRejected as error:
        return error


@FAST
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_body_parses_or_is_a_json_error(body: bytes) -> None:
    try:
        parse_json_body(body)
    except JsonBodyError as error:
        assert str(error).strip()  # the text the server puts after "[HTTP] [JSON] "


@FAST
@given(json_values)
def test_json_within_the_nesting_limit_round_trips(value: Any) -> None:
    assert parse_json_body(json.dumps(value).encode()) == value


@FAST
@given(st.integers(MAX_NESTING + 1, 5000))
def test_nesting_past_the_limit_is_refused_however_deep(depth: int) -> None:
    try:
        parse_json_body(b"[" * depth + b"]" * depth)
    except JsonBodyError as error:
        assert str(error).strip()
    else:
        raise AssertionError("accepted a document nested past the limit")


@FAST
@given(json_values | mutated_sets)
def test_any_value_is_validated_or_refused_with_a_message(value: Any) -> None:
    result = _outcome(value)
    if isinstance(result, EventRejected):
        assert str(result) and "\n" not in str(result)
    else:
        assert isinstance(result, CueEventSet | Id3EventSet)


@FAST
@given(valid_sets)
def test_every_well_formed_set_is_accepted_and_normalised(value: dict[str, Any]) -> None:
    result = validate_event_set(value, ENTERPRISE)
    assert len(result.events) == len(value["events"])
    if isinstance(result, CueEventSet):
        assert [e.cueType for e in result.events] == [e["cueType"].lower() for e in value["events"]]
        assert [e.duration for e in result.events] == [e.get("duration") for e in value["events"]]
    else:
        assert [f.frameType for f in result.events] == [f["frameType"].upper() for f in value["events"]]
        assert result.eventType == value.get("eventType", "event").lower()


@FAST
@given(cue_sets)
def test_open_source_0_21_refuses_every_cue_set(value: dict[str, Any]) -> None:
    try:
        validate_event_set(value, server_profile("oss"))
    except EventRejected as error:
        assert str(error) == f"eventFormat is not supported: [{value['eventFormat']}]"
    else:
        raise AssertionError("oss accepted a cue set")


@FAST
@given(st.lists(valid_sets | json_values, min_size=1, max_size=6))
def test_a_batch_names_its_first_bad_element_or_accepts_all(values: list[Any]) -> None:
    outcomes = [_outcome(v) for v in values]
    bad = [i for i, o in enumerate(outcomes) if isinstance(o, EventRejected)]
    try:
        accepted = validate_event_sets(values, ENTERPRISE)
    except EventRejected as error:
        assert bad
        assert str(error) == f"events[{bad[0]}]: {outcomes[bad[0]]}"
    else:
        assert not bad
        assert accepted == outcomes

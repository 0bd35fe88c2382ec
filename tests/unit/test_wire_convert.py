"""Hostile statistics and stream info: whatever JSON a server sends, conversion never raises anything but
ProtocolError, and every field is either a sane value or None and named in `NodeStats.invalid`."""

from __future__ import annotations

import contextlib
import copy
import json
import math
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omeconsole.api.convert import MAX_COUNT, stats_from_v1, stats_from_v2, stream_info_from_wire
from omeconsole.api.errors import ProtocolError
from omeconsole.model.readings import NodeStats

TIME = "2026-01-01T00:00:05.000+00:00"
GOOD_V2: dict[str, Any] = {
    "createdTime": TIME, "lastUpdatedTime": TIME,
    "providers": {"avgThroughputIn": 1, "connections": {"rtmp": 1}, "lastRecvTime": TIME,
                  "lastThroughputIn": 1, "maxThroughputIn": 1, "totalBytesIn": 100},
    "publishers": {"avgThroughputOut": 1, "connections": {"llhls": 2}, "lastSentTime": TIME,
                   "lastThroughputOut": 1, "maxThroughputOut": 1, "maxTotalConnectionTime": TIME,
                   "maxTotalConnections": 2, "totalBytesOut": 200, "totalConnections": 2},
}
GOOD_V1: dict[str, Any] = {
    "avgThroughputIn": 1, "avgThroughputOut": 1, "connections": {"llhls": 3}, "createdTime": TIME,
    "lastRecvTime": TIME, "lastSentTime": TIME, "lastThroughputIn": 1, "lastThroughputOut": 1,
    "lastUpdatedTime": TIME, "maxThroughputIn": 1, "maxThroughputOut": 1, "maxTotalConnectionTime": TIME,
    "maxTotalConnections": 3, "totalBytesIn": 5, "totalBytesOut": 6, "totalConnections": 3,
}
STATS_FIELDS = [f.name for f in fields(NodeStats) if f.name != "invalid"]
OUT_OF_RANGE: list[object] = [10**400, -1, -(2**70), 2**63, 1e400, float("nan"), float("inf"), "many", "", None,
                              True, [], {"llhls": -1}, {"llhls": 10**400}, "9" * 5000, "9999-12-31T23:59:59-23:59"]
BAD_TIMES: list[object] = ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "yesterday",
                           "2026-01-01T00:00:00", 12, None, "2026-01-01T00:00:00+00:00" + " " * 100, "\ud800"]

any_text = st.text(st.characters(exclude_categories=()), max_size=30)  # includes lone surrogates
hostile_scalars = (st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.sampled_from([10**400, -10**400])
                   | st.floats() | any_text | st.sampled_from(BAD_TIMES) | st.just(TIME))
hostile_json = st.recursive(hostile_scalars, lambda inner: st.lists(inner, max_size=4)
                            | st.dictionaries(any_text, inner, max_size=4), max_leaves=10)


def mutated(record: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """The record with some of its values (at any depth) replaced by hostile JSON."""
    result = copy.deepcopy(record)
    for _ in range(data.draw(st.integers(1, 6))):
        target = result
        keys = list(target)
        key = data.draw(st.sampled_from(keys))
        if isinstance(target[key], dict) and target[key] and data.draw(st.booleans()):
            target = target[key]
            key = data.draw(st.sampled_from(list(target)))
        target[key] = data.draw(hostile_json)
    return result


def assert_sane(stats: NodeStats) -> None:
    for name in STATS_FIELDS:
        value = getattr(stats, name)
        if value is None:
            assert name in stats.invalid or name == "connections_in"
            continue
        assert name not in stats.invalid
        if isinstance(value, datetime):
            assert value.tzinfo is not None
            assert value.astimezone(UTC) - datetime(2000, 1, 1, tzinfo=UTC) is not None  # arithmetic works
        elif isinstance(value, int):
            assert not isinstance(value, bool) and 0 <= value <= MAX_COUNT
        else:
            assert all(isinstance(k, str) and isinstance(v, int) and 0 <= v <= MAX_COUNT for k, v in value.items())
    assert stats.invalid <= set(STATS_FIELDS)


def test_good_records_have_nothing_invalid() -> None:
    assert stats_from_v2(GOOD_V2, "x").invalid == frozenset()
    v1 = stats_from_v1(GOOD_V1, "x")
    assert v1.invalid == frozenset() and v1.connections_in is None  # unknown on v1, not invalid


@pytest.mark.parametrize("value", OUT_OF_RANGE, ids=repr)
@pytest.mark.parametrize(("section", "key", "field"), [
    ("providers", "totalBytesIn", "total_bytes_in"), ("publishers", "totalConnections", "total_connections"),
    ("publishers", "avgThroughputOut", "avg_throughput_out_bps"), (None, "createdTime", "created"),
    ("publishers", "connections", "connections_out"),
])
def test_one_bad_value_is_named_and_the_rest_is_kept(value: object, section: str | None, key: str,
                                                     field: str) -> None:
    record = copy.deepcopy(GOOD_V2)
    (record[section] if section else record)[key] = value
    stats = stats_from_v2(json.loads(json.dumps(record)) if not _unencodable(value) else record, "x")
    assert stats.invalid == {field} and getattr(stats, field) is None
    assert stats.total_bytes_out == 200 or field == "total_bytes_out"


def _unencodable(value: object) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


@pytest.mark.parametrize("value", BAD_TIMES, ids=repr)
def test_timestamps_out_of_the_calendar_are_invalid_not_overflows(value: object) -> None:
    stats = stats_from_v1({**GOOD_V1, "lastUpdatedTime": value, "maxTotalConnectionTime": value}, "x")
    assert stats.invalid == {"last_updated", "max_total_connection_time"}
    assert stats.created is not None and stats.created + timedelta(days=1) > stats.created


def test_extreme_but_real_values_are_kept() -> None:
    stats = stats_from_v2({**GOOD_V2, "createdTime": "9999-12-31T23:59:59+00:00",
                           "providers": {**GOOD_V2["providers"], "totalBytesIn": MAX_COUNT}}, "x")
    assert stats.total_bytes_in == MAX_COUNT and stats.created is not None and stats.invalid == frozenset()


@pytest.mark.parametrize("raw", [None, [], "stats", 5, {}, {"detail": "not the API"}])
def test_what_is_not_a_record_at_all_is_a_protocol_error(raw: object) -> None:
    for convert in (stats_from_v1, stats_from_v2):
        with pytest.raises(ProtocolError):
            convert(raw, "/v2/stats/current/vhosts/default")


@pytest.mark.parametrize(("record", "convert"), [(GOOD_V2, stats_from_v2), (GOOD_V1, stats_from_v1)], ids=["v2", "v1"])
@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_damage_to_a_record_gives_sane_fields_or_invalid(record: dict[str, Any], convert: Any,
                                                             data: st.DataObject) -> None:
    with contextlib.suppress(ProtocolError):
        assert_sane(convert(mutated(record, data), "x"))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(hostile_json)
def test_any_json_at_all_is_a_record_or_a_protocol_error(raw: object) -> None:
    for convert in (stats_from_v1, stats_from_v2):
        with contextlib.suppress(ProtocolError):
            assert_sane(convert(raw, "x"))


GOOD_INFO: dict[str, Any] = {"name": "stream", "input": {"createdTime": TIME, "sourceType": "Rtmp", "tracks": [
    {"id": 0, "type": "Video", "video": {"codec": "H264", "width": 1280, "height": 720, "framerate": 30.0,
                                         "bitrate": 4000000, "keyFrameInterval": 1.0}},
    {"id": 1, "type": "Audio", "audio": {"codec": "AAC", "samplerate": 48000, "channel": 2, "bitrate": 128000}},
]}, "outputs": [{"name": "stream"}]}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_any_damage_to_stream_info_gives_numbers_or_none(data: st.DataObject) -> None:
    info = copy.deepcopy(GOOD_INFO)
    track = info["input"]["tracks"][data.draw(st.integers(0, 1))]
    media = track.get("video") or track.get("audio")
    for _ in range(data.draw(st.integers(1, 4))):
        media[data.draw(st.sampled_from(sorted(media)))] = data.draw(hostile_json)
    if data.draw(st.booleans()):
        info["input"]["createdTime"] = data.draw(hostile_json)
    try:
        result = stream_info_from_wire(info, "x")
    except ProtocolError:
        return
    for parsed in result.tracks:
        for value in (parsed.width, parsed.height, parsed.bitrate, parsed.samplerate, parsed.channels,
                      parsed.framerate, parsed.keyframe_interval):
            assert value is None or (isinstance(value, int | float) and not isinstance(value, bool)
                                     and math.isfinite(value) and 0 <= value <= MAX_COUNT)
    assert result.created is None or result.created.astimezone(UTC) is not None

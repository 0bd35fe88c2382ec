"""The simulator reads request bodies as the real server's jsoncpp does: the same values, the same leniencies,
errors at the same byte (capture api/35), and never a crash whatever the bytes."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.http.json_body import JsonBodyError, parse_json_body
from simulator.http.jsoncpp_reader import JsonCppError, JsonCppReader, TooDeep

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOCATION = re.compile(r"\* Line (\d+), Column (\d+)\n  [^\n]+\n(See Line \d+, Column \d+ for detail\.\n)?")

scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@FAST
@given(values, st.sampled_from([{}, {"indent": 2}, {"ensure_ascii": False}]))
def test_every_json_document_reads_as_it_was_written(value: Any, style: dict[str, Any]) -> None:
    text = json.dumps(value, **style).encode("utf-8")
    assert JsonCppReader(text).parse() == value
    assert parse_json_body(text) == value


@FAST
@given(st.binary(max_size=200) | values.map(lambda v: json.dumps(v).encode()).flatmap(
    lambda doc: st.integers(0, len(doc)).map(lambda cut: doc[:cut])))
def test_any_bytes_are_a_value_or_the_servers_report_of_where_they_broke(body: bytes) -> None:
    """Cut documents and noise: either a value, or jsoncpp's report naming a line and column inside the body."""
    try:
        JsonCppReader(body).parse()
    except TooDeep:
        return
    except JsonCppError as error:
        found = LOCATION.fullmatch(str(error))
        assert found is not None, str(error)
        line, column = int(found.group(1)), int(found.group(2))
        assert 1 <= line <= body.count(b"\n") + body.count(b"\r") + 1 and column >= 1
    with contextlib.suppress(JsonBodyError):  # the simulator's own refusals (UTF-8, surrogates) are reports too
        parse_json_body(body)


def test_the_captured_malformed_body_is_reported_as_the_real_server_reported_it() -> None:
    """Capture api/35: the body ends inside the events array; jsoncpp names the byte after the last one."""
    try:
        parse_json_body(b'{"eventFormat":"cue","events":[')
    except JsonBodyError as error:
        assert str(error) == "* Line 1, Column 32\n  Syntax error: value, object or array expected.\n"
    else:
        raise AssertionError("a cut body was read")


def test_lines_and_columns_count_bytes_and_every_line_ending() -> None:
    for body, where in [(b'{"a":\r\n  x}', "Line 2, Column 3"), (b'{"a":\r  x}', "Line 2, Column 3"),
                        ('{"é":'.encode() + b" x}", "Line 1, Column 8"), (b'\xef\xbb\xbf{"a" 1}', "Line 1, Column 6")]:
        try:
            JsonCppReader(body).parse()
        except JsonCppError as error:
            assert str(error).startswith(f"* {where}\n"), (body, str(error))
        else:
            raise AssertionError(body)


def test_what_jsoncpp_accepts_and_python_refuses_is_read() -> None:
    assert parse_json_body(b'{"a":[1,2,],}') == {"a": [1, 2]}
    assert parse_json_body(b'{"a":1} trailing words') == {"a": 1}
    assert parse_json_body(b'// a line\n{"a": /* inline */ 1}') == {"a": 1}
    assert parse_json_body(b"[01, +5, 1., -]") == [1, 5.0, 1.0, 0]
    assert parse_json_body(b'"\\ud83d\\ude00"') == "\U0001f600"
    assert parse_json_body(b"") is None  # no body at all is JSON null on the real server

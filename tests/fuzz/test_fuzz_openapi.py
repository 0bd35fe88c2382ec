"""schemathesis against the management API's own OpenAPI document, over HTTP to a real in-process simulator.

Every generated request (valid and invalid path values, bodies, methods) must get no 5xx, a reply
in the server's envelope, and a status, content type and body that the document declares.
Bounded: a few dozen examples per operation, the whole module well under a minute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from ui_support import ThreadedSimulator

from simulator.http.auth import basic_header
from simulator.http.openapi import openapi_document
from simulator.world.clock import SystemClock

TOKEN = "fuzz-token"
AUTH = {"Authorization": basic_header(TOKEN)}
EXAMPLES = 15

schema = schemathesis.openapi.from_dict(openapi_document("enterprise"))


@pytest.fixture(scope="module")
def api_url() -> Iterator[str]:
    # The system clock, start_simulator's own default: the world moves on by itself as requests arrive.
    with ThreadedSimulator(access_token=TOKEN, seed=5, clock=SystemClock()) as background:
        yield background.api_url


def in_envelope(response: Any) -> None:
    """The server's own shape: `message` and `statusCode` matching the HTTP status, compact sorted JSON."""
    assert response.status_code < 500, response.text
    assert response.headers.get("content-type") == ["application/json;charset=UTF-8"], (
        response.status_code, response.request.method, response.request.url, response.headers, response.content)
    body = json.loads(response.content)
    assert isinstance(body, dict), body
    assert body["statusCode"] == response.status_code
    assert isinstance(body["message"], str)
    if response.status_code >= 400:
        assert body["message"].startswith("[HTTP] ") and body["message"].endswith(f"({response.status_code})")
    # Python escapes DEL (0x7f) where the real server's writer leaves it raw (DECISIONS.md, JSON on the wire).
    expected = re.sub(r"(?<!\\)((?:\\\\)*)\\u007f", "\\1\x7f", json.dumps(body, separators=(",", ":"), sort_keys=True))
    assert response.content == expected.encode()


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          database=None)
def test_every_operation_answers_in_the_envelope_and_as_documented(case: Any, api_url: str) -> None:
    response = case.call(base_url=api_url, headers=AUTH, timeout=10)
    if case.method.upper() == "OPTIONS":  # a CORS preflight: 204, no body, no authentication (DECISIONS.md)
        assert (response.status_code, response.content) == (204, b"")
        return
    in_envelope(response)
    case.validate_response(response, checks=[
        schemathesis.checks.not_a_server_error,
        schemathesis.checks.status_code_conformance,
        schemathesis.checks.content_type_conformance,
        schemathesis.checks.response_schema_conformance,
    ])


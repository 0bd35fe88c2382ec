"""schemathesis against the management API's own OpenAPI document, over HTTP to a real in-process simulator.

Every generated request (valid and invalid path values, bodies, methods) must get no 5xx, a reply
in the server's envelope, and a status, content type and body that the document declares.
Bounded: a few dozen examples per operation, the whole module well under a minute.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from simulator.http.auth import basic_header
from simulator.http.openapi import openapi_document
from simulator.http.server import RunningSimulator, start_simulator

TOKEN = "fuzz-token"
AUTH = {"Authorization": basic_header(TOKEN)}
EXAMPLES = 15

schema = schemathesis.openapi.from_dict(openapi_document("enterprise"))


class BackgroundSimulator:
    """The simulator on its own event loop in a thread, because schemathesis's calls are synchronous."""

    def __init__(self, edition: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.simulator: RunningSimulator = asyncio.run_coroutine_threadsafe(
            start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=5,
                            edition="oss" if edition == "oss" else "enterprise"),
            self._loop).result(30)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.simulator.stop(), self._loop).result(30)
        asyncio.run_coroutine_threadsafe(_cancel_the_rest(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@pytest.fixture(scope="module")
def api_url() -> Iterator[str]:
    background = BackgroundSimulator("enterprise")
    yield background.simulator.api_url
    background.stop()


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
    assert response.content == json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


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


async def _cancel_the_rest() -> None:
    """Cancel what the simulator leaves running on its loop (the publisher's sweeper), so nothing dangles."""
    current = asyncio.current_task()
    rest = [task for task in asyncio.all_tasks() if task is not current]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)

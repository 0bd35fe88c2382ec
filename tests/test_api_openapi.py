"""The OpenAPI document at /v1/openapi.json drives a fuzzer (schemathesis): requests generated from it,
valid and invalid, get answers the document describes, and never a server error.

Unknown methods are left out on purpose: the real server answers them 404 "Controller not found",
never 405 (DECISIONS.md), which schemathesis's undeclared-method check would call a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from conftest import simulator_in_thread
from hypothesis import HealthCheck, settings

from simulator.http.auth import basic_header
from simulator.http.server import RunningSimulator


@pytest.fixture(scope="module")
def served() -> Iterator[RunningSimulator]:
    with simulator_in_thread("demo", seed=5) as running:
        yield running


@pytest.fixture(scope="module")
def api_schema(served: RunningSimulator) -> Any:
    headers = {"Authorization": basic_header(served.access_token)}
    document = httpx.get(f"{served.api_url}/v1/openapi.json", headers=headers, timeout=10).json()
    return schemathesis.openapi.from_dict(document)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_every_operation_answers_as_documented(case: Any, served: RunningSimulator) -> None:
    case.call_and_validate(base_url=served.api_url,
                           headers={"Authorization": basic_header(served.access_token)})

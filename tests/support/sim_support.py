"""A simulator started in-process on free ports with a manual clock, and a client for it: helpers and fixtures.

The fixtures reach every test through `pytest_plugins` in tests/conftest.py; import the helpers
(`running_simulator(...)` for another scenario, edition or token, `api_client`, `TEST_TOKEN`) from here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from simulator.http.auth import basic_header
from simulator.http.event_validation import Edition
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import Clock, ManualClock
from simulator.world.scenario import Scenario

TEST_TOKEN = "test-token"
TEST_SEED = 7


@contextlib.asynccontextmanager
async def running_simulator(
    scenario: str | Scenario = "demo",
    *,
    edition: Edition = "enterprise",
    seed: int = TEST_SEED,
    access_token: str = TEST_TOKEN,
    clock: Clock | None = None,
    **more: Any,
) -> AsyncIterator[RunningSimulator]:
    """A simulator on free loopback ports, stopped on exit; by default on a ManualClock that only a test moves.

    `more` goes to `start_simulator` as it is (for example `faults=`).
    """
    simulator = await start_simulator(
        scenario, api_port=0, publisher_port=0, access_token=access_token, seed=seed, edition=edition,
        clock=clock or ManualClock(), **more,
    )
    try:
        yield simulator
    finally:
        await simulator.stop()


def api_client(simulator: RunningSimulator, *, authorized: bool = True) -> httpx.AsyncClient:
    headers = {"Authorization": basic_header(simulator.access_token)} if authorized else {}
    return httpx.AsyncClient(base_url=simulator.api_url, headers=headers, timeout=10)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def simulator(clock: ManualClock) -> AsyncIterator[RunningSimulator]:
    """The demo scenario, enterprise edition, seed TEST_SEED, token TEST_TOKEN, driven by `clock`."""
    async with running_simulator(clock=clock) as running:
        yield running


@pytest.fixture
async def client(simulator: RunningSimulator) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for the simulator's management API that sends the right Authorization header."""
    async with api_client(simulator) as http:
        yield http


@pytest.fixture(scope="session")
def simulator_factory() -> Callable[..., contextlib.AbstractAsyncContextManager[RunningSimulator]]:
    """`running_simulator`, for module-scoped fixtures and tests that need another scenario or edition."""
    return running_simulator


@pytest.fixture(scope="session")
def client_factory() -> Callable[..., httpx.AsyncClient]:
    """`api_client(simulator, authorized=True)`: an httpx client for a simulator's API."""
    return api_client

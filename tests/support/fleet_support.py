"""The fleet tests' tools: real simulators on free ports, each with its own token and edition, seen as a
fleet's settings; a reader of a server's own numbers over HTTP (httpx), apart from the console's client."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from pydantic import SecretStr

from omeconsole.core.config import Settings
from omeconsole.core.fleet.settings import FleetSettings
from simulator.http.auth import basic_header
from simulator.http.event_validation import Edition
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import Clock

SERVERS: tuple[tuple[str, str, Edition], ...] = (
    ("origin", "origin-token", "enterprise"), ("edge-1", "edge-one-token", "oss"),
    ("edge-2", "edge-two-token", "enterprise"))
"""Profile, token and edition of each server of the standard test fleet."""


@contextlib.asynccontextmanager
async def simulators(clock: Clock, servers: Sequence[tuple[str, str, Edition]] = SERVERS, *, seed: int = 7,
                     **more: Any) -> AsyncIterator[list[RunningSimulator]]:
    """Independent simulators (not an origin and its edges) on free ports, one per (profile, token, edition)."""
    running: list[RunningSimulator] = []
    try:
        for index, (_, token, edition) in enumerate(servers):
            running.append(await start_simulator("demo", api_port=0, publisher_port=0, access_token=token,
                                                 seed=seed + index, edition=edition, clock=clock, **more))
        yield running
    finally:
        for simulator in running:
            await simulator.stop()


def fleet_settings(name: str, servers: Sequence[tuple[str, RunningSimulator]], *, request_budget: float = 20.0,
                   **settings: Any) -> FleetSettings:
    """The fleet as a config file would give it: each profile its simulator's URL and token."""
    return FleetSettings(name, tuple(
        Settings(api_url=sim.api_url, publisher_url=sim.publisher_url, token=SecretStr(sim.access_token),
                 profile=profile, **settings) for profile, sim in servers), request_budget)


async def server_record(simulator: RunningSimulator, path: str) -> dict[str, Any]:
    """The server's own statistics of a node (v2 on Enterprise, else v1), read with httpx."""
    vhost, app, stream = path.split("/")
    tail = f"vhosts/{vhost}/apps/{app}/streams/{stream}"
    async with httpx.AsyncClient(base_url=simulator.api_url, timeout=10,
                                 headers={"Authorization": basic_header(simulator.access_token)}) as http:
        reply = await http.get(f"/v2/stats/current/{tail}")
        if reply.status_code == 404 and "Controller" in reply.text:
            reply = await http.get(f"/v1/stats/current/{tail}")
    assert reply.status_code == 200, reply.text
    record: dict[str, Any] = reply.json()["response"]
    return record


def outbound(record: dict[str, Any]) -> dict[str, int]:
    """Outbound connections per protocol of a v2 (`publishers.connections`) or v1 (`connections`) record."""
    counts = record["publishers"]["connections"] if "publishers" in record else record["connections"]
    return {name: int(count) for name, count in counts.items()}


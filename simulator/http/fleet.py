"""`start_fleet`: an origin and N edges in one process, each a whole server with its own ports, token and edition.

The worlds are linked as simulator/world/fleet.py describes (edges pull every origin stream over OVT and
serve the viewers); each server has its own management API and publisher, so a console sees N + 1 servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from simulator.http.limits import HttpLimits
from simulator.http.server import DEFAULT_ACCESS_TOKEN, DEFAULT_HOST, RunningSimulator, serve_world
from simulator.world.clock import Clock, SystemClock
from simulator.world.edition import Edition, server_profile
from simulator.world.fault_spec import FaultSpec
from simulator.world.fleet import fleet_worlds
from simulator.world.scenario import Scenario, load_scenario
from simulator.world.world import World

if TYPE_CHECKING:
    from simulator.http.publisher import PublisherLimits

T = TypeVar("T")


@dataclass
class RunningFleet:
    origin: RunningSimulator
    edges: list[RunningSimulator]

    @property
    def servers(self) -> list[RunningSimulator]:
        """The origin first, then the edges in order."""
        return [self.origin, *self.edges]

    async def stop(self) -> None:
        """Stop the edges, then the origin (every listener closed, every task ended)."""
        await asyncio.gather(*(edge.stop() for edge in self.edges))
        await self.origin.stop()


def _per_server(value: Sequence[T], count: int, what: str) -> list[T]:
    if len(value) != count:
        raise ValueError(f"{what}: {len(value)} given for {count} servers (the origin and its edges)")
    return list(value)


async def start_fleet(
    scenario: str | Scenario = "demo",
    *,
    edges: int = 2,
    host: str = DEFAULT_HOST,
    api_ports: Sequence[int] | None = None,
    publisher_ports: Sequence[int] | None = None,
    access_tokens: str | Sequence[str] = DEFAULT_ACCESS_TOKEN,
    editions: Edition | Sequence[Edition] = "enterprise",
    versions: str | Sequence[str | None] | None = None,
    seed: int = 0,
    clock: Clock | None = None,
    faults: str | FaultSpec | None = None,
    viewers_on_origin: float = 0.0,
    http_limits: HttpLimits | None = None,
    publisher_limits: PublisherLimits | None = None,
) -> RunningFleet:
    """Start an origin and `edges` edges inside the running event loop.

    Ports, tokens, editions and versions are one for every server or a sequence with one per server (origin
    first); a version None is the edition's default (simulator/world/edition.py);
    port 0 (the default) picks a free port. `faults` apply to the origin (its world faults reach the edges
    through the relay: a vanished or stalled origin stream is gone or stalled on every edge).
    `viewers_on_origin` is the share of each stream's audience watching the origin itself (default none).
    """
    if edges < 1:
        raise ValueError("a fleet needs at least one edge")
    count = edges + 1
    api = _per_server(api_ports or [0] * count, count, "api_ports")
    publisher = _per_server(publisher_ports or [0] * count, count, "publisher_ports")
    tokens = _per_server([access_tokens] * count if isinstance(access_tokens, str) else access_tokens, count,
                         "access_tokens")
    kinds: list[Edition] = _per_server([editions] * count if isinstance(editions, str) else editions, count,
                                       "editions")
    releases: list[str | None] = _per_server([versions] * count if versions is None or isinstance(versions, str)
                                             else versions, count, "versions")
    profiles = [server_profile(kind, release) for kind, release in zip(kinds, releases, strict=True)]
    clock = clock or SystemClock()
    origin_world = World(scenario if isinstance(scenario, Scenario) else load_scenario(scenario), clock, seed,
                         viewer_share=viewers_on_origin, profile=profiles[0])
    worlds = [origin_world, *fleet_worlds(origin_world, edges, seed, viewers_on_origin, profiles[1:])]
    limits = (http_limits or HttpLimits()).fitted(listeners=2 * count)
    servers: list[RunningSimulator] = []
    try:
        for index, world in enumerate(worlds):
            servers.append(await serve_world(
                world, host=host, api_port=api[index], publisher_port=publisher[index], access_token=tokens[index],
                faults=faults if index == 0 else None, http_limits=limits,
                publisher_limits=publisher_limits))
    except BaseException:
        await asyncio.gather(*(server.stop() for server in servers))
        raise
    return RunningFleet(servers[0], servers[1:])

"""The fleet screen's test tools: real simulators on their own threads (independent ones with their own
tokens and editions, or an origin and its edges), the fleet app over HTTP to them on a frozen console
clock, and a driver that moves every clock and waits until every server's engine has parked again.

`Names` lets a snapshot show the same addresses every run: the fleet's settings name each server with
a fixed port (`shown_fleet`), and the transport sends each request to the real simulator's free port,
so what is on screen does not depend on the free ports.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fleet_support import SERVERS
from textual.app import App
from textual.pilot import Pilot
from ui_support import SEED, ParkingClock, ThreadedSimulator, make_settings, shown
from wait_support import still

from omeconsole.api.http import Cap, HttpTransport, Method, Reply, Timeouts
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.fleet_app import FleetConsoleApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.node_tree import NodeTree
from simulator.http.fleet import RunningFleet, start_fleet
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

T = TypeVar("T")


class ThreadedFleet:
    """An origin and its edges (`start_fleet`) on their own event loop and thread, on one ManualClock."""

    def __init__(self, *, edges: int = 2, seed: int = SEED) -> None:
        self.clock = ManualClock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fleet", daemon=True)
        self._thread.start()
        self.running: RunningFleet = self.run(start_fleet(
            "demo", edges=edges, access_tokens=[token for _, token, _ in SERVERS[:edges + 1]],
            editions=[edition for _, _, edition in SERVERS[:edges + 1]], seed=seed, clock=self.clock))

    @property
    def servers(self) -> list[RunningSimulator]:
        return self.running.servers

    def run(self, coroutine: Awaitable[T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)  # type: ignore[arg-type]
        return future.result(timeout=30)

    def advance(self, seconds: float) -> None:
        async def tick() -> None:
            self.clock.advance(1.0)
            await asyncio.sleep(0)

        for _ in range(int(seconds)):
            self.run(tick())

    def stop(self) -> None:
        self.run(self.running.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


class Names(HttpTransport):
    """Sends a request for a shown address to the real server it stands for."""

    def __init__(self, real: Mapping[str, str]) -> None:
        super().__init__()
        self._real = dict(real)

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        for named, actual in self._real.items():
            if url.startswith(named):
                url = actual + url[len(named):]
                break
        return await super().request(method, url, cap=cap, headers=headers, body=body, timeouts=timeouts)


def shown_fleet(sims: Sequence[RunningSimulator], **extra: Any) -> tuple[FleetSettings, dict[str, str]]:
    """The standard test fleet as a snapshot shows it (`http://127.0.0.1:8081`, `:8082`...), and the real
    address behind each shown one (for `Names`); `extra` settings for every server."""
    shown = [f"http://127.0.0.1:{8081 + index}" for index in range(len(sims))]
    fleet = fleet_of([(profile, url, sim.publisher_url, token)
                      for (profile, token, _), url, sim in zip(SERVERS, shown, sims, strict=False)], **extra)
    return fleet, {url: sim.api_url for url, sim in zip(shown, sims, strict=True)}


def fleet_of(servers: Sequence[tuple[str, str, str, str]], *, name: str = "lab", **extra: Any) -> FleetSettings:
    """(profile, api url, publisher url, token) per server as a fleet, with the UI tests' settings."""
    return FleetSettings(name, tuple(
        make_settings(api, token=token, profile=profile, publisher_url=publisher, **extra)
        for profile, api, publisher, token in servers), 500.0)


def fleet_app(fleet: FleetSettings, clock: ParkingClock, tmp_path: Path, *, select: str | None = None,
              names: Mapping[str, str] | None = None) -> FleetConsoleApp:
    transport = Names(names) if names is not None else None
    return FleetConsoleApp(
        fleet, lambda settings: Fleet.connect(settings, clock, rng=random.Random(SEED), transport=transport,
                                              audit_path=tmp_path / "audit.jsonl"),
        clock, select=NodePath.parse(select) if select else None, theme_dirs=[BUILTIN_THEME_DIR],
        export_dir=tmp_path / "exports")


Advance = Callable[[float], None]


class FleetDriver:
    """Moves the console's clock and every simulator's, then waits until every engine and the ticker are
    parked on the console clock and the screen is idle."""

    def __init__(self, pilot: Pilot[Any], clock: ParkingClock, servers: int, advance: Sequence[Advance]) -> None:
        self.pilot = pilot
        self.clock = clock
        self.sleepers = servers + 1
        self.advance = list(advance)

    @property
    def app(self) -> FleetConsoleApp:
        app = self.pilot.app
        assert isinstance(app, FleetConsoleApp)
        return app

    async def settle(self) -> None:
        for _ in range(50):
            await asyncio.wait_for(self.clock.parked(self.sleepers), timeout=20)  # a guard, not a timing
            await still(self.pilot)  # what the screen tells the engine, told
            if self.clock.sleepers >= self.sleepers:
                return
        raise AssertionError("the console never settled: an engine keeps being woken")

    async def warm_up(self, seconds: int) -> None:
        """Connect every server, list it and take a few readings of what is on screen."""
        await self.settle()
        await self.step(1.0, times=seconds)

    async def step(self, seconds: float = 1.0, times: int = 1) -> None:
        for _ in range(times):
            for advance in self.advance:
                advance(seconds)
            self.clock.advance(seconds)
            await self.settle()


def independent(count: int = 3) -> list[ThreadedSimulator]:
    """The standard test fleet's first `count` servers, each its own simulator (own token and edition)."""
    return [ThreadedSimulator(edition=edition, access_token=token, seed=SEED + index, name=profile)
            for index, (profile, token, edition) in enumerate(SERVERS[:count])]


def as_fleet(sims: Sequence[ThreadedSimulator | RunningSimulator], **extra: Any) -> FleetSettings:
    """The standard test fleet's profiles and tokens, on these simulators."""
    running = [sim.running if isinstance(sim, ThreadedSimulator) else sim for sim in sims]
    return fleet_of([(profile, sim.api_url, sim.publisher_url, token)
                     for (profile, token, _), sim in zip(SERVERS, running, strict=False)], **extra)



@pytest.fixture
def two() -> Iterator[list[ThreadedSimulator]]:
    """The standard test fleet's first two servers (origin, edge-1), each its own simulator."""
    sims = independent(2)
    yield sims
    for sim in sims:
        sim.stop()


def server_rows(app: App[None]) -> dict[str, str]:
    """Each server's row of the fleet's tree as drawn (profile -> the row's text), from the tree's top level."""
    tree = app.screen.query_one(NodeTree)
    rows: dict[str, str] = {}
    for line in shown(tree).splitlines():
        match = re.match(r"[▼▶] (\S+)  ", line)
        if match:
            rows[match[1]] = line.rstrip()
    return rows


SERVER_ITEMS = {"link": r"([●…✖▲] [a-z]+)", "latency": r"(\d+ ms|n/a)", "err/min": r"(\d+) err/min",
                "viewers": r"([\d,]+|n/a) viewers", "relays": r"([\d,]+) relays?", "out": r"out (\S+ \S+)"}


def server_cells(app: App[None], profile: str) -> dict[str, str]:
    """What a server's row says, item by item (an item the row does not show is absent)."""
    row = server_rows(app).get(profile)
    assert row is not None, server_rows(app)
    return {name: found[1] for name, pattern in SERVER_ITEMS.items()
            if (found := re.search(rf"(?<!\S){pattern}(?!\S)", row))}


def fleet_totals(app: App[None]) -> str:
    return shown(app.screen.query_one("#fleet-totals"))


def server_card(app: App[None]) -> dict[str, str]:
    """The detail's card of the server whose row the cursor is on: its first line, then item -> value."""
    lines = shown(app.screen.query_one("#detail-header")).splitlines()
    card = {"server": lines[0].strip()}
    for line in lines[1:]:
        name, _, value = line.strip().partition(" ")
        card[name] = value.strip()
    return card

"""`omeconsole demo`: the embedded simulator on free ports, and the console connected to it.

The simulator runs in-process, on the app's own event loop, so it starts with the console and
stops with it (no child process to leak). This is the only console module that imports the
simulator; the import-linter contract allows exactly this one.

`omeconsole demo --fleet` starts an origin and two edges (`start_fleet`: the edges pull every stream
over OVT and serve the viewers) and opens the fleet screen on all three; `demo_fleet_settings` is the
fleet as the console sees it (profiles `origin`, `edge-1`, `edge-2`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable

from pydantic import SecretStr

from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.core.session import connector
from omeconsole.core.text import visible
from omeconsole.live.pace import CHART_GAP, REDRAW_GAP
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp, StartWatch
from omeconsole.ui.fleet_app import FleetConsoleApp
from simulator.http.fleet import RunningFleet, start_fleet
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.scenario import ScenarioError, load_scenario

USAGE_EXIT = 2
"""The command line's status for bad usage (the UI does not import the command line)."""


FLEET_EDGES = 2
DEMO_FLEET = "demo"


def _demo_server(base: Settings, simulator: RunningSimulator, profile: str | None) -> Settings:
    return base.model_copy(update={"api_url": simulator.api_url, "publisher_url": simulator.publisher_url,
                                   "token": SecretStr(simulator.access_token), "profile": profile})


def demo_fleet_settings(running: RunningFleet, base: Settings | None = None) -> FleetSettings:
    """The demo's fleet as the console's config would name it: `origin`, then `edge-1`, `edge-2`, ...;
    everything but the servers from `base` (theme, interval, budget...)."""
    base = base or Settings()
    names = ["origin", *(f"edge-{index}" for index in range(1, len(running.edges) + 1))]
    servers = tuple(_demo_server(base, server, name) for name, server in zip(names, running.servers, strict=True))
    return FleetSettings(DEMO_FLEET, servers, base.request_budget)


def introduction(simulator: RunningSimulator, name: str = "demo server") -> str:
    """Where the demo's server listens and its token, for curl and a second terminal (a throwaway
    simulator's well-known token, not a secret of the operator's)."""
    return (f"{name}: API {simulator.api_url} · publisher {simulator.publisher_url} · "
            f"token {simulator.access_token}")


def fleet_introduction(running: RunningFleet) -> str:
    names = ["origin", *(f"edge-{index}" for index in range(1, len(running.edges) + 1))]
    apis = " · ".join(f"{name} {server.api_url}" for name, server in zip(names, running.servers, strict=True))
    return (f"demo fleet: API {apis} · publisher {running.origin.publisher_url} · "
            f"token {running.origin.access_token}")


def _where(running: RunningFleet) -> str:
    edges = ", ".join(f"edge-{index} at {edge.api_url}" for index, edge in enumerate(running.edges, 1))
    return f"origin at {running.origin.api_url}; {edges} (pulling over OVT, with the viewers)"


async def run_demo_async(settings: Settings | None = None, *, scenario: str = "demo", seed: int = 0,
                         select: str | None = None, clock: Clock | None = None, fleet: bool = False,
                         start_watch: StartWatch | None = None) -> int:
    """`fleet`: an origin and its edges, every one of them on the console's fleet screen. `start_watch`:
    told of the console's start (see `ConsoleApp`)."""
    base = settings or Settings()
    clock = clock or SystemClock()
    stop: Callable[[], Awaitable[None]]
    selected = NodePath.parse(select) if select else None
    app: ConsoleApp
    if fleet:
        running = await start_fleet(scenario, edges=FLEET_EDGES, seed=seed)
        stop = running.stop
        print(f"omeconsole demo --fleet: {_where(running)}", file=sys.stderr)
        app = FleetConsoleApp(demo_fleet_settings(running, base),
                              lambda servers: Fleet.connect(servers, clock, demo=True), clock,
                              select=selected, redraw_gap=REDRAW_GAP, chart_gap=CHART_GAP,
                              start_watch=start_watch,
                              record_history=False)  # throwaway servers: not the operator's history
        app.sub_title = f"demo fleet ({scenario}): an origin and {FLEET_EDGES} edges pulling over OVT"
        app.intro = fleet_introduction(running)
    else:
        simulator = await start_simulator(scenario, api_port=0, publisher_port=0, seed=seed)
        stop = simulator.stop
        app = ConsoleApp(_demo_server(base, simulator, None), connector(clock, demo=True), clock,
                         select=selected, redraw_gap=REDRAW_GAP, chart_gap=CHART_GAP,
                         start_watch=start_watch,
                         record_history=False)  # a throwaway server: not the operator's history
        app.sub_title = f"demo: simulated server at {simulator.api_url} ({scenario})"
        app.intro = introduction(simulator)
        print(f"omeconsole demo: {introduction(simulator)}", file=sys.stderr)
    try:
        await app.run_async()
        print(f"omeconsole demo: it was {app.intro}", file=sys.stderr)  # the screen has given the terminal back
        return app.return_code or 0
    finally:
        await stop()


def run_demo(settings: Settings | None = None, *, scenario: str = "demo", seed: int = 0,
             select: str | None = None, fleet: bool = False, start_watch: StartWatch | None = None) -> int:
    """Blocking entry point for the command line (`omeconsole demo`); returns the exit status.

    `settings` supply everything but the server (theme, keymap, interval...); the address and token
    are the embedded simulator's. A scenario that cannot be used is said (exit 2) before the screen
    takes over the terminal.
    """
    try:
        load_scenario(scenario)
    except ScenarioError as error:
        print(f"omeconsole: {visible(str(error))}", file=sys.stderr)
        return USAGE_EXIT
    return asyncio.run(run_demo_async(settings, scenario=scenario, seed=seed, select=select, fleet=fleet,
                                      start_watch=start_watch))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m omeconsole.ui.demo", description=__doc__)
    parser.add_argument("--scenario", default="demo", help="demo, scale, empty or a TOML file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--select", help="vhost[/app[/stream]] to open with")
    parser.add_argument("--fleet", action="store_true", help="an origin and two edges, all on the fleet screen")
    arguments = parser.parse_args()
    raise SystemExit(run_demo(scenario=arguments.scenario, seed=arguments.seed, select=arguments.select,
                              fleet=arguments.fleet))

"""`omeconsole demo`: the embedded simulator on free ports, and the console connected to it.

The simulator runs in-process, on the app's own event loop, so it starts with the console and
stops with it (no child process to leak). This is the only console module that imports the
simulator; the import-linter contract allows exactly this one.
"""

from __future__ import annotations

import asyncio
import sys

from pydantic import SecretStr

from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.session import connector
from omeconsole.core.text import visible
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import CHART_GAP, REDRAW_GAP, ConsoleApp
from simulator.http.server import start_simulator
from simulator.world.scenario import ScenarioError, load_scenario

USAGE_EXIT = 2
"""The command line's status for bad usage (the UI does not import the command line)."""


async def run_demo_async(settings: Settings | None = None, *, scenario: str = "demo", seed: int = 0,
                         select: str | None = None, clock: Clock | None = None) -> int:
    simulator = await start_simulator(scenario, api_port=0, publisher_port=0, seed=seed)
    try:
        base = settings or Settings()
        demo_settings = base.model_copy(update={
            "api_url": simulator.api_url, "publisher_url": simulator.publisher_url,
            "token": SecretStr(simulator.access_token), "profile": None,
        })
        clock = clock or SystemClock()
        app = ConsoleApp(demo_settings, connector(clock, demo=True, freeze_gc=True), clock,
                         select=NodePath.parse(select) if select else None, redraw_gap=REDRAW_GAP,
                         chart_gap=CHART_GAP)
        app.sub_title = f"demo: simulated server at {simulator.api_url} ({scenario})"
        await app.run_async()
        return app.return_code or 0
    finally:
        await simulator.stop()


def run_demo(settings: Settings | None = None, *, scenario: str = "demo", seed: int = 0,
             select: str | None = None) -> int:
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
    return asyncio.run(run_demo_async(settings, scenario=scenario, seed=seed, select=select))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m omeconsole.ui.demo", description=__doc__)
    parser.add_argument("--scenario", default="demo", help="demo, scale, empty or a TOML file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--select", help="vhost[/app[/stream]] to open with")
    arguments = parser.parse_args()
    raise SystemExit(run_demo(scenario=arguments.scenario, seed=arguments.seed, select=arguments.select))

"""The README's pictures: SVG screenshots that Textual makes of the real console, connected to the demo's
simulator (`omeconsole demo` and `omeconsole demo --fleet`) and run headless for a while in real time.

    .venv/bin/python docs/make_pictures.py      # or: make pictures

writes `docs/pictures/dashboard.svg` (the tree and a stream's detail), `ad-break-screen.svg` (the ad-break
screen that opens when the console sends a cue-out: `o`, Enter, `y`), `ad-break.svg` (back on the tree, the
stream in that break) and `fleet.svg` (an origin and two edges). It takes
about two minutes, since the console reads the simulator at its own pace. The sends go to a throwaway
audit log in a temporary directory; no config file, history store or audit log of yours is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

PICTURES = Path(__file__).resolve().parent / "pictures"
SIZE = (160, 48)
STREAM = "default/app/news"


async def _wait(seconds: float) -> None:
    """Real time: the simulator and the console both run on the system clock here."""
    await asyncio.sleep(seconds)


async def single_server(warm_up: float) -> None:
    from pydantic import SecretStr

    from omeconsole.core.clock import SystemClock
    from omeconsole.core.config import Settings
    from omeconsole.core.session import connector
    from omeconsole.model.paths import NodePath
    from omeconsole.ui.app import CHART_GAP, REDRAW_GAP, ConsoleApp
    from omeconsole.ui.demo import introduction
    from simulator.http.server import start_simulator

    simulator = await start_simulator("demo", api_port=0, publisher_port=0, seed=0)
    clock = SystemClock()
    settings = Settings(api_url=simulator.api_url, publisher_url=simulator.publisher_url,
                        token=SecretStr(simulator.access_token))
    app = ConsoleApp(settings, connector(clock, demo=True), clock, select=NodePath.parse(STREAM),
                     redraw_gap=REDRAW_GAP, chart_gap=CHART_GAP, record_history=False)
    app.sub_title = f"demo: simulated server at {simulator.api_url} (demo)"
    app.intro = introduction(simulator)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _wait(warm_up)
            app.save_screenshot("dashboard.svg", str(PICTURES))
            await pilot.press("o")  # the cue-out dialog, its default duration
            await _wait(1.0)
            await pilot.press("enter")
            await _wait(1.0)
            await pilot.press("y")  # "send this?"
            await _wait(12.0)  # the break is seen in the playlist; the ad-break screen opened for it
            app.save_screenshot("ad-break-screen.svg", str(PICTURES))
            await pilot.press("escape")  # back to the tree: the stream's row and header in the break
            await _wait(2.0)
            app.save_screenshot("ad-break.svg", str(PICTURES))
    finally:
        await simulator.stop()


async def fleet(warm_up: float) -> None:
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.fleet.fleet import Fleet
    from omeconsole.model.paths import NodePath
    from omeconsole.ui.app import CHART_GAP, REDRAW_GAP
    from omeconsole.ui.demo import FLEET_EDGES, demo_fleet_settings, fleet_introduction
    from omeconsole.ui.fleet_app import FleetConsoleApp
    from simulator.http.fleet import start_fleet

    running = await start_fleet("demo", edges=FLEET_EDGES, seed=0)
    clock = SystemClock()
    app = FleetConsoleApp(demo_fleet_settings(running), lambda servers: Fleet.connect(servers, clock, demo=True),
                          clock, select=NodePath.parse(STREAM), redraw_gap=REDRAW_GAP, chart_gap=CHART_GAP,
                          record_history=False)
    app.sub_title = f"demo fleet (demo): an origin and {FLEET_EDGES} edges pulling over OVT"
    app.intro = fleet_introduction(running)
    try:
        async with app.run_test(size=SIZE):
            await _wait(warm_up)
            app.save_screenshot("fleet.svg", str(PICTURES))
    finally:
        await running.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm-up", type=float, default=45.0, help="seconds of readings before a picture")
    arguments = parser.parse_args()
    PICTURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["OMECONSOLE_CONFIG"] = str(Path(scratch) / "none.toml")  # the defaults, not your config
        os.environ["OMECONSOLE_AUDIT_LOG"] = str(Path(scratch) / "audit.jsonl")
        os.environ["OMECONSOLE_HISTORY_DB"] = str(Path(scratch) / "history.sqlite3")
        asyncio.run(single_server(arguments.warm_up))
        asyncio.run(fleet(arguments.warm_up))
    for name in ("dashboard.svg", "ad-break-screen.svg", "ad-break.svg", "fleet.svg"):
        print(PICTURES / name)


if __name__ == "__main__":
    main()

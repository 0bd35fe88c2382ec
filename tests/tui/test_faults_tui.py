"""The console's TUI through Pilot against a faulty simulator: latency, 5xx, resets and a server restart.

The harness is the UI tests' (`ui_support`: frozen console clock, Driver that waits for the engine
to park); the simulator here is started with faults, which switch on and off while the app runs.
"""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static
from ui_support import TOKEN, Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui

from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.widgets.status_bar import Banner, StatusBar
from simulator.world.clock import ManualClock

__all__ = ["console_clock", "quiet_ui"]

NEWS = NodePath("default", "app", "news")


class FaultySimulator(ThreadedSimulator):
    """The UI tests' threaded simulator started with faults, which stay off until a test switches them on."""

    def __init__(self, spec: str, latency_s: float = 0.0) -> None:
        super().__init__(faults=spec, name="faulty-simulator")
        self.set_faults(False)
        self._pump = self.run(self._start_pump(latency_s)) if latency_s else None

    async def _start_pump(self, latency_s: float) -> asyncio.Task[None]:
        clock = self.clock
        assert isinstance(clock, ManualClock)

        async def pump() -> None:  # added latency lasts world time: move it on while a request waits
            faults = self.running.faults
            assert faults is not None
            while True:
                if faults.http.held:
                    clock.advance(latency_s)
                await asyncio.sleep(0.002)

        return asyncio.create_task(pump())

    def set_faults(self, on: bool) -> None:
        def switch() -> None:
            assert self.running.faults is not None
            self.running.faults.http.active = on

        self.call(switch)

    def stop(self) -> None:
        if self._pump is not None:
            self._loop.call_soon_threadsafe(self._pump.cancel)
        super().stop()


def shown(widget: Widget) -> str:
    region = Region(0, 0, widget.outer_size.width, widget.outer_size.height)
    return "\n".join(strip.text for strip in widget.render_lines(region))


def screen_text(app: ConsoleApp) -> str:
    parts = [shown(app.screen.query_one(StatusBar)), shown(app.screen.query_one("#detail-header", Static))]
    banner = app.screen.query_one(Banner)
    if banner.display:
        parts.append(shown(banner))
    return "\n".join(parts)


def healthy(app: ConsoleApp, clock: ParkingClock) -> bool:
    engine = app.session.engine
    view = engine.node(NEWS)
    return (engine.connection.status == "connected" and view.state is NodeState.LIVE and view.error is None
            and view.age(clock.monotonic()) == 0.0 and not app.screen.query_one(Banner).display)


def no_bogus_rates(app: ConsoleApp) -> bool:
    return all(rate is None or (math.isfinite(rate) and 0 <= rate <= 3000 * 1320)
               for sample in app.session.engine.node(NEWS).history for rate in (sample.rate_in_bps,))


@pytest.mark.parametrize(("spec", "latency_s", "expect_shown"), [
    ("latency=300ms", 0.3, None),
    ("5xx=1", 0.0, r"\[HTTP\] [A-Za-z ]+ \(50[023]\)"),
    ("reset=1", 0.0, r"(?i)unreachable"),
])
async def test_the_tui_shows_the_fault_and_recovers_within_two_intervals(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path, spec: str, latency_s: float,
        expect_shown: str | None) -> None:
    with FaultySimulator(spec, latency_s) as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select=str(NEWS))
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(3)
            assert healthy(app, console_clock)
            simulator.set_faults(True)
            await driver.step(1.0, times=3)
            text = screen_text(app)
            if expect_shown is None:
                assert healthy(app, console_clock), text
            else:
                assert re.search(expect_shown, text), text
                assert app.session.engine.node(NEWS).state is NodeState.STALE
                assert TOKEN not in text
                assert TOKEN not in app.export_screenshot()
            simulator.set_faults(False)
            await driver.step(1.0, times=2)
            assert healthy(app, console_clock), screen_text(app)
            assert no_bogus_rates(app)


async def test_the_tui_rides_through_a_server_restart_without_a_spike(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    with FaultySimulator("restart=every:6s") as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select=str(NEWS))
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(3)
            await driver.step(1.0, times=10)
            history = list(app.session.engine.node(NEWS).history)
            created = {sample.stats.created for sample in history}
            assert len(created) >= 2  # the restart was seen
            assert no_bogus_rates(app)
            assert healthy(app, console_clock), screen_text(app)

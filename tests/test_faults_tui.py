"""The console's TUI through Pilot against a faulty simulator: latency, 5xx, resets and a server restart.

The harness is the UI tests' (`ui_support`: frozen console clock, Driver that waits for the engine
to park); the simulator here is started with faults, which switch on and off while the app runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static
from ui_support import TOKEN, Driver, ParkingClock, console_clock, make_app, quiet_ui

from omeconsole.core.model import NodePath, NodeState
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.widgets.status_bar import Banner, StatusBar
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import ManualClock

__all__ = ["console_clock", "quiet_ui"]

NEWS = NodePath("default", "app", "news")
T = TypeVar("T")


class FaultySimulator:
    """The simulator with faults on its own loop and thread (the app runs on Pilot's loop)."""

    def __init__(self, spec: str, latency_s: float = 0.0) -> None:
        self.clock = ManualClock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faulty-simulator", daemon=True)
        self._thread.start()
        self.running: RunningSimulator = self.run(start_simulator(
            "demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=11, clock=self.clock, faults=spec))
        self.set_faults(False)
        self._pump = self.run(self._start_pump(latency_s)) if latency_s else None

    async def _start_pump(self, latency_s: float) -> asyncio.Task[None]:
        async def pump() -> None:  # added latency lasts world time: move it on while a request waits
            faults = self.running.faults
            assert faults is not None
            while True:
                if faults.http.held:
                    self.clock.advance(latency_s)
                await asyncio.sleep(0.002)

        return asyncio.create_task(pump())

    @property
    def api_url(self) -> str:
        return self.running.api_url

    def run(self, coroutine: Awaitable[T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)  # type: ignore[arg-type]
        return future.result(timeout=30)

    def call(self, function: Callable[[], T]) -> T:
        async def inside() -> T:
            return function()

        return self.run(inside())

    def set_faults(self, on: bool) -> None:
        def switch() -> None:
            assert self.running.faults is not None
            self.running.faults.http.active = on

        self.call(switch)

    def advance(self, seconds: float) -> None:
        for _ in range(int(seconds)):
            self.call(lambda: self.clock.advance(1.0))

    def stop(self) -> None:
        if self._pump is not None:
            self._loop.call_soon_threadsafe(self._pump.cancel)
        self.run(self.running.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@contextlib.contextmanager
def faulty_simulator(spec: str, latency_s: float = 0.0) -> Iterator[FaultySimulator]:
    simulator = FaultySimulator(spec, latency_s)
    try:
        yield simulator
    finally:
        simulator.stop()


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
    view = app.view(NEWS)
    return (app.connection.status == "connected" and view.state is NodeState.LIVE and view.error is None
            and view.age(clock.monotonic()) == 0.0 and not app.screen.query_one(Banner).display)


def no_bogus_rates(app: ConsoleApp) -> bool:
    return all(rate is None or (math.isfinite(rate) and 0 <= rate <= 3000 * 1320)
               for sample in app.view(NEWS).history for rate in (sample.rate_in_bps,))


@pytest.mark.parametrize(("spec", "latency_s", "expect_shown"), [
    ("latency=300ms", 0.3, None),
    ("5xx=1", 0.0, r"\[HTTP\] [A-Za-z ]+ \(50[023]\)"),
    ("reset=1", 0.0, r"(?i)unreachable"),
])
async def test_the_tui_shows_the_fault_and_recovers_within_two_intervals(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path, spec: str, latency_s: float,
        expect_shown: str | None) -> None:
    with faulty_simulator(spec, latency_s) as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select=str(NEWS))
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)  # type: ignore[arg-type]
            await driver.warm_up(3)
            assert healthy(app, console_clock)
            simulator.set_faults(True)
            await driver.step(1.0, times=3)
            text = screen_text(app)
            if expect_shown is None:
                assert healthy(app, console_clock), text
            else:
                assert re.search(expect_shown, text), text
                assert app.view(NEWS).state is NodeState.STALE
                assert TOKEN not in text
                assert TOKEN not in app.export_screenshot()
            simulator.set_faults(False)
            await driver.step(1.0, times=2)
            assert healthy(app, console_clock), screen_text(app)
            assert no_bogus_rates(app)


async def test_the_tui_rides_through_a_server_restart_without_a_spike(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    with faulty_simulator("restart=every:6s") as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select=str(NEWS))
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)  # type: ignore[arg-type]
            await driver.warm_up(3)
            await driver.step(1.0, times=10)
            history = list(app.view(NEWS).history)
            created = {sample.stats.created for sample in history}
            assert len(created) >= 2  # the restart was seen
            assert no_bogus_rates(app)
            assert healthy(app, console_clock), screen_text(app)

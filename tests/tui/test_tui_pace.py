"""The real terminal's redraw pace: reports are merged into at most one redraw per gap, and a reading of
the selected node (the one whose age the status line gives) is drawn as soon as the gap allows, not
after the other rows' reports. The real app through Pilot against the real simulator, both clocks
frozen and moved by the test; the merge's timers are real time, so what is asserted is what must be
on screen without any of them firing."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    status_of,
    threaded_sim,
)

from omeconsole.live.pace import REDRAW_GAP
from omeconsole.model.paths import NodePath

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")


async def until(pilot: Any, condition: Callable[[], bool], guard_s: float = 20.0) -> None:
    """Until `condition` holds: what waits on the merge's real-time timers (the guard is not a timing)."""
    deadline = time.monotonic() + guard_s
    while not condition():
        assert time.monotonic() < deadline, "the console never drew it"
        await pilot.pause(0.01)


async def test_each_reading_of_the_selected_stream_is_on_screen_as_soon_as_it_is_read(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS), redraw_gap=REDRAW_GAP)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        # The first readings come before the stream is listed and under the cursor: they are drawn once the
        # merge's (real-time) timer fires, the cursor then rests on the stream, and from then on:
        await until(pilot, lambda: "age n/a" not in status_of(app))
        for round_ in range(8):  # every polling round reads the stream and its neighbours, in no set order
            await driver.step(1.0)
            assert "age 0.0 s" in status_of(app), (round_, app.session.engine.node(NEWS))

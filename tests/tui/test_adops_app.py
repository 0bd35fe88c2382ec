"""Ad operations in the real console app: keys on the dashboard's selected stream, the panel, the palette.

Uses the UI harness (simulator on its own thread, both clocks frozen, `Driver.step` moves them).
"""

from __future__ import annotations

import random
from pathlib import Path

from adops_ui_support import sends_done, toasts
from textual.widgets import Static
from ui_support import (
    SEED,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_settings,
    quiet_ui,
    threaded_sim,
)

from omeconsole.core.config import ConfirmSettings
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")


def _app(sim: ThreadedSimulator, clock: ParkingClock, tmp_path: Path, **extra: object) -> ConsoleApp:
    settings = make_settings(sim.api_url, publisher_url=sim.running.publisher_url, **extra)
    return ConsoleApp(settings, connector(clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl"),
                      clock, select=NEWS, theme_dirs=[BUILTIN_THEME_DIR], export_dir=tmp_path / "exports")


def _bodies(sim: ThreadedSimulator) -> list[object]:
    def read() -> list[object]:
        stream = sim.running.world.find_stream("default", "app", "news")
        assert stream is not None
        return [event.body for event in stream.events.events]

    return sim.call(read)


async def test_o_on_the_selected_stream_sends_once_and_the_panel_confirms(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        await pilot.press("enter")  # the default, 30 s
        assert isinstance(app.screen, ConfirmSend)
        await pilot.press("y")
        await sends_done(app)
        await pilot.pause()
        assert _bodies(threaded_sim) == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}]
        assert [t.splitlines()[0] for t in toasts(app)] == ["cue-out · default/app/news"], "said once"
        assert isinstance(app.screen, AdBreakScreen) and app.screen.path == NEWS
        await driver.step(1.0, times=3)
        await pilot.pause()
        await pilot.press("o")  # the break is on: the dialog says a second cue-out would be ignored
        assert isinstance(app.screen, CueOutDialog)
        assert "already on air" in str(app.screen.query_one("#cue-out-warnings", Static).content)
        await pilot.press("escape")
        await pilot.pause()
        state = str(app.screen.query_one("#adbreak-state", Static).content)
        assert "ON AIR" in state and "seen in playlist after" in state, state
    assert len(_bodies(threaded_sim)) == 1
    # The publisher holds a blocked playlist reload until its deadline even after the client left
    # (it does not watch for disconnects); let that deadline pass so the simulator can stop.
    threaded_sim.advance(20)


async def test_read_only_setting_is_said_and_sends_nothing(quiet_ui, threaded_sim: ThreadedSimulator,
                                                    console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path, read_only=True, confirm=ConfirmSettings(cue_in=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        assert "READ-ONLY" in str(app.screen.query_one("#banner", Static).content)
        await pilot.press("enter", "i")
        await sends_done(app)
        await pilot.pause()
        assert not isinstance(app.screen, CueOutDialog)
        assert sum("read-only mode: nothing is sent" in t for t in toasts(app)) == 2
    assert _bodies(threaded_sim) == []

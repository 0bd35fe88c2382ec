"""SVG snapshots of the console: every theme at 160x50 and the dark one at 80x24 (a theme changes colours
only; the compact layout is the dark theme's), help, palette, banner, too small, and
the widgets on made-up data (gaps, an outlier, every state, hostile names) in the dark and light themes.

The data is frozen: a seeded simulator on a ManualClock and a FakeClock for the console, moved the
same number of steps every run, so a snapshot changes only when the picture does.
Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui, threaded_sim
from wait_support import palette_searched
from widget_support import Gallery

__all__ = ["quiet_ui", "threaded_sim"]

THEMES = ["ome-dark", "ome-light", "ome-high-contrast", "ome-colour-blind"]
SnapCompare = Callable[..., bool]


def warmed(clock: ParkingClock, simulator: ThreadedSimulator | None, steps: int = 3,
           then: Callable[[Pilot[Any]], Awaitable[None]] | None = None) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        driver = Driver(pilot, clock, simulator)
        await driver.warm_up(steps)
        if then is not None:
            await then(pilot)
            await driver.settle()

    return run_before


@pytest.mark.parametrize(("theme", "size"), [*((theme, (160, 50)) for theme in THEMES), ("ome-dark", (80, 24))],
                         ids=[*(f"{theme}-160x50" for theme in THEMES), "ome-dark-80x24"])
def test_dashboard_in_every_theme(snap_compare: SnapCompare, quiet_ui: None, threaded_sim: ThreadedSimulator,
                                  tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, theme=theme, select="default/app/news",
                   fixed_address=True)
    assert snap_compare(app, terminal_size=size, run_before=warmed(clock, threaded_sim))


def test_help_screen(snap_compare: SnapCompare, quiet_ui: None, threaded_sim: ThreadedSimulator,
                     tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select="default/app/news", fixed_address=True)

    async def open_help(pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")

    assert snap_compare(app, terminal_size=(100, 36), run_before=warmed(clock, threaded_sim, 2, open_help))


def test_command_palette(snap_compare: SnapCompare, quiet_ui: None, threaded_sim: ThreadedSimulator,
                         tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select="default/app/news", fixed_address=True)

    async def open_palette(pilot: Pilot[Any]) -> None:
        await palette_searched(pilot, *"theme: ome")

    assert snap_compare(app, terminal_size=(100, 30), run_before=warmed(clock, threaded_sim, 2, open_palette))


def test_disconnected_banner(snap_compare: SnapCompare, quiet_ui: None, tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app("http://127.0.0.1:9", clock, tmp_path)  # the discard port: nothing listens there
    assert snap_compare(app, terminal_size=(100, 30), run_before=warmed(clock, None, 0))


def test_too_small_terminal_keeps_one_panel(snap_compare: SnapCompare, quiet_ui: None,
                                            threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select="default/app/news", fixed_address=True)
    assert snap_compare(app, terminal_size=(60, 18), run_before=warmed(clock, threaded_sim, 3))


@pytest.mark.parametrize("theme", ["ome-dark", "ome-light"])
def test_widgets_show_gaps_outliers_states_and_names_as_data(snap_compare: SnapCompare, quiet_ui: None,
                                                              theme: str) -> None:
    """Five minutes of a stream: "in" has a gap and a moment's outlier (clipped, marked, named); the tree
    shows live, stale, ended and unread streams and names with control and bidi characters escaped."""
    assert snap_compare(Gallery(theme, window=300.0), terminal_size=(140, 42))

"""SVG snapshots of every console screen and dialog at 80x24, 120x40, 160x48 and 200x60 in the dark and the
light theme.

One app run per screen and theme: it is warmed on a seeded simulator with both clocks frozen, then
the terminal is resized through the theme's sizes and each picture compared with its stored SVG (the
data cannot move between them: no clock moves). The sizes cross every layout breakpoint
(`ConsoleApp.HORIZONTAL_BREAKPOINTS` and `VERTICAL_BREAKPOINTS`, the dashboard's `WIDE_COLUMNS`, the
detail's `WIDE_DETAIL`).
The simulator is the real one, one per test, so a picture depends on nothing another test did.
Regenerate with `--snapshot-update` and review the SVGs (`tests/tui/__snapshots__/test_tui_snapshots/`);
the ad-ops screens are snapshotted in their own module. A theme chosen while the console runs is checked
against a console started in it (two fresh simulators, the same picture).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from textual.pilot import Pilot
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui, threaded_sim
from wait_support import palette_searched, resized

from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.ended import EndedScreen
from omeconsole.ui.screens.help import HelpScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ConnectPrompt, ExportDone, TokenPrompt
from omeconsole.ui.screens.quit_prompt import QuitWhileSending

__all__ = ["quiet_ui", "threaded_sim"]

FOUR_SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
SIZES = {"ome-dark": FOUR_SIZES, "ome-light": FOUR_SIZES}
Opener = Callable[[Pilot[Any]], Awaitable[None]]


async def nothing(_pilot: Pilot[Any]) -> None:
    pass


async def keys(pilot: Pilot[Any], *pressed: str) -> None:
    await pilot.press(*pressed)


async def open_screen(pilot: Pilot[Any], opened: tuple[str, ...]) -> None:
    """Press the keys that open a screen; keys starting with ctrl+p are a palette search, then Enter."""
    if opened[0] == "ctrl+p":
        await palette_searched(pilot, *opened[1:])
        opened = ("enter",)
    await pilot.press(*opened)


# screen id -> (node selected at start, token, keys that open the screen (ctrl+p, then what is typed in the
# palette before Enter), the screen expected in front)
SCREENS: dict[str, tuple[str | None, str | None, tuple[str, ...], type]] = {
    "dashboard": ("default/app/news", None, (), DashboardScreen),
    "stream": ("default/app/news", None, ("enter",), NodeScreen),
    "application": ("default/app", None, ("enter",), NodeScreen),
    "help": ("default/app/news", None, ("question_mark",), HelpScreen),
    "export_done": ("default/app/news", None, ("e",), ExportDone),
    "connect_prompt": ("default/app/news", None, ("ctrl+p", *"connect to"), ConnectPrompt),
    "token_prompt": (None, "not-the-token", (), TokenPrompt),
    "jump_prompt": ("default/app/news", None, ("colon", *"spo"), JumpPrompt),
    "ended": ("default/app/news", None, ("H",), EndedScreen),
}


def mismatched(svg: SnapshotAssertion, taken: dict[str, str]) -> list[str]:
    """The sizes whose picture differs from its stored SVG (each one is compared, and updated with
    `--snapshot-update`)."""
    return [size for size, picture in taken.items() if not bool(svg(name=size) == picture)]


@pytest.fixture
def svg(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGImageSnapshotExtension)


async def pictures(app: ConsoleApp, clock: ParkingClock, simulator: ThreadedSimulator | None,
                   opened: tuple[str, ...], expected: type, sizes: list[tuple[int, int]],
                   warm: int = 3) -> dict[str, str]:
    """The app warmed, the screen opened, then one screenshot per size."""
    taken: dict[str, str] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, clock, simulator)
        await driver.warm_up(warm)
        if opened:
            await open_screen(pilot, opened)
            await driver.settle()
        assert isinstance(app.screen, expected), app.screen
        for width, height in sizes:
            await resized(pilot, width, height)
            await driver.settle()
            await pilot.wait_for_scheduled_animations()
            taken[f"{width}x{height}"] = app.export_screenshot()
    return taken


@pytest.mark.parametrize("theme", ["ome-dark", "ome-light"])
@pytest.mark.parametrize("screen", list(SCREENS))
async def test_every_screen_at_every_size(svg: SnapshotAssertion, quiet_ui: None, threaded_sim: ThreadedSimulator,
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch, screen: str,
                                          theme: str) -> None:
    select, token, opened, expected = SCREENS[screen]
    clock = ParkingClock()
    monkeypatch.chdir(tmp_path)  # exports go to ./exports: the picture shows no per-run directory
    app = make_app(threaded_sim.api_url, clock, tmp_path, theme=theme, select=select, fixed_address=True,
                   export_dir=Path("exports"), **({"token": token} if token else {}))
    taken = await pictures(app, clock, threaded_sim, opened, expected, SIZES[theme])
    assert mismatched(svg, taken) == []


@pytest.mark.parametrize("theme", ["ome-dark", "ome-light"])
async def test_the_quit_dialog_at_every_size(svg: SnapshotAssertion, quiet_ui: None, threaded_sim: ThreadedSimulator,
                                             tmp_path: Path, theme: str) -> None:
    """What ctrl+c asks while a send is in flight (the dialog as the app pushes it, naming the send)."""
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, theme=theme, select="default/app/news", fixed_address=True)
    taken: dict[str, str] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        app.push_screen(QuitWhileSending(["cue-out to default/app/news (sent 0:02 ago)"]))
        await driver.settle()
        assert isinstance(app.screen, QuitWhileSending)
        for width, height in FOUR_SIZES:
            await resized(pilot, width, height)
            await driver.settle()
            await pilot.wait_for_scheduled_animations()
            taken[f"{width}x{height}"] = app.export_screenshot()
    assert mismatched(svg, taken) == []


@pytest.mark.parametrize("theme", ["ome-dark", "ome-light"])
async def test_the_disconnected_banner_at_every_size(svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path,
                                                     theme: str) -> None:
    clock = ParkingClock()
    app = make_app("http://127.0.0.1:9", clock, tmp_path, theme=theme)  # the discard port: nobody listens
    taken = await pictures(app, clock, None, (), DashboardScreen, SIZES[theme], warm=0)
    assert mismatched(svg, taken) == []


async def picture_in(theme: str, switch_to: str | None, screen: str, tmp_path: Path) -> str:
    """The screen at 160x48 on a fresh seeded simulator, the app started in `theme` and, once the screen is
    open, switched to `switch_to` from the palette."""
    select, _, opened, expected = SCREENS[screen]
    clock = ParkingClock()
    with ThreadedSimulator() as simulator:
        app = make_app(simulator.api_url, clock, tmp_path, theme=theme, select=select, fixed_address=True,
                       export_dir=Path("exports"))
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(3)
            if opened:
                await open_screen(pilot, opened)
                await driver.settle()
            if switch_to is not None:
                await palette_searched(pilot, *f"Theme: {switch_to}")
                await pilot.press("enter")
                await driver.settle()
                assert app.theme == switch_to
            await pilot.wait_for_scheduled_animations()
            assert isinstance(app.screen, expected), app.screen
            return app.export_screenshot()


@pytest.mark.parametrize("screen", ["dashboard", "stream", "application", "help"])
async def test_a_theme_chosen_while_running_recolours_everything_on_screen(
        quiet_ui: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, screen: str) -> None:
    """Started dark and switched to light from the palette, a screen is drawn as when the console starts light
    (nothing keeps a colour of the theme it was built in)."""
    monkeypatch.chdir(tmp_path)
    switched = await picture_in("ome-dark", "ome-light", screen, tmp_path)
    started = await picture_in("ome-light", None, screen, tmp_path)
    assert switched == started

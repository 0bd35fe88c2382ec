"""A screen that holds still, at 80x24, 120x40, 160x48 and 200x60 (issue 27).

Against a real seeded simulator with both clocks frozen between steps, so two pictures taken without a
step between them can only differ by what the console drew differently:
- after any overlay, dialog or toast closes (help, jump prompt, quit dialog, palette, export dialog, the ad-ops
  dialogs and their confirmations, the filter line), the screen reads as it did before it opened;
- a toast never covers the status line or a frame (tests/tui/test_tui_toast_area.py has every screen);
- the detail pane stays where it is while readings arrive and the listing grows with longer names;
- the detail's header fits its width with every figure whole, the tree leaves a blank column before the
  detail, and the footer keeps help, back and quit.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from layout_support import covered, screen_text
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Input, Static
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    make_app,
    make_settings,
    quiet_ui,
    shown,
    threaded_sim,
)
from wait_support import resized

from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.help import HelpScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ExportDone
from omeconsole.ui.screens.quit_prompt import QuitWhileSending
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from simulator.world.scenario import StreamSpec

__all__ = ["quiet_ui", "threaded_sim"]

SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
RATE = re.compile(r"\b(?:in|out) (\S+) (\S+)")
UNITS = ("b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LONG_NAME = "a-stream-whose-name-is-longer-than-any-the-tree-was-fitted-to"


def app_for(simulator: ThreadedSimulator, clock: ParkingClock, tmp_path: Path) -> ConsoleApp:
    return make_app(simulator.api_url, clock, tmp_path, select="default/app/news", fixed_address=True)


async def help_screen(pilot: Pilot[Any]) -> type:
    await pilot.press("question_mark")
    return HelpScreen


async def jump_prompt(pilot: Pilot[Any]) -> type:
    await pilot.press("colon", *"spo")
    return JumpPrompt


async def quit_dialog(pilot: Pilot[Any]) -> type:
    pilot.app.push_screen(QuitWhileSending(["cue-out to default/app/news"]))
    return QuitWhileSending


async def palette(pilot: Pilot[Any]) -> type:
    await pilot.press("ctrl+p")
    from textual.command import CommandPalette

    return CommandPalette


async def export_dialog(pilot: Pilot[Any]) -> type:
    await pilot.press("e")
    return ExportDone


async def cue_out_dialog(pilot: Pilot[Any]) -> type:
    await pilot.press("o")
    return CueOutDialog


async def cue_out_confirmation(pilot: Pilot[Any]) -> type:
    await pilot.press("o")
    await until_in_front(pilot, CueOutDialog)
    await pilot.press("enter")  # the dialog's plan, to its confirmation (Esc there sends nothing)
    return ConfirmSend


async def cue_in_confirmation(pilot: Pilot[Any]) -> type:
    await pilot.press("i")
    return ConfirmSend


async def id3_dialog(pilot: Pilot[Any]) -> type:
    await pilot.press("m")
    return Id3Dialog


async def filter_line(pilot: Pilot[Any]) -> type:
    await pilot.press("slash", *"new")
    assert pilot.app.screen.query_one("#filter", Input).display, "the filter line is open"
    return DashboardScreen


async def until_in_front(pilot: Pilot[Any], screen: type) -> None:
    """Until `screen` is in front (each pause lets the app handle what is queued; nothing waits on time)."""
    for _ in range(200):
        if isinstance(pilot.app.screen, screen):
            return
        await pilot.pause()
    raise AssertionError(f"{screen.__name__} never opened: {pilot.app.screen}")


OVERLAYS: dict[str, Callable[[Pilot[Any]], Awaitable[type]]] = {
    "help": help_screen, "jump prompt": jump_prompt, "quit dialog": quit_dialog, "command palette": palette,
    "export dialog": export_dialog, "cue-out dialog": cue_out_dialog, "cue-out confirmation": cue_out_confirmation,
    "cue-in confirmation": cue_in_confirmation, "ID3 dialog": id3_dialog, "filter": filter_line,
}
DASHBOARD_ONLY = {"jump prompt", "filter"}
"""`:` and `/` are the dashboard's (a node's screen has no listing to jump in or filter)."""


async def toast_shown(driver: Driver, app: ConsoleApp, fresh: str) -> None:
    """A toast over the screen: shown, and the status line and every frame cell untouched."""
    app.notify("answered 200", title="cue-out sent")
    await driver.settle()
    await driver.pilot.wait_for_scheduled_animations()
    with_toast = screen_text(app)
    assert "answered 200" in with_toast, with_toast
    assert covered(fresh, with_toast) == [], with_toast
    app.clear_notifications()
    await driver.settle()
    await driver.pilot.wait_for_scheduled_animations()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_screen_after_an_overlay_closes_reads_as_before_it_opened(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    app = app_for(threaded_sim, clock, tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        for opened in ((), ("enter",)):  # the dashboard, then the stream's own screen
            await pilot.press(*opened)
            await driver.settle()
            under = type(app.screen)
            assert under is (NodeScreen if opened else DashboardScreen)
            await pilot.wait_for_scheduled_animations()
            fresh = screen_text(app)
            for name, overlay in OVERLAYS.items():
                if name in DASHBOARD_ONLY and opened:
                    continue
                expected = await overlay(pilot)
                await until_in_front(pilot, expected)
                await driver.settle()
                assert isinstance(app.screen, expected), (name, app.screen)
                await pilot.press("escape")
                await driver.settle()
                await pilot.wait_for_scheduled_animations()
                assert type(app.screen) is under, name
                assert screen_text(app) == fresh, f"the screen after the {name} closed"
            await toast_shown(driver, app, fresh)
            assert screen_text(app) == fresh, "the screen after the toast went"


def detail_x(app: ConsoleApp) -> int:
    return app.screen.query_one(NodeDetail).region.x


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_detail_pane_stays_where_it_is_as_readings_arrive_and_the_listing_grows(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    app = app_for(threaded_sim, clock, tmp_path)
    async with app.run_test(size=size) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(1)
        tree = app.screen.query_one(NodeTree)
        assert tree.paths(), "the first listing is on screen"
        x = detail_x(app)
        seen = set()
        for _ in range(6):  # readings arrive: badges change, rates grow a digit, viewers come and go
            await driver.step(1.0)
            seen.add(detail_x(app))
        world = threaded_sim.running.world
        threaded_sim.call(lambda: world.start_stream("default", "app", StreamSpec(LONG_NAME, audience=5000)))
        await driver.step(1.0, times=3)
        seen.add(detail_x(app))
        assert seen == {x}, "the detail pane moved"
        rows = shown(tree).splitlines()
        assert any(LONG_NAME[:8] in row and "…" in row for row in rows), rows


def fits(line: str, width: int) -> None:
    assert cell_len(line.rstrip()) <= width, (width, line)
    assert "…" not in line, line
    for figure, unit in RATE.findall(line):
        assert re.fullmatch(r"[\d.,]+", figure) and unit in UNITS, line


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_header_rows_and_footer_fit_every_size(quiet_ui: None, threaded_sim: ThreadedSimulator,
                                                         tmp_path: Path, size: tuple[int, int]) -> None:
    clock = ParkingClock()
    app = app_for(threaded_sim, clock, tmp_path)
    async with app.run_test(size=size) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        tree = app.screen.query_one(NodeTree)
        rows = [row for row in shown(tree).splitlines() if row.strip()]
        assert rows and all(row[tree.size.width - 1] == " " for row in rows if len(row) >= tree.size.width), \
            "a row touches the detail beside the tree"
        for row in rows:
            for figure, unit in RATE.findall(row):
                assert re.fullmatch(r"[\d.,]+", figure) and unit in UNITS, row
        for opened, back in (((), False), (("enter",), True)):
            await pilot.press(*opened)
            await driver.settle()
            header = app.screen.query_one("#detail-header", Static)
            line = shown(header).splitlines()[0]
            fits(line, header.size.width)
            assert "● live" in line and "news" in line and "viewers" in line, line
            footer = screen_text(app).splitlines()[-1]
            assert "? Help" in footer and "q Quit" in footer and ("esc Back" in footer) is back, footer


async def test_in_replay_the_footer_keeps_help_back_and_quit_at_every_size(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    """Replay adds its own keys (play, speed, jumps): the footer still says how to get help and leave."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    live_clock = ParkingClock(wall_start=WALL)
    app = make_app(threaded_sim.api_url, live_clock, tmp_path, select="default/app/news", history=history)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, live_clock, threaded_sim)
        await driver.warm_up(3)
        await driver.step(1.0, times=5)
        await pilot.press("q")
    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=5))
    settings = make_settings("http://127.0.0.1:9/never", history=history)
    replay = open_replay(settings, replay_clock, since=3600)
    try:
        app = replay_app(replay, settings, replay_clock, select=NodePath.parse("default/app/news"),
                         audit_path=tmp_path / "audit.jsonl", theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            for opened, back in (((), False), (("enter",), True)):
                await pilot.press(*opened)
                await driver.settle()
                for width, height in SIZES:
                    await resized(pilot, width, height)
                    await driver.settle()
                    footer = screen_text(app).splitlines()[-1]
                    assert "? Help" in footer and "q Quit" in footer, (width, footer)
                    assert ("esc Back" in footer) is back, (width, footer)
    finally:
        replay.reader.close()

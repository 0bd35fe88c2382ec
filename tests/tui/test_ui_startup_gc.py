"""The console's start without garbage collections, and collections back once its first screen is drawn.

The command line turns collections off at launch (loading the console makes long-lived objects only) and
hands the console a session already polling; the console must turn them back on once its first screen is
on the terminal, or a console left running for days would never free a cycle.
"""

from __future__ import annotations

import asyncio
import gc
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
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

from omeconsole.cli.gc_policy import ConsoleStart
from omeconsole.core.session import Started, connector
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]


@pytest.fixture
def collections_as_the_command_line_leaves_them() -> Iterator[None]:
    """Collections off, as `omeconsole` leaves them when it hands over; this process's own state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()  # the console's freezes are for a console process, not for this test worker
        if was_enabled:
            gc.enable()


async def test_collections_resume_once_the_first_screen_is_drawn(
        collections_as_the_command_line_leaves_them: None, threaded_sim: ThreadedSimulator,
        console_clock: ParkingClock, tmp_path: Path) -> None:
    connect = connector(console_clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl")
    settings = make_settings(threaded_sim.api_url)
    session = connect(settings)
    started = Started(session, asyncio.get_running_loop(), asyncio.create_task(session.engine.run()))
    app = ConsoleApp(settings, connect, console_clock, started=started, theme_dirs=[BUILTIN_THEME_DIR],
                     export_dir=tmp_path / "exports", record_history=False, start_watch=ConsoleStart())
    async with app.run_test(size=(100, 30)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).settle()
        assert isinstance(app.screen, DashboardScreen)
        freezing = [worker for worker in app.workers if worker.group == "start"]  # a finished worker has left
        if freezing:
            await app.workers.wait_for_complete(freezing)
        assert gc.isenabled()

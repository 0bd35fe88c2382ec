"""The console's schedules: the screen (S) with each schedule's next run and who runs them, running them in
this console (R) under the same lock as `omeconsole scheduler`, and the cue-out dialog's template picker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    threaded_sim,
    tree_row,
)

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.schedule.lock import LockHeld, RunnerLock, lock_path
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog
from omeconsole.ui.screens.schedules import SchedulesScreen

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

CONFIG = """
[templates.spot]
duration = 45
id3_out = [{frameType = "TXXX", info = "adId", data = "spot-9"}]

[[schedules]]
name = "news-breaks"
stream = "default/app/news"
template = "spot"
every = "12m"
offset = "3m"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = Path(os.environ["OMECONSOLE_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CONFIG)
    path.chmod(0o600)
    return path


def _text(app: object, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)  # type: ignore[attr-defined]


async def test_the_schedules_screen_and_running_them_in_the_console(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path,
        config: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    lock = lock_path(tmp_path / "audit.jsonl")
    async with app.run_test(size=(140, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        assert "next AD 00:03" in tree_row(app, NodePath("default", "app", "news"))
        await pilot.press("S")
        assert isinstance(app.screen, SchedulesScreen)
        await driver.step(1.0)
        table = app.screen.query_one(DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        # The console's clock reads 2026-01-01 00:00:0x UTC: the next run is 00:03, 2:5x ahead.
        assert row[:5] == ["news-breaks", "default/app/news", "spot", "every 12m +3m (UTC)", "00:03 UTC"]
        assert row[5].startswith("2:5") and row[6] == "active"
        assert "run by nobody: no scheduler holds the lock" in _text(app, "#schedules-summary")
        await pilot.press("R")
        await driver.step(1.0)
        assert "run by this console (R stops them)" in _text(app, "#schedules-summary")
        with pytest.raises(LockHeld, match=r"already run by omeconsole console pid \d+"):
            RunnerLock(lock, "another").acquire(console_clock.wall())
        await pilot.press("R")
        await driver.step(1.0)
        assert "run by nobody" in _text(app, "#schedules-summary")
        RunnerLock(lock, "another").acquire(console_clock.wall())  # the console let it go
        await pilot.press("escape")
        assert not isinstance(app.screen, SchedulesScreen)


async def test_the_cue_out_dialog_picks_a_template_sent_as_one_array(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path,
        config: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news",
                   publisher_url=threaded_sim.running.publisher_url)
    async with app.run_test(size=(140, 45)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        button = app.screen.query_one("#template-0")
        assert "spot: 45 s, ID3 with the out (1)" in str(button.label)  # type: ignore[attr-defined]
        await pilot.click("#template-0")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSend)
        plan = app.screen.plan
        assert plan.to_confirm == (), plan.to_confirm
        assert plan.api_path.endswith("/news:sendEvents") and plan.planned_s == 45
        assert plan.body == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 45000}]},
                             {"eventFormat": "id3v2", "eventType": "event",
                              "events": [{"frameType": "TXXX", "info": "adId", "data": "spot-9"}]}]
        await pilot.press("y")
        await driver.step(1.0, times=3)
    [send] = AuditLog(tmp_path / "audit.jsonl").read_all().sends
    assert send.action == "cue-out" and send.status == 200 and isinstance(send.body, list) and send.origin is None


async def test_the_console_runs_a_schedule_through_the_one_send_path(
        quiet_ui: None, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path,
        config: Path) -> None:
    config.write_text(CONFIG.replace('every = "12m"\noffset = "3m"', 'every = "1m"'))
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, publisher_url=threaded_sim.running.publisher_url)
    async with app.run_test(size=(140, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        await pilot.press("S")
        await pilot.press("R")
        assert isinstance(app.screen, SchedulesScreen)
        scheduler = app.screen.scheduler
        for _ in range(90):  # one second at a time, up to the run at 00:01 and its confirmation
            await driver.step(1.0)
            if any(e.kind == "confirmed" for e in scheduler.events):
                break
        kinds = [e.kind for e in scheduler.events]
        assert kinds[:3] == ["started", "sent", "confirmed"], kinds
        assert "sent: [news-breaks] default/app/news 00:01 UTC: cue-out accepted" in _text(app, "#schedule-events")
        await pilot.press("R")
        await driver.step(1.0)
    [send] = AuditLog(tmp_path / "audit.jsonl").read_all().sends
    assert send.origin == "schedule:news-breaks" and send.time == "2026-01-01T00:01:00.000+00:00"
    assert send.status == 200 and send.confirmations and send.confirmations[0].seen_after_s is not None

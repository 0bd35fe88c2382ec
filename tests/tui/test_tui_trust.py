"""What the console keeps on screen whatever the operator looks at (issue 12): every break on air summed up
in the application's and virtual host's views, sends of an earlier run with no outcome said once at start,
and the status line on the screens opened over the dashboard (E).

The real app through Pilot against the real simulator, both clocks moved by the test (`Driver`).
"""

from __future__ import annotations

import re
from pathlib import Path

from adops_ui_support import sends_done, toasts
from textual.widgets import Static
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui, shown, status_of, threaded_sim

from omeconsole.core.adops.audit import AuditLog, Intent
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.ad_events import AdEventsScreen
from omeconsole.ui.screens.node_screen import NodeScreen

__all__ = ["quiet_ui", "threaded_sim"]

APP = NodePath("default", "app")
STREAMS = [NodePath("default", "app", name) for name in ("stream", "news", "sports", "backup")]


def _header(app: ConsoleApp) -> str:
    return shown(app.screen.query_one("#detail-header", Static))


async def _cue_out_everywhere(app: ConsoleApp) -> None:
    """A 60 s break on each of the application's four streams, through the console's one send path."""
    for path in STREAMS:
        controller = app.live.ad_board.controller(path)  # nobody reads its playlist: the check did not run
        outcome = await controller.send(controller.plan_cue_out(60), confirmed={"check-not-run"})
        assert outcome.status == "accepted", outcome


async def test_the_application_and_host_views_sum_up_every_break_and_count_the_rest(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(APP))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(2)
        assert "ad breaks" not in _header(app)
        await _cue_out_everywhere(app)
        await sends_done(app)
        await driver.step(1.0, times=2)
        header = _header(app)
        # Three named (by path: backup, news, sports), the fourth counted.
        assert re.search(r"ad breaks: backup AD [^·]+ · news AD [^·]+ · sports AD [^+]+ \+1 more", header), header
        assert "ADx4" in shown(app.screen.query_one("#tree"))

        await pilot.press("g", "enter")  # the first row, the virtual host, in its own screen
        await driver.step(1.0)
        assert isinstance(app.screen, NodeScreen) and app.screen.path == NodePath("default")
        header = _header(app)
        assert re.search(r"ad breaks: app/backup AD [^·]+ · app/news AD [^·]+ · app/sports AD [^+]+ \+1 more",
                         header), header
        assert "+4 AD" in status_of(app)  # the host is no stream: all four breaks are elsewhere


def _intent_without_outcome(audit: Path, server: str) -> None:
    body = b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'
    AuditLog(audit).record_intent(Intent("a1b2c3d4", server, None, "default", "app", "news", "cue-out",
                                         "/v1/vhosts/default/apps/app/streams/news:sendEvent", body))


async def test_a_send_left_without_outcome_is_said_once_at_start_and_e_lists_it(
        quiet_ui: None, threaded_sim: ThreadedSimulator, tmp_path: Path) -> None:
    clock = ParkingClock()
    server = threaded_sim.api_url.removeprefix("http://")
    _intent_without_outcome(tmp_path / "audit.jsonl", server)
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(STREAMS[1]))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        if reading := [w for w in app.workers if w.group == "audit-read"]:  # [] would wait for every worker
            await app.workers.wait_for_complete(reading)
        await pilot.pause()
        said = [text for text in toasts(app) if "no recorded outcome" in text]
        assert len(said) == 1, toasts(app)
        assert "1 send(s) in the audit log have no recorded outcome (the last: cue-out to default/app/news" \
            in said[0], said
        assert "E lists them" in said[0]
        await driver.step(1.0, times=3)
        assert len([text for text in toasts(app) if "no recorded outcome" in text]) == 1, "said once"

        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, AdEventsScreen)
        assert "1 outcome unknown" in shown(app.screen.query_one("#events-summary"))
        status = status_of(app)
        assert "● connected" in status and server in status and re.search(r"age \d+\.\d s", status), status
        assert "AD" not in status
        # A break starts on the selected stream while E is open: its status line follows the session.
        controller = app.live.ad_board.controller(STREAMS[1])
        assert (await controller.send(controller.plan_cue_out(60), confirmed={"check-not-run"})).status == "accepted"
        await driver.step(1.0)
        assert isinstance(app.screen, AdEventsScreen)
        assert re.search(r" AD \S", status_of(app)), status_of(app)

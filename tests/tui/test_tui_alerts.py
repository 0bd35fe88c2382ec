"""Alerts in the TUI through Pilot, against the real simulator and its input faults, on clocks the test moves.

A stalled encoder (`ingest-stall`) and a dropped bit rate (`bitrate-drop`) make the `[[alerts]]` rules fire
on the console's own readings: the stream's row and the status line get the badge, the alerts screen
lists the alert, the bell rings once and one desktop notice is made (both heard through the app's public
`bell` and `desktop_notice`); when the fault ends the alert resolves and is listed as resolved. Names from
the config and from the server are shown as data on the screen and in the notice.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from fake_clock import FakeClock
from textual.widgets import DataTable, Static
from ui_support import (
    SEED,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_settings,
    quiet_ui,
    shown,
    status_of,
    tree_row,
)

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.state import Alert, AlertKey, AlertStatus
from omeconsole.core.config import AlertNotices
from omeconsole.core.session import connector
from omeconsole.core.text import visible
from omeconsole.live.alert_notices import BODY_CHARS, TITLE_CHARS, DesktopMode, Notice, osc9, osc777
from omeconsole.model.paths import NodePath
from omeconsole.ui import app as app_module
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.alerts import AlertsScreen
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["console_clock", "quiet_ui"]

NEWS = NodePath("default", "app", "news")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class ListenedApp(ConsoleApp):
    """The console, with the bell and the desktop notice heard instead of sent to the terminal."""

    CSS_PATH = Path(app_module.__file__).with_name("app.tcss")  # a subclass's relative path is its own module's

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rings = 0
        self.notices: list[tuple[Notice, DesktopMode]] = []

    def bell(self) -> None:
        self.rings += 1

    def desktop_notice(self, notice: Notice, mode: DesktopMode) -> None:
        self.notices.append((notice, mode))


def listened_app(api_url: str, clock: FakeClock, tmp_path: Path, rules: list[AlertRule], *,
                 theme: str = "ome-dark", notices: AlertNotices | None = None) -> ListenedApp:
    settings = make_settings(api_url, theme=theme, alerts=rules,
                             alert_notices=notices or AlertNotices(bell=True, desktop="osc777"))
    return ListenedApp(settings, connector(clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl"),
                       clock, select=NEWS, theme_dirs=[BUILTIN_THEME_DIR], export_dir=tmp_path / "exports")


def alerts_table(app: ConsoleApp) -> str:
    assert isinstance(app.screen, AlertsScreen)
    return shown(app.screen.query_one(DataTable))


async def steps_until(driver: Driver, done: Any, limit: int) -> int:
    """Steps of one second until `done()`; how many it took (fails past `limit`)."""
    for count in range(1, limit + 1):
        await driver.step()
        if done():
            return count
    raise AssertionError(f"not within {limit} s: {status_of(driver.app)}")


STALL = "ingest-stall=at:12s:for:10s,streams=default/app/news"


async def test_a_stalled_encoder_fires_once_shows_everywhere_and_resolves(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(name="news ingest", kind="ingest_stopped", scope="default/app/news", after=3,
                     keep_firing_for=3, severity="critical")
    with ThreadedSimulator(faults=STALL) as simulator:
        app = listened_app(simulator.api_url, console_clock, tmp_path, [rule])
        async with app.run_test(size=(140, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(8)
            assert "⚑" not in tree_row(app, NEWS) and "alert" not in status_of(app)
            assert app.rings == 0 and app.notices == []

            await steps_until(driver, lambda: app.rings > 0, 12)  # the stall starts at 12 s of world time
            assert "⚑ 1" in tree_row(app, NEWS)
            assert "⚑ 1 alert" in status_of(app)
            (notice, mode), = app.notices
            assert mode == "osc777" and "news ingest" in notice.title and "default/app/news" in notice.body
            assert notice.urgent and "no input bytes for" in notice.body

            await pilot.press("A")
            assert isinstance(app.screen, AlertsScreen)
            table = alerts_table(app)
            assert re.search(r"⚑ firing +critical +news ingest +default/app/news .* / ≥ 3 s", table), table
            detail = shown(app.screen.query_one("#alert-detail", Static))
            assert "no input bytes for" in detail and "scope default/app/news" in detail
            assert "alert" in status_of(app)  # the status line, as on every screen

            # the stall ends at 22 s; the alert is held 3 s more by its keep-firing period, and says so
            await steps_until(driver, lambda: "resolving" in alerts_table(app), 16)
            assert re.search(r"⚑ resolving \(keep-firing 0:0[1-3]\) +critical +news ingest", alerts_table(app))
            await steps_until(driver, lambda: "resolved" in alerts_table(app), 4)
            assert re.search(r"✓ resolved +critical +news ingest +default/app/news", alerts_table(app))
            assert "firing" not in alerts_table(app)
            assert "alert" not in status_of(app)
            await driver.step(1.0, times=4)
            assert app.rings == 1 and len(app.notices) == 1  # one firing, one bell, one notice

            await pilot.press("enter")  # the alert's node
            assert isinstance(app.screen, NodeScreen) and app.screen.path == NEWS
            await pilot.press("escape")
            assert isinstance(app.screen, DashboardScreen)
            assert "⚑" not in tree_row(app, NEWS)


async def test_alerts_are_ordered_by_state_then_severity_then_age_and_j_k_g_G_move_through_them(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    """Two rules on one stall: the warning fires first, the critical one later; critical is listed first."""
    early = AlertRule(name="early warning", kind="ingest_stopped", scope="default/app/news", after=2,
                      severity="warning")
    late = AlertRule(name="late critical", kind="ingest_stopped", scope="default/app/news", after=5,
                     severity="critical")
    with ThreadedSimulator(faults=STALL) as simulator:
        app = listened_app(simulator.api_url, console_clock, tmp_path, [early, late])
        async with app.run_test(size=(140, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(8)
            await pilot.press("A")
            assert isinstance(app.screen, AlertsScreen)
            await steps_until(driver, lambda: alerts_table(app).count("⚑ firing") == 2, 20)
            rows = [line for line in alerts_table(app).splitlines() if "firing" in line]
            assert "late critical" in rows[0] and "early warning" in rows[1], rows
            screen = app.screen
            assert screen.highlighted().key.rule == "early warning"  # the cursor stayed on the alert it was on
            await pilot.press("g")
            assert screen.highlighted().key.rule == "late critical"
            await pilot.press("j")
            assert screen.highlighted().key.rule == "early warning"
            await pilot.press("k")
            assert screen.highlighted().key.rule == "late critical"
            await pilot.press("G")
            assert screen.highlighted().key.rule == "early warning"
            await pilot.press("g")
            assert screen.highlighted().key.rule == "late critical"
            await pilot.press("pagedown")
            assert screen.highlighted().key.rule == "early warning"
            await pilot.press("pageup")
            assert screen.highlighted().key.rule == "late critical"


async def test_a_bitrate_drop_fires_the_drop_rule_and_a_or_escape_closes_the_alerts_screen(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(kind="input_bitrate_drop", scope="default/app/news", below_percent=50, window=10,
                     keep_firing_for=2)
    with ThreadedSimulator(faults="bitrate-drop=10%@at:14s:for:30s,streams=default/app/news") as simulator:
        app = listened_app(simulator.api_url, console_clock, tmp_path, [rule],
                           notices=AlertNotices(bell=False, desktop="off"))
        async with app.run_test(size=(140, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(10)
            assert app.live.alerts is not None and app.live.alerts.firing() == []
            await steps_until(driver, lambda: "⚑ 1 alert" in status_of(app), 14)
            assert "⚑ 1" in tree_row(app, NEWS)
            assert app.rings == 0 and app.notices == []  # both off: nothing rings
            await pilot.press("A")
            assert re.search(r"⚑ firing +warning +input_bitrate_drop +default/app/news +\S+ +\S+ .*\d+ % / < 50 %",
                             alerts_table(app)), alerts_table(app)
            await pilot.press("A")  # the key that opened it closes it
            assert isinstance(app.screen, DashboardScreen)
            await pilot.press("A", "escape")
            assert isinstance(app.screen, DashboardScreen)


HOSTILE_RULE = "[b]x[/b] [@click=app.quit]q\x1b]52;c;cHduZWQ=\x07\u202egnp.exe;"


async def test_hostile_rule_names_are_shown_inert_on_screen_and_in_the_notice(
        quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(name=HOSTILE_RULE, kind="viewers_above", scope="default/app/news", viewers=0,
                     summary="[red]sum[/red]\x1b[2J")
    with ThreadedSimulator() as simulator:
        app = listened_app(simulator.api_url, console_clock, tmp_path, [rule])
        async with app.run_test(size=(160, 40)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(3)
            await steps_until(driver, lambda: app.rings == 1, 20)
            await pilot.press("A")
            assert app.is_running and isinstance(app.screen, AlertsScreen)
            screen = alerts_table(app) + shown(app.screen.query_one("#alert-detail", Static))
            assert visible(HOSTILE_RULE) in screen.replace("\n", "")  # brackets and escapes, as text
            assert "[red]sum[/red]\\x1b[2J" in screen
            assert not CONTROL.search(app.export_screenshot().replace("\n", ""))
            await pilot.click(DataTable, offset=(30, 1))  # on the would-be link: it quits nothing
            assert app.is_running
            (notice, _mode), = app.notices
            for field in (notice.title, notice.body):
                assert not CONTROL.search(field) and ";" not in field
            assert "\\x1b]52,c,cHduZWQ=\\x07⟨U+202E⟩" in notice.title


def test_a_notice_is_bounded_and_its_escape_sequence_has_one_start_and_one_end() -> None:
    name = "evil\x1b\\\x07;" * 200
    alert = Alert(AlertKey(name, "srv", NodePath("default", "app", name)), "ingest_stopped", "warning",
                  AlertStatus.FIRING, 1.0, 1.0, 12.0, "no input bytes for 12 s", "summary")
    notice = Notice.of([alert])
    assert len(notice.title) == TITLE_CHARS and len(notice.body) == BODY_CHARS and notice.body.endswith("…")
    for sequence, opener in ((osc777(notice), "\x1b]777;notify;"), (osc9(notice), "\x1b]9;")):
        assert sequence.startswith(opener) and sequence.endswith("\x1b\\")
        inner = sequence[len(opener):-2]
        assert not CONTROL.search(inner)
    assert osc777(notice).count(";") == 3  # the sequence's own separators, no more
    several = Notice.of([alert, alert])
    assert several.title == "omeconsole: 2 alerts firing" and not several.urgent

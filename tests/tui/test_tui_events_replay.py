"""Ad breaks and alerts recorded by the console and drawn by `--replay` as the live console drew them.

The real console records the real simulator (history on) while a cue-out then a cue-in are sent with its keys
and an `[[alerts]]` rule fires on a stalled encoder and resolves; then `--replay` of that store, with no server,
shows the same lines under the stream's chart (glyphs, local times, lengths), the bands on the chart, and, at a
moment inside the break, the break going on (its start, and how long so far at that moment). A replay of a store
upgraded from schema 1 says, at moments before the upgrade, that no ad breaks or alerts were kept then.

The live clocks start at 2026-01-01 00:00:00 UTC (the console's ParkingClock, the simulator's ManualClock) and
move together (`Driver.step`); the replay's clock is another ParkingClock 30 min later; TZ is UTC (`quiet_ui`).
"""

from __future__ import annotations

import gzip
import shutil
from datetime import UTC, datetime
from pathlib import Path

from adops_ui_support import sends_done
from history_support import SERVER, STREAM, T0, Reading, write
from history_support import store as stored
from textual.widgets import Static
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, make_settings, quiet_ui, shown

from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.history.observations import ObservedSpan
from omeconsole.core.history.replay_engine import ReplayEngine
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.throughput_chart import BAND_FILL, CachedPlot

__all__ = ["quiet_ui"]

NEWS = NodePath("default", "app", "news")
APP = NodePath("default", "app")
START = datetime(2026, 1, 1, tzinfo=UTC)
DASH = "\N{EN DASH}"
SCHEMA1 = Path(__file__).parents[1] / "support" / "fixtures" / "history-schema1.sqlite3.gz"
STALL = "ingest-stall=at:60s:for:10s,streams=default/app/news"


def events_lines(app: ConsoleApp) -> list[str]:
    """The list under the selected node's chart, one stripped line per event ([] when hidden)."""
    listed = app.screen.query_one("#detail-events", Static)
    return [line.strip() for line in shown(listed).strip().splitlines()] if listed.display else []


def band_columns(app: ConsoleApp) -> int:
    """How many cells of the bit-rate in panel are a band's fill."""
    return sum(line.count(BAND_FILL) for line in shown(app.screen.query(CachedPlot).first()).splitlines())


def legend(app: ConsoleApp) -> str:
    found = app.screen.query_one("#chart-legend", Static)
    return shown(found) if found.display else ""


def hms(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%H:%M:%S")


async def _record(history: HistorySettings, tmp_path: Path) -> tuple[list[str], datetime, datetime]:
    """The live console's run: its event lines at the end, and the break's splice and return."""
    rule = AlertRule(name="news ingest", kind="ingest_stopped", scope="default/app/news", after=3,
                     keep_firing_for=3, severity="critical")
    clock = ParkingClock()
    with ThreadedSimulator(faults=STALL) as simulator:
        app = make_app(simulator.api_url, clock, tmp_path, select=str(NEWS), alerts=[rule], history=history,
                       publisher_url=simulator.running.publisher_url)
        async with app.run_test(size=(160, 50), notifications=True) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(15)  # the replay draws a chart from its first rates on: the break comes after
            await pilot.press("o")
            assert isinstance(app.screen, CueOutDialog)
            await pilot.press("enter")  # the default, 30 s
            assert isinstance(app.screen, ConfirmSend)
            await pilot.press("y")
            await sends_done(app)
            await pilot.press("escape")
            assert isinstance(app.screen, DashboardScreen)
            controller = app.live.ad_board.controller(NEWS)
            for _ in range(6):
                await driver.step()
                if controller.view().state is BreakState.ON_AIR and controller.view().from_playlist:
                    break
            await driver.step(1.0, times=22)
            await pilot.press("i")
            assert isinstance(app.screen, ConfirmSend)
            await pilot.press("y")
            await sends_done(app)
            await pilot.pause()
            for _ in range(6):
                await driver.step()
                if controller.view().state is BreakState.ENDED:
                    break
            view = controller.view()
            assert view.state is BreakState.ENDED and view.splice_wall is not None and view.ends_wall is not None
            for _ in range(40):  # the stall starts at 60 s of world time, the rule fires 3 s into it, then resolves
                await driver.step()
                lines = events_lines(app)
                if lines and lines[0].startswith("⚑") and "so far" not in lines[0]:
                    break
            lines = events_lines(app)
            assert len(lines) == 2 and lines[0].startswith("⚑ alert news ingest firing "), lines
            assert lines[1].startswith(f"AD ad break {hms(view.splice_wall)}{DASH}{hms(view.ends_wall)} ("), lines
            await pilot.press("q")
        simulator.advance(20)
    return lines, view.splice_wall, view.ends_wall


async def test_a_replay_lists_and_draws_the_ad_break_and_alert_the_console_recorded(quiet_ui, tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    live_lines, splice, ends = await _record(history, tmp_path)

    replay_clock = ParkingClock(wall_start=START.replace(minute=30))
    settings = make_settings("http://127.0.0.1:9/never", history=history)
    replay = open_replay(settings, replay_clock, since=3600)
    app = replay_app(replay, settings, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                     theme_dirs=[BUILTIN_THEME_DIR])
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            engine = app.live.engine
            assert isinstance(engine, ReplayEngine)
            assert events_lines(app) == [], "where the replay opens, before the break: nothing yet"
            assert band_columns(app) == 0
            while engine.cursor.position <= splice.timestamp():
                await pilot.press("right")
                await driver.settle()
            at = engine.cursor.position
            assert at < ends.timestamp(), "a 10 s jump lands inside the break"
            so_far = round(at - splice.timestamp())
            assert events_lines(app) == [f"AD ad break {hms(splice)}{DASH} ({so_far} s so far)"], "going on then"
            assert band_columns(app), "drawn open, up to the chart's right end"

            await pilot.press("end")
            await driver.settle()
            assert events_lines(app) == live_lines, "the same lines as the live console's, no notice"
            assert band_columns(app), "the bands on the replayed chart"
            assert "AD ad break" in legend(app) and "⚑ alert firing" in legend(app)
            app.screen.query_one(NodeTree).select_path(APP)
            await pilot.pause()
            assert any(line.startswith(f"AD ad break news {hms(splice)}{DASH}{hms(ends)}")
                       for line in events_lines(app)), events_lines(app)
            assert any(line.startswith("⚑ alert news ingest news firing") for line in events_lines(app))
    finally:
        replay.reader.close()


async def test_a_replay_of_an_upgraded_store_says_until_when_it_kept_no_ad_breaks_or_alerts(
        quiet_ui, tmp_path: Path) -> None:
    """The schema-1 store of `tests/support/fixtures/` (readings of default/app/stream from T0 to T0 + 60 s), then
    written by this version: readings to T0 + 120 s and a break from T0 + 90 s to T0 + 100 s."""
    path = tmp_path / "old.sqlite3"
    with gzip.open(SCHEMA1) as packed, path.open("wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    history = HistorySettings(path=path)
    write(path, [Reading(T0 + s, s, s, 1) for s in range(121)], node=NodePath("default"), now=T0 + 121)
    write(path, [Reading(T0 + s, 1000 * s, 5000 * s, 3) for s in range(61, 121)], now=T0 + 121)
    with stored(path, history, now=T0 + 121) as writer:
        writer.offer(ObservedSpan(SERVER, "run-1", "ad break", STREAM, T0 + 90, T0 + 100, "", "", "sent"))

    replay_clock = ParkingClock(wall_start=datetime.fromtimestamp(T0, UTC).replace(minute=30))
    settings = make_settings("http://127.0.0.1:9/never", history=history)
    replay = open_replay(settings, replay_clock, since=3600)
    app = replay_app(replay, settings, replay_clock, select=STREAM, audit_path=tmp_path / "audit.jsonl",
                     theme_dirs=[BUILTIN_THEME_DIR])
    unseen = f"replay: ad breaks and alerts not recorded before {hms(datetime.fromtimestamp(T0 + 60, UTC))}"
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await pilot.press("home")
            await driver.settle()
            assert events_lines(app) == [unseen]
            await pilot.press("shift+right")  # T0 + 60 s: the last reading the old version wrote
            await driver.settle()
            assert events_lines(app) == [unseen]
            await pilot.press("right", "right", "right", "right")  # T0 + 100 s
            await driver.settle()
            start, end = (hms(datetime.fromtimestamp(T0 + s, UTC)) for s in (90, 100))
            app.screen.query_one(NodeTree).select_path(STREAM)  # at T0 the stream was not listed yet
            await pilot.pause()
            assert events_lines(app) == [f"AD ad break {start}{DASH}{end} (10 s)"]
    finally:
        replay.reader.close()

"""Events on the charts, in the real console against the real simulator, on clocks the test moves.

- A cue-out then a cue-in sent with the console's keys: a band between the splice and the return on the
  stream's chart, at the columns of those instants, and the break in the list under the chart with its
  local times and length (the times the break model holds, which the playlist confirmed).
- An `[[alerts]]` rule firing on a stalled encoder (`ingest-stall`) and resolving: a span in the list and on
  the chart, from firing to resolved; on the application's chart too, named by its stream.
- A server restart (`restart` fault: every `createdTime` changes, the streams stay listed): a restart on the
  stream's chart and list at the restart's time, and on its application's; a stream that then ends: an end.
- `--replay` of a recording with a restart: drawn when the replay plays over it; a store that kept ad breaks
  and alerts from its start says nothing about them (test_tui_events_replay.py replays recorded ones).

Both clocks start at 2026-01-01 00:00:00 UTC (the console's FakeClock, the simulator's ManualClock) and move
together (`Driver.step`), so every time on screen is known exactly; TZ is UTC (`quiet_ui`).
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adops_ui_support import sends_done
from textual.widgets import Static
from ui_support import (
    SEED,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    make_settings,
    quiet_ui,
    shown,
    threaded_sim,
)

from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.throughput_chart import BAND_FILL, CachedPlot

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
APP = NodePath("default", "app")
START = datetime(2026, 1, 1, tzinfo=UTC)
CONSOLE_START = 1000.0
DASH = "\N{EN DASH}"


def _app(sim: ThreadedSimulator, clock: ParkingClock, tmp_path: Path, **extra: object) -> ConsoleApp:
    settings = make_settings(sim.api_url, publisher_url=sim.running.publisher_url, **extra)
    return ConsoleApp(settings, connector(clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl"),
                      clock, select=NEWS, theme_dirs=[BUILTIN_THEME_DIR], export_dir=tmp_path / "exports")


def events_text(app: ConsoleApp) -> str:
    """The list under the selected node's chart, as drawn ("" when hidden)."""
    listed = app.screen.query_one("#detail-events", Static)
    return shown(listed) if listed.display else ""


def first_panel(app: ConsoleApp) -> list[str]:
    """The bit-rate in panel's lines as drawn."""
    return shown(app.screen.query(CachedPlot).first()).splitlines()


def legend(app: ConsoleApp) -> str:
    found = app.screen.query_one("#chart-legend", Static)
    return shown(found) if found.display else ""


def canvas(lines: list[str]) -> tuple[int, int, list[str]]:
    """The plot's first and last data columns (inside the frame `┌…┐`) and the rows inside the frame."""
    top = next(index for index, line in enumerate(lines) if "┌" in line)
    bottom = next(index for index, line in enumerate(lines) if "└" in line)
    left, right = lines[top].index("┌") + 1, lines[top].rindex("┐") - 1
    return left, right, lines[top + 1:bottom]


def columns_with(lines: list[str], char: str) -> list[int]:
    left, right, rows = canvas(lines)
    return sorted({column for row in rows for column in range(left, min(right + 1, len(row))) if row[column] == char})


def column_of(lines: list[str], seconds_before_end: float, window: float) -> float:
    """Where an instant `seconds_before_end` before the chart's right end falls, as a column."""
    left, right, _ = canvas(lines)
    return left + (right - left) * (window - seconds_before_end) / window


def console_time(moment: datetime) -> float:
    """A wall time on the console's monotonic clock (the FakeClock reads START at CONSOLE_START)."""
    return CONSOLE_START + (moment - START).total_seconds()


def hms(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%H:%M:%S")


async def test_a_cue_out_then_cue_in_sent_here_is_a_band_on_the_chart_and_a_line_with_its_times(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        assert events_text(app) == "" and legend(app) == ""
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        await pilot.press("enter")  # the default, 30 s
        assert isinstance(app.screen, ConfirmSend)
        await pilot.press("y")
        await sends_done(app)
        await pilot.press("escape")  # the ad-break screen the accepted cue-out opened
        assert isinstance(app.screen, DashboardScreen)
        controller = app.live.ad_board.controller(NEWS)
        for _ in range(6):  # until the splice was seen in the playlist and reached
            await driver.step()
            if controller.view().state is BreakState.ON_AIR and controller.view().from_playlist:
                break
        assert controller.view().state is BreakState.ON_AIR
        await driver.step(1.0, times=8)
        splice = controller.view().splice_wall
        assert splice is not None
        going = events_text(app)
        assert re.fullmatch(rf"AD ad break {hms(splice)}{DASH} \(\d+ s so far\)", going.strip()), going
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
        assert view.state is BreakState.ENDED and view.ends_wall is not None and view.splice_wall == splice
        lasted = round((view.ends_wall - splice).total_seconds())
        assert 8 <= lasted < 30, "ended by the cue-in, not by its planned 30 s"
        await driver.step(1.0, times=2)
        listed = events_text(app).strip()
        assert listed == f"AD ad break {hms(splice)}{DASH}{hms(view.ends_wall)} ({lasted} s)", listed
        assert "AD ad break" in legend(app)
        # The band on the chart: from the splice's column to the return's, the line drawn over it.
        lines = first_panel(app)
        band = columns_with(lines, BAND_FILL)
        assert band, "\n".join(lines)
        latest = app.live.engine.node(NEWS).latest
        assert latest is not None  # the chart's right end: the series are drawn against the latest reading
        before_splice, before_return = latest.at - console_time(splice), latest.at - console_time(view.ends_wall)
        window = app.live.options.chart_window
        for column, before in ((band[0], before_splice), (band[-1], before_return)):
            assert abs(column - column_of(lines, before, window)) <= 1.5, (band, column_of(lines, before, window))
        assert any("AD" in line for line in lines[:3]), "the glyph at the top of the band"
        # The application's chart draws the stream's break too, named by the stream.
        app.screen.query_one(NodeTree).select_path(APP)
        await pilot.pause()
        assert f"AD ad break news {hms(splice)}{DASH}{hms(view.ends_wall)} ({lasted} s)" in events_text(app)
        assert columns_with(first_panel(app), BAND_FILL)
    threaded_sim.advance(20)


STALL = "ingest-stall=at:12s:for:10s,streams=default/app/news"


async def test_an_alert_firing_then_resolving_is_a_span_on_the_stream_and_its_application(
        quiet_ui, console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(name="news ingest", kind="ingest_stopped", scope="default/app/news", after=3,
                     keep_firing_for=3, severity="critical")
    with ThreadedSimulator(faults=STALL) as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select="default/app/news", alerts=[rule])
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(8)
            assert "alert" not in events_text(app)
            for _ in range(12):  # the stall starts at 12 s of world time, the rule fires 3 s into it
                await driver.step()
                if "firing" in events_text(app):
                    break
            firing = events_text(app).strip()
            match = re.fullmatch(r"⚑ alert news ingest firing (\d\d:\d\d:\d\d)" + DASH + r" \((.*) so far\)", firing)
            assert match is not None, firing
            fired = match.group(1)
            (alert,) = app.live.alerts.firing() if app.live.alerts is not None else []
            assert alert.started_at is not None
            assert fired == hms(START + timedelta(seconds=alert.started_at - CONSOLE_START))
            assert "⚑ alert firing" in legend(app)
            for _ in range(20):  # the stall ends at 22 s; the alert is held 3 s more, then resolves
                await driver.step()
                if "so far" not in events_text(app):
                    break
            resolved = events_text(app).strip()
            done = re.fullmatch(r"⚑ alert news ingest firing (\d\d:\d\d:\d\d)" + DASH
                                + r"(\d\d:\d\d:\d\d) \((\d+) s\)", resolved)
            assert done is not None and done.group(1) == fired, resolved
            seconds = (datetime.strptime(done.group(2), "%H:%M:%S")
                       - datetime.strptime(fired, "%H:%M:%S")).seconds
            assert int(done.group(3)) == seconds and seconds >= 10, resolved
            assert columns_with(first_panel(app), BAND_FILL), "the span on the chart"
            app.screen.query_one(NodeTree).select_path(APP)
            await pilot.pause()
            assert f"⚑ alert news ingest news firing {fired}{DASH}{done.group(2)}" in events_text(app)
        simulator.advance(20)


async def test_a_server_restart_is_a_restart_on_the_stream_and_its_application_and_an_end_is_an_end(
        quiet_ui, console_clock: ParkingClock, tmp_path: Path) -> None:
    with ThreadedSimulator(faults="restart=at:12s") as simulator:
        app = make_app(simulator.api_url, console_clock, tmp_path, select="default/app/news")
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, console_clock, simulator)
            await driver.warm_up(6)
            assert events_text(app) == "", "streams found already up have no start event"
            for _ in range(10):
                await driver.step()
                if "restart" in events_text(app):
                    break
            assert events_text(app).strip() == "↻ restart 00:00:12", events_text(app)
            assert "↻ restart" in legend(app)
            assert any("↻" in line for line in first_panel(app)[:3]), "the restart's glyph on the chart"

            def end_news() -> None:
                world = simulator.running.world
                stream = world.find_stream("default", "app", "news")
                assert stream is not None
                world.end_stream(stream)

            simulator.call(end_news)
            ended = console_clock.wall()
            for _ in range(6):
                await driver.step()
                if "end" in events_text(app):
                    break
            lines = [line.strip() for line in events_text(app).strip().splitlines()]
            assert lines[1:] == ["↻ restart 00:00:12"], lines
            seen_gone = re.fullmatch(r"■ end (\d\d:\d\d:\d\d)", lines[0])
            assert seen_gone is not None, lines
            # ended when the listing showed it gone: at the next listing (every 2 s here)
            assert hms(ended) <= seen_gone.group(1) <= hms(ended + timedelta(seconds=2)), (lines, ended)
            app.screen.query_one(NodeTree).select_path(APP)
            await pilot.pause()
            listed = events_text(app)
            assert "↻ restart news 00:00:12" in listed and f"■ end news {seen_gone.group(1)}" in listed, listed
            assert "▶" not in listed, "a restart is not also a start"


async def test_a_replay_draws_the_restarts_it_recorded(
        quiet_ui, tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    wall = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with ThreadedSimulator(faults="restart=at:12s") as simulator:
        live_clock = ParkingClock(wall_start=wall)
        app = make_app(simulator.api_url, live_clock, tmp_path, select=str(NEWS), history=history)
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, live_clock, simulator)
            await driver.warm_up(3)
            await driver.step(1.0, times=20)
            assert "↻ restart 12:00:12" in events_text(app)
            await pilot.press("q")

    replay_clock = ParkingClock(wall_start=wall + timedelta(minutes=30))
    settings = make_settings("http://127.0.0.1:9/never", history=history)
    replay = open_replay(settings, replay_clock, since=3600)
    app = replay_app(replay, settings, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                     theme_dirs=[BUILTIN_THEME_DIR])
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            assert events_text(app).strip() == "", "before the restart: nothing (a new store keeps every kind)"
            await pilot.press("right", "right")  # 20 s on, over the restart
            await driver.settle()
            lines = [line.strip() for line in events_text(app).strip().splitlines()]
            assert lines == ["↻ restart 12:00:12"], lines
            assert any("↻" in line for line in first_panel(app)[:3]), "on the replayed chart too"
            await pilot.press("home")  # back before it: not shown until played over again, then once
            await driver.settle()
            assert "restart" not in events_text(app)
            await pilot.press("end")
            await driver.settle()
            assert events_text(app).count("↻ restart") == 1
    finally:
        replay.reader.close()

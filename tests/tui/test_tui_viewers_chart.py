"""Viewers over time: the detail's viewers chart, per playback protocol on a stream, against the real
simulator's counts; on the charts' window (`w`/`W`); and replayed from the history store as it was drawn live."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fleet_support import outbound, server_record
from textual.app import App
from textual_plotext import PlotextPlot
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

from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.audience import PLAYBACK
from omeconsole.model.paths import NodePath
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LEGEND = re.compile(r"⢕⢕ (\w+) ([\d,]+)")


def viewers_chart(app: App[Any]) -> str:
    """The viewers panel as drawn (plotext's picture: title, legend, axes)."""
    return "\n".join(shown(plot) for plot in app.screen.query_one("#detail-viewers").query(PlotextPlot))


def rate_chart(app: App[Any]) -> str:
    return "\n".join(shown(plot) for plot in app.screen.query_one("#detail-chart").query(PlotextPlot))


def legend(app: App[Any]) -> dict[str, int]:
    """The viewers chart's legend as drawn: each line's name and latest count."""
    return {name: int(count.replace(",", "")) for name, count in LEGEND.findall(viewers_chart(app))}


def top_tick(chart: str) -> int:
    """The highest y tick label of a count panel."""
    return int(next(line for line in chart.splitlines() if "┤" in line).split("┤")[0].strip().replace(",", ""))


def playback(counts: dict[str, int]) -> dict[str, int]:
    """The playback protocols' counts (relays, pushes, recordings and thumbnails are not viewers)."""
    return {name: counts.get(name, 0) for name in PLAYBACK}


async def test_the_stream_views_viewers_chart_follows_the_servers_counts_per_protocol(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await pilot.press("enter")
        await driver.settle()
        assert isinstance(app.screen, NodeScreen) and app.screen.path == NEWS
        seen: list[dict[str, int]] = []
        for _ in range(8):
            await driver.step(1.0)
            truth = playback(outbound(await server_record(threaded_sim.running, str(NEWS))))
            watched = {name: count for name, count in truth.items() if count}
            assert len(watched) >= 2, "the news stream is watched over several protocols"
            expected = {**watched, "total": sum(truth.values())}
            assert legend(app) == expected, "one line per protocol with viewers, and the total, as the server counts"
            assert top_tick(viewers_chart(app)) >= max(expected.values())
            seen.append(expected)
        chart = viewers_chart(app)
        assert "viewers · last 1 min" in chart and "-60s" in chart and "now" in chart
        assert "ovt" not in chart and "relays" not in chart, "relays are not viewers"
        assert len({tuple(s.items()) for s in seen}) > 1, "the counts moved while the chart followed them"
        header = shown(app.screen.query_one("#detail-header"))
        assert f"{seen[-1]['total']} viewers" in header, "the chart's total is the header's viewers"


async def test_w_and_shift_w_move_the_viewers_chart_with_the_rate_charts(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        for keys, span, tick in ((("w",), "5 min", "-5m"), (("w",), "15 min", "-15m"), (("W", "W"), "1 min", "-60s")):
            await pilot.press(*keys)
            await driver.settle()
            viewers, rates = viewers_chart(app), rate_chart(app)
            assert f"viewers · last {span}" in viewers and f"last {span}" in rates
            assert tick in viewers and tick in rates, "the same span on both"
            assert viewers.rstrip().endswith("now") and "now" in rates


async def test_an_application_shows_its_total_viewers_without_a_legend(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app_path = NodePath("default", "app")
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(app_path))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        chart = viewers_chart(app)
        assert "viewers · last 1 min" in chart and not LEGEND.search(chart)
        viewers = app.session.engine.node(app_path).viewers
        assert viewers is not None and top_tick(chart) >= viewers > 0


async def test_a_replay_draws_the_viewers_chart_the_live_view_drew(quiet_ui: None, tmp_path: Path) -> None:
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    simulator = ThreadedSimulator(seed=SEED)
    live_clock = ParkingClock(wall_start=WALL)
    drawn: dict[float, dict[str, int]] = {}
    app = make_app(simulator.api_url, live_clock, tmp_path, select=str(NEWS), history=history)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, live_clock, simulator)
            await driver.warm_up(3)
            for _ in range(20):
                await driver.step(1.0)
                drawn[live_clock.wall().timestamp()] = legend(app)
            await pilot.press("q")
    finally:
        simulator.stop()

    for later, since, note in ((timedelta(minutes=30), 3600, None),
                               (timedelta(hours=2), 3 * 3600, "per protocol not recorded")):
        replay_clock = ParkingClock(wall_start=WALL + later)
        settings = make_settings("http://127.0.0.1:9/never", history=history)
        replay = open_replay(settings, replay_clock, since=since)
        app = replay_app(replay, settings, replay_clock, select=NEWS, audit_path=tmp_path / "audit.jsonl",
                         theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            await pilot.press("right")  # 10 s after the first moment recorded
            await driver.settle()
            chart = viewers_chart(app)
            assert "viewers · last 1 min" in chart
            if note is None:  # the full readings are kept: the same lines as live
                assert legend(app) == drawn[replay.cursor.position]
            else:  # only a tier's buckets reach back that far: the total, and no made-up zeros
                assert note in chart and set(legend(app)) == {"total"}

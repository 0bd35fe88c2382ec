"""States that are true: a stream whose encoder stalls turns `◐ stalled` within the shared threshold (the
`ingest_stopped` rule's default) and back to `● live` when its input resumes; an ended stream reads as
ended, with when it was last seen and its input as last known (no current figures)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.app import App
from textual_plotext import PlotextPlot
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    shown,
    threaded_sim,
    tree_row,
)

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.model.nodes import INGEST_STALL_S
from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

STREAM = NodePath("default", "app", "stream")
STALL_FROM, STALL_UNTIL = 30, 60


def _chart(app: App[Any]) -> str:
    """The detail's chart panels as drawn (plotext's pictures, titles and axes included)."""
    return "\n".join(shown(plot) for plot in app.screen.query_one("#detail-chart").query(PlotextPlot))


def state_of(text: str) -> str:
    for mark in ("● live", "◐ stalled", "○ ended", "▲ stale"):
        if mark in text:
            return mark
    raise AssertionError(f"no state in {text!r}")


async def test_an_ingest_stall_turns_the_row_stalled_within_the_threshold_and_live_again(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    assert AlertRule(kind="ingest_stopped").after == INGEST_STALL_S  # one threshold for the rule and the row
    faults = f"ingest-stall={STALL_FROM}s..{STALL_UNTIL}s,streams=default/app/stream"
    with ThreadedSimulator(faults=faults) as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, select=str(STREAM))
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.settle()
            seen: dict[int, tuple[str, str]] = {}
            for second in range(1, STALL_UNTIL + 15):
                await driver.step(1.0)
                header = shown(app.screen.query_one("#detail-header"))
                seen[second] = (state_of(tree_row(app, STREAM)), state_of(header))
        stalled_by = STALL_FROM + int(INGEST_STALL_S) + 2  # the threshold, and a reading to see it
        for second, states in seen.items():
            if 3 <= second < STALL_FROM + INGEST_STALL_S:
                assert states == ("● live", "● live"), (second, states)
            elif stalled_by <= second <= STALL_UNTIL:
                assert states == ("◐ stalled", "◐ stalled"), (second, states)
            elif second >= STALL_UNTIL + 3:
                assert states == ("● live", "● live"), (second, states)


async def test_an_ended_streams_row_reads_as_ended_with_when_and_its_last_known_input(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    news = NodePath("default", "app", "news")
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(STREAM))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        live = tree_row(app, news)
        assert state_of(live) == "● live" and " srt " in live
        assert app.screen.query_one(NodeTree).select_path(news)  # its detail reads its stream information
        await driver.step(1.0, times=2)
        assert "H264" in shown(app.screen.query_one("#detail-info")).upper()

        def end() -> None:
            stream = threaded_sim.running.world.find_stream("default", "app", "news")
            assert stream is not None
            threaded_sim.running.world.end_stream(stream)

        threaded_sim.call(end)
        await driver.step(1.0, times=12)  # the next listing says it is gone
        assert app.screen.query_one(NodeTree).select_path(news)  # opens the application's "ended" group
        await driver.settle()
        ended = tree_row(app, news)
        assert state_of(ended) == "○ ended" and "last seen 00:" in ended and "input was srt" in ended, ended
        assert "viewers" not in ended and " in " not in ended and "n/a" not in ended, ended
        detail = shown(app.screen.query_one("#detail-header"))
        assert state_of(detail) == "○ ended", detail  # the cursor is on it: the detail is the ended stream's
        inbound = shown(app.screen.query_one("#bars-in"))
        assert "last known" in inbound and "srt" in inbound and "not reported" not in inbound, inbound
        # Its chart stops at its end, not "now", and says when; its tracks are what was last known, with when.
        when = re.search(r"last seen (\d\d:\d\d:\d\d)", ended)
        assert when is not None, ended
        chart = _chart(app)
        assert f"ended {when.group(1)}" in chart and "now" not in chart and "end" in chart.split("\n")[-1], chart
        tracks = shown(app.screen.query_one("#detail-info"))
        assert f"last known ({when.group(1)})" in tracks and "no stream information" not in tracks, tracks
        assert "video" in tracks and "H264" in tracks.upper(), tracks
        before = chart
        await driver.step(1.0, times=5)  # time goes on; the ended stream's chart does not move with it
        assert _chart(app) == before

"""Events on a chart, widget by widget: every panel draws them (the bit-rate panels and any panel added to the
same chart), a legend names the kinds in the window, and the list's lines are what an operator reads, with
outside names shown as data."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Static
from textual_plotext import PlotextPlot
from ui_support import quiet_ui

from omeconsole.core.timeline import EventKind, NodeEvent
from omeconsole.model.paths import NodePath
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.widgets.event_list import KIND_STYLES, ShownEvents, chart_marks, event_line
from omeconsole.ui.widgets.throughput_chart import BAND_FILL, ChartMark, Series, ThroughputChart

__all__ = ["quiet_ui"]  # TZ=UTC: the local times below are UTC's

DASH = "\N{EN DASH}"
APP = NodePath("default", "app")
NEWS = NodePath("default", "app", "news")
NOW_WALL = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
NOW = 1000.0


class ThreePanels(PaletteApp[None]):
    CSS = "ThroughputChart { height: 16; }"

    def compose(self) -> ComposeResult:
        yield ThroughputChart(panels=3)


def panels(app: App[Any]) -> list[list[str]]:
    return [[strip.text for strip in plot.render_lines(Region(0, 0, plot.size.width, plot.size.height))]
            for plot in app.query(PlotextPlot).results(PlotextPlot)]


def three_series() -> list[Series]:
    xs = [float(t) for t in range(-59, 1)]
    return [Series(name, xs, [2e6] * 60, "rate-in") for name in ("bit rate in", "bit rate out", "viewers")]


def drawn_columns(lines: list[str], char: str) -> set[int]:
    return {column for line in lines for column, cell in enumerate(line) if cell == char}


async def test_every_panel_draws_the_band_and_the_column_and_the_legend_names_the_kinds() -> None:
    app = ThreePanels()
    async with app.run_test(size=(150, 20)) as pilot:
        chart = app.query_one(ThroughputChart)
        chart.set_events([ChartMark(-40.0, -25.0, KIND_STYLES[EventKind.AD_BREAK]),
                          ChartMark(-10.0, None, KIND_STYLES[EventKind.RESTART])])
        chart.set_series(three_series())
        await pilot.pause()
        drawn = panels(app)
        assert len(drawn) == 3
        for lines in drawn:
            band = sorted(drawn_columns(lines, BAND_FILL))
            assert band, "\n".join(lines)
            restart = drawn_columns(lines, "↻")
            assert len(restart) == 1 and min(restart) > max(band), "the restart after the break, on the right"
            assert any("AD" in line for line in lines)
        legend = app.query_one("#chart-legend", Static)
        assert legend.display and "AD ad break" in str(legend.render()) and "↻ restart" in str(legend.render())
        chart.set_events([ChartMark(-400.0, -350.0, KIND_STYLES[EventKind.AD_BREAK])])  # before the window
        chart.flush()
        await pilot.pause()
        assert all(not drawn_columns(lines, BAND_FILL) for lines in panels(app))
        assert not legend.display, "no legend for kinds not on the chart"


def shown(events: list[NodeEvent], viewed: NodePath = NEWS) -> ShownEvents:
    return ShownEvents(viewed, events, NOW, NOW_WALL)


def test_the_lines_say_kind_name_local_times_and_length() -> None:
    ad = NodeEvent(EventKind.AD_BREAK, NEWS, NOW - 300, NOW - 270)
    seen = NodeEvent(EventKind.AD_BREAK, NEWS, NOW - 60, None, "seen in the playlist")
    alert = NodeEvent(EventKind.ALERT, NEWS, NOW - 80, None, "ingest-stalled")
    restart = NodeEvent(EventKind.RESTART, NEWS, NOW - 5)
    assert event_line(ad, shown([ad])) == f"AD ad break 11:55:00{DASH}11:55:30 (30 s)"
    assert event_line(ad, shown([ad], APP)) == f"AD ad break news 11:55:00{DASH}11:55:30 (30 s)"
    assert event_line(seen, shown([seen])) == f"AD ad break (seen in the playlist) 11:59:00{DASH} (1 min 00 s so far)"
    assert event_line(alert, shown([alert])) == f"⚑ alert ingest-stalled firing 11:58:40{DASH} (1 min 20 s so far)"
    assert event_line(restart, shown([restart])) == "↻ restart 11:59:55"


def test_outside_names_are_data_and_marks_are_placed_against_the_latest_reading() -> None:
    hostile = NodeEvent(EventKind.ALERT, NodePath("default", "app", "\x1b]52;c;bad\x07"), NOW - 10, None,
                        "[bold red]rule\u202e")
    line = event_line(hostile, shown([hostile], APP))
    assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line and "[bold red]rule" in line
    open_span = NodeEvent(EventKind.ALERT, NEWS, NOW - 10, None, "x")
    closed = NodeEvent(EventKind.AD_BREAK, NEWS, NOW - 50, NOW - 20)
    marks = chart_marks(shown([open_span, closed]), reference=NOW - 2)
    assert [(m.start, m.end) for m in marks] == [(-48.0, -18.0), (-8.0, 0.0)], "oldest first; open: to the end"

"""Charts worth looking at: fixed windows, own scales for in and out, round ticks with units, outliers
clipped and named, gaps as gaps, a cost that follows the width not the history; sparklines that show change."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Label
from textual_plotext import PlotextPlot

from omeconsole.core.chart_scale import (
    downsample,
    nice_step,
    rate_axis,
    robust_top,
    runs,
    spark_levels,
    time_axis,
    time_columns,
)
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.widgets.rate_sparkline import RateSparkline, Spark, SparkBars, spark_numbers
from omeconsole.ui.widgets.throughput_chart import COUNT, Panel, Series, ThroughputChart

BRAILLE = range(0x2801, 0x2900)


class TestArithmetic:
    def test_downsampling_keeps_two_points_per_column_and_every_extreme(self) -> None:
        xs = [float(t) for t in range(-3600, 0)]
        ys = [5e6 + 1e5 * math.sin(t / 7) for t in range(3600)]
        ys[1234] = 9e6
        ys[2345] = 1e6
        out_x, out_y = downsample((xs, ys), -3600.0, 0.0, 50)
        assert len(out_x) <= 100
        assert out_x == sorted(out_x), "in time order"
        assert max(out_y) == 9e6 and min(out_y) == 1e6, "a one-second spike and dip survive"
        assert downsample((xs[:80], ys[:80]), -3600.0, 0.0, 50) == (xs[:80], ys[:80]), "few points: untouched"

    def test_missing_rates_and_silences_break_the_line(self) -> None:
        xs = [float(t) for t in range(-30, -10)] + [float(t) for t in range(-5, 1)]  # silent from -11 to -5
        ys: list[float | None] = [1.0] * len(xs)
        ys[4] = None  # no rate at -26
        pieces = runs(xs, ys, -60.0, 0.0)
        assert [(p[0][0], p[0][-1]) for p in pieces] == [(-30.0, -27.0), (-25.0, -11.0), (-5.0, 0.0)]
        assert all(None not in p[1] for p in pieces)
        assert runs(xs, ys, -8.0, 0.0) == [([-5.0, -4.0, -3.0, -2.0, -1.0, 0.0], [1.0] * 6)], "only the window"

    def test_a_moments_outlier_does_not_set_the_scale(self) -> None:
        steady = [5e6] * 59 + [14e6]
        top = robust_top(steady)
        assert top.value == 5e6 and top.clipped_peak == 14e6
        step_up = [5e6] * 40 + [9e6] * 20
        assert robust_top(step_up).value == 9e6 and robust_top(step_up).clipped_peak is None
        assert robust_top([1.0, 10.0]).value == 10.0, "too few points to call anything an outlier"
        assert robust_top([]).value == 0.0

    def test_rate_ticks_are_round_with_the_unit_on_the_axis(self) -> None:
        assert rate_axis(5.5e6, 3).labels == ["0", "2", "4", "6 Mb/s"]
        out = rate_axis(1.3e9, 4)
        assert out.labels == ["0", "0.5", "1.0", "1.5 Gb/s"] and out.top == 1.5e9
        assert rate_axis(0.0, 2).labels == ["0", "0.5", "1.0 kb/s"], "no traffic: a small honest scale"

    def test_time_ticks_are_round_and_end_at_now(self) -> None:
        assert time_axis(60.0, 40).labels == ["-60s", "-45s", "-30s", "-15s", "now"]
        assert time_axis(60.0, 60).labels == ["-60s", "-50s", "-40s", "-30s", "-20s", "-10s", "now"]
        assert time_axis(300.0, 60).labels == ["-5m", "-4m", "-3m", "-2m", "-1m", "now"]
        assert time_axis(3600.0, 40).labels == ["-60m", "-45m", "-30m", "-15m", "now"]
        assert len(time_axis(900.0, 12).labels) <= 2

    def test_sparkline_rule(self) -> None:
        steady = spark_levels([5.00e6, 5.02e6, 4.98e6, 5.01e6], 4)
        assert set(steady) <= {3, 4}, "a steady rate is a flat line at mid height, not a solid bar"
        rising = spark_levels([2e6, 3e6, 4e6, 5e6], 4)
        assert rising[0] == 0 and rising[-1] == 7, "a real change spans the height"
        assert spark_levels([8.0, 0.0, None, 8.0], 4) == [7, 0, None, 7], "zero on the floor, a gap blank"
        assert max(spark_levels([1.0] * 50 + [9.0] + [1.0] * 49, 10)) == 7, "a spike survives squeezing"
        outlier = spark_levels([5.0, 5.1] * 10 + [30.0], 21)
        assert outlier[-1] == 7 and set(outlier[:-1]) <= {3, 4}, "an outlier is a full bar, not the scale"


@given(st.floats(min_value=1e-3, max_value=1e12), st.integers(min_value=1, max_value=8))
def test_steps_are_one_two_or_five_times_a_power_of_ten(span: float, count: int) -> None:
    step = nice_step(span, count)
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert any(math.isclose(mantissa, m) for m in (1, 2, 5))
    assert span / step <= count * (1 + 1e-9)


def bars(values: list[float | None], width: int) -> str:
    console = Console(width=width, record=True)
    console.print(SparkBars(values, width, Style()))
    return console.export_text().rstrip("\n")


def test_sparkline_draws_change_not_a_solid_bar() -> None:
    assert bars([5000.0, 5010.0, 4990.0, 5000.0], 4) == "▅▅▄▅"
    assert bars([1.0, 1.0], 6) == "    ▅▅", "right-aligned: the newest value is the last column"
    assert spark_numbers(4.5e6, 4.1e6, 4.9e6) == "4.50 Mb/s  min 4.10  max 4.90"
    assert spark_numbers(4.5e6, 900e3, 4.9e6) == "4.50 Mb/s  min 900.00 kb/s  max 4.90 Mb/s"


class ChartHost(PaletteApp[None]):
    CSS = "ThroughputChart { height: 14; }"

    def compose(self) -> ComposeResult:
        yield ThroughputChart()


def panels(app: App[Any]) -> list[list[str]]:
    return [[strip.text for strip in plot.render_lines(Region(0, 0, plot.size.width, plot.size.height))]
            for plot in app.query(PlotextPlot).results(PlotextPlot)]


def series(ys_in: list[float | None], ys_out: list[float | None]) -> list[Series]:
    xs = [float(t - len(ys_in) + 1) for t in range(len(ys_in))]
    return [Series("bit rate in", xs, ys_in, "rate-in"), Series("bit rate out", xs, ys_out, "rate-out")]


async def test_in_and_out_each_have_their_own_scale_and_the_window_is_fixed() -> None:
    app = ChartHost()
    async with app.run_test(size=(120, 20)) as pilot:
        chart = app.query_one(ThroughputChart)
        chart.set_series(series([5.2e6] * 30, [1.3e9] * 30))
        await pilot.pause()
        left, right = ("\n".join(lines) for lines in panels(app))
        assert "bit rate in · last 1 min" in left and "6 Mb/s┤" in left
        assert "bit rate out · last 1 min" in right and "1.5 Gb/s┤" in right
        assert "-60s" in left and "now" in left, "30 s of data, yet the axis spans the whole minute"
        assert any(ord(c) in BRAILLE for c in left), "in is drawn on its own scale, not flat at 0"
        chart.window = 300.0
        await pilot.pause()
        left = "\n".join(panels(app)[0])
        assert "last 5 min" in left and "-5m" in left


async def test_an_outlier_is_clipped_marked_and_named_and_a_gap_stays_a_gap() -> None:
    app = ChartHost()
    async with app.run_test(size=(120, 20)) as pilot:
        chart = app.query_one(ThroughputChart)
        ys: list[float | None] = [5e6] * 60
        ys[40] = 30e6
        gap: list[float | None] = [2e6] * 20 + [None] * 20 + [2e6] * 20
        chart.set_series(series(ys, gap))
        await pilot.pause()
        left, right = panels(app)
        assert "▲ peak 30.00 Mb/s off scale" in "\n".join(left)
        assert any("▲" in line for line in left[2:-2]), "the clipped point is marked in the plot"
        assert "6 Mb/s┤" in "\n".join(left), "the scale follows the usual level, not the spike"
        line = next(row for row in right if any(ord(c) in BRAILLE for c in row))
        plot_cells = line.split("┤", 1)[1] if "┤" in line else line.split("│", 1)[1]
        drawn = [ord(c) in BRAILLE for c in plot_cells.rstrip("│ ")]
        third = len(drawn) // 3
        assert any(drawn[:third]) and any(drawn[-third:]) and not any(drawn[third + 2:2 * third - 2])


class SparkHost(PaletteApp[None]):
    CSS = "RateSparkline { width: 80; height: 1; }"

    def compose(self) -> ComposeResult:
        yield RateSparkline("in", "rate-in")


async def test_a_sparklines_numbers_keep_their_width_for_one_node_and_fit_the_next_node() -> None:
    app = SparkHost()
    async with app.run_test(size=(90, 5)) as pilot:
        spark = app.query_one(RateSparkline)
        numbers = spark.query_one(".numbers", Label)
        spark.show([12.37e6, 12.4e6])
        await pilot.pause()
        wide = str(numbers.content)
        assert wide == "12.40 Mb/s  min 12.37  max 12.40"
        spark.show([12.37e6, 12.4e6, 4.58e6])  # the same node: the width stays (no relayout per digit)
        await pilot.pause()
        assert str(numbers.content) == "4.58 Mb/s  min 4.58  max 12.40".ljust(len(wide))  # the widest it needed
        spark.show([4.58e6, 4.71e6], fresh=True)  # another node: its own width, not the last node's widest
        await pilot.pause()
        assert str(numbers.content) == "4.71 Mb/s  min 4.58  max 4.71"


def test_sparkline_columns_are_the_charts_instants_blank_where_there_is_no_data() -> None:
    """A 15-minute window with 6 minutes of data: the data fills the last 6/15 of the columns, not all."""
    xs = [float(t) for t in range(-360, 1)]  # a reading a second for the last 6 minutes
    columns = time_columns(xs, [5e6] * len(xs), 900.0, 30)
    assert columns[:17] == [None] * 17 and all(v == 5e6 for v in columns[18:])
    spike = time_columns([-899.0, -450.0, 0.0], [1.0, 9.0, 2.0], 900.0, 3)
    assert spike == [1.0, 9.0, 2.0], "each reading in the column of its instant"
    assert time_columns([-1000.0, -10.0], [7.0, None], 900.0, 3) == [None, None, None], "outside, or no rate"
    every_second = [float(t) for t in range(-60, 1)]
    rates: list[float | None] = [5e6] * 61
    assert None not in time_columns(every_second, rates, 60.0, 120), "columns of half a second: no gaps between"
    rates[20:50] = [None] * 30  # a silence of 30 s: blank, as on the chart
    silent = time_columns(every_second, rates, 60.0, 120)
    assert silent[45:95] == [None] * 50 and silent[30] == silent[110] == 5e6


class TwoSparks(PaletteApp[None]):
    CSS = "RateSparkline { width: 80; height: 1; }"

    def compose(self) -> ComposeResult:
        yield RateSparkline("in", "rate-in", id="in")
        yield RateSparkline("out", "rate-out", id="out")


async def test_in_and_out_sparklines_padded_alike_have_bars_of_the_same_width() -> None:
    app = TwoSparks()
    async with app.run_test(size=(90, 5)) as pilot:
        spark_in, spark_out = app.query_one("#in", RateSparkline), app.query_one("#out", RateSparkline)
        xs = [float(t) for t in range(-60, 1)]
        spark_in.show([5e6] * 61, xs=xs, window=60.0)
        spark_out.show([188.68e6] * 61, xs=xs, window=60.0)  # wider numbers than the input's
        for spark in (spark_in, spark_out):
            spark.pad_numbers_to(max(spark_in.numbers_width, spark_out.numbers_width))
        await pilot.pause()
        bars_in, bars_out = (spark.query_one(Spark).size.width for spark in (spark_in, spark_out))
        assert bars_in == bars_out > 20


class ViewersHost(PaletteApp[None]):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        chart = ThroughputChart(panels=1)
        chart.styles.height = self.rows
        yield chart


@pytest.mark.parametrize("rows", [7, 16])
async def test_a_panel_of_several_lines_names_them_in_its_legend_or_its_title_when_the_legend_does_not_fit(
        rows: int) -> None:
    """plotext drops a legend taller than its plot: the names then go in the title, so a line is never unnamed."""
    xs = [float(t) for t in range(-29, 1)]
    names = ("llhls 14", "hlsv3 7", "webrtc 5", "total 26")
    lines = tuple(Series(name, xs, [float(n)] * 30, "rate-out", COUNT) for n, name in enumerate(names, 1))
    app = ViewersHost(rows)
    async with app.run_test(size=(120, 24)) as pilot:
        app.query_one(ThroughputChart).set_series([Panel("viewers", lines)])
        await pilot.pause()
        drawn = panels(app)[0]
        title, plot = drawn[0], "\n".join(drawn[1:])
        for name in names:
            assert name in (plot if rows == 16 else title), "\n".join(drawn)
            assert name not in (title if rows == 16 else plot)

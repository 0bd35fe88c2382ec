"""The bit-rate chart: milliseconds per build at 60, 600 and 3,600 points of history, before and after.

A build is what a redraw of the chart costs: the series handed to the widget and every plotext
picture in it built and turned into Rich text (`PlotextPlot.render`). Both widgets run in one
process, alternating, in a headless app at 160x50 with the chart 100x12 (the dashboard's chart
area at that size); the old widget is loaded from git (the merge base with main unless `--baseline`
says otherwise). The window shown by the new chart covers all the points (1 min, 15 min, 1 h), so
both draw the same history.

    .venv/bin/python bench/bench_chart.py [--builds 20] [--rounds 3] [--baseline REV]
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
from typing import Any

from baseline import loaded, parser, row
from textual.app import ComposeResult
from textual.widget import Widget
from textual_plotext import PlotextPlot

from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR, load_themes
from omeconsole.ui.widgets.throughput_chart import Series, ThroughputChart

POINTS = {60: 60.0, 600: 900.0, 3600: 3600.0}
"""History length -> the new chart's window that shows all of it."""


def history(points: int) -> tuple[list[float], list[float | None], list[float | None]]:
    xs = [float(t - points + 1) for t in range(points)]
    rate_in: list[float | None] = [5e6 + 3e5 * math.sin(t / 9) for t in range(points)]
    rate_out: list[float | None] = [1.2e9 + 1e8 * math.cos(t / 13) for t in range(points)]
    rate_in[points // 3] = None
    return xs, rate_in, rate_out


class Host(PaletteApp[None]):
    CSS = "#chart { width: 100; height: 12; }"

    def __init__(self, chart: Widget) -> None:
        super().__init__()
        self.chart = chart

    def compose(self) -> ComposeResult:
        yield self.chart

    def on_mount(self) -> None:
        for theme in load_themes([BUILTIN_THEME_DIR]).themes:
            self.register_theme(theme)
        self.theme = "ome-dark"


async def measure(chart: Widget, series: list[Any], window: float | None, builds: int) -> list[float]:
    spent: list[float] = []
    async with Host(chart).run_test(size=(160, 50)) as pilot:
        if window is not None:
            chart.window = window  # type: ignore[attr-defined]
        await pilot.pause()
        for build in range(-2, builds):
            gc.collect()
            started = time.process_time()
            chart.set_series(series)  # type: ignore[attr-defined]
            for plot in chart.query(PlotextPlot).results(PlotextPlot):
                plot.render()
            if build >= 0:
                spent.append((time.process_time() - started) * 1000)
    return spent


async def main() -> int:
    args = parser(__doc__, "builds", 20).parse_args()
    rev = loaded(args)
    import old_throughput_chart  # type: ignore[import-not-found]

    results: dict[tuple[int, str], list[float]] = {}
    for round_ in range(args.rounds):
        for points, window in POINTS.items():
            xs, rate_in, rate_out = history(points)
            old_series = [old_throughput_chart.Series("in", xs, rate_in, "rate-in"),
                          old_throughput_chart.Series("out", xs, rate_out, "rate-out")]
            new_series = [Series("bit rate in", xs, rate_in, "rate-in"),
                          Series("bit rate out", xs, rate_out, "rate-out")]
            runs = [("before", lambda: old_throughput_chart.ThroughputChart(id="chart"), old_series, None),
                    ("after", lambda: ThroughputChart(id="chart"), new_series, window)]
            for which, make, series, shown in runs if round_ % 2 == 0 else reversed(runs):
                results.setdefault((points, which), []).extend(await measure(make(), series, shown, args.builds))
    print(f"baseline {rev[:10]}; {args.rounds} rounds x {args.builds} builds, alternating; CPU ms per build")
    print("| points | before: median (p90) | after: median (p90) | after / before |")
    print("|---|---|---|---|")
    for points in POINTS:
        print(row(f"{points:,}", results[(points, "before")], results[(points, "after")]))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))

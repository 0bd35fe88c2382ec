"""The one chart widget of the console: bit rate over time, whatever draws it underneath.

Screens only call `set_series` (and `flush`); plotext (through textual-plotext) is an implementation
detail of this file, so the drawing back end can be swapped without touching any screen. Building a
plotext picture is the costliest drawing the console does, so a caller may ask for at most one
redraw per `min_gap` seconds: newer data then waits for a later `flush`, and a hidden chart waits
until it is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.color import Color
from textual.widget import Widget
from textual_plotext import PlotextPlot


@dataclass(frozen=True)
class Series:
    """One line: its legend label, x in seconds relative to now (negative = past), y in bits per second."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    colour_variable: str
    """A theme variable name (e.g. "rate-in"), resolved at draw time so theme switches apply."""


_SCALES = ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s"))


def _scale_for(peak: float) -> tuple[float, str]:
    for factor, unit in _SCALES:
        if peak >= factor:
            return factor, unit
    return 1.0, "b/s"


class ThroughputChart(Widget):
    """Bit rate in and out over the history window; gaps (None) are left out, the y axis starts at 0."""

    DEFAULT_CSS = """
    ThroughputChart { height: 1fr; }
    ThroughputChart > PlotextPlot { height: 1fr; width: 1fr; }
    """

    def __init__(self, *, title: str = "bit rate", **options: Any) -> None:
        super().__init__(**options)
        self._title = title
        self._series: tuple[Series, ...] = ()
        self._stale = True
        self._drawn_at = -math.inf

    def compose(self) -> ComposeResult:
        yield PlotextPlot()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._draw())
        self._draw()

    def on_show(self) -> None:
        self.flush()  # data that arrived while hidden

    def set_series(self, series: Sequence[Series], *, now: float | None = None, min_gap: float = 0.0) -> None:
        """Replace what is drawn; plotext rebuilds its picture on the next refresh of this widget only.

        With `now` (seconds, the caller's clock) and `min_gap`, the picture is rebuilt only if the
        last one is at least `min_gap` old; otherwise the series waits for a later `flush`.
        """
        self._series = tuple(series)
        self._stale = True
        self.flush(now, min_gap)

    def flush(self, now: float | None = None, min_gap: float = 0.0) -> None:
        """Draw a series that is still waiting, if the chart is shown and the gap has passed."""
        if not self._stale or not self.is_mounted or not self.display:
            return
        if now is not None and now - self._drawn_at < min_gap:
            return
        self._drawn_at = now if now is not None else -math.inf
        self._draw()

    def _colour(self, variable: str) -> tuple[int, int, int]:
        value = self.app.theme_variables.get(variable) or self.app.theme_variables.get("primary", "#888888")
        return Color.parse(value).rgb

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        self._stale = False
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(self._title)
        peak = max((y for s in self._series for y in s.ys if y is not None), default=0.0)
        factor, unit = _scale_for(peak)
        plt.ylabel(unit)
        plt.xlabel("seconds ago")
        for series in self._series:
            points = [(x, y / factor) for x, y in zip(series.xs, series.ys, strict=True) if y is not None]
            if len(points) < 1:
                continue
            xs, ys = zip(*points, strict=True)
            plt.plot(list(xs), list(ys), label=series.label, color=self._colour(series.colour_variable),
                     marker="braille")
        plt.ylim(0, max(1.0, peak / factor * 1.1))
        earliest = min((x for s in self._series for x in s.xs), default=0.0)
        plt.xlim(min(-60.0, earliest), 0)
        plot.refresh()

"""The bit-rate chart: each series (in, out) on a panel of its own, with its own scale, over a fixed window.

Screens only call `set_series` (and `flush`) and set `window`; plotext (through textual-plotext) is an
implementation detail of this file, so the drawing back end can be swapped without touching a screen.

What a panel shows (the arithmetic is in `chart_scale`):
- the last `window` seconds, always the whole window (-5m … now), whatever the history holds;
- y from 0 to a round top in 1-2-5 steps, the unit on the axis's top label;
- a moment's outlier clipped at the top, marked ▲ and named in the title, instead of flattening the rest;
- gaps (no rate, or no sample for a while) as gaps;
- at most two points per column (lowest and highest), so a build costs the same at 60 or 3,600 samples.

Building a plotext picture is still the costliest drawing the console does, so a caller may ask for
at most one redraw per `min_gap` seconds: newer data then waits for a later `flush`, and a hidden
chart waits until it is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.style import Style
from textual.app import ComposeResult, RenderResult
from textual.reactive import reactive
from textual.widget import Widget
from textual_plotext import PlotextPlot

from omeconsole.core import units
from omeconsole.core.chart_scale import (
    WINDOWS,
    downsample,
    rate_axis,
    robust_top,
    runs,
    time_axis,
    window_label,
)
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, Palette, PaletteFollower

CLIPPED_MARK = "▲"
HEADROOM = 1.1
"""The axis reaches at least 10 % above the highest value it shows, so the line is not drawn on the frame."""


def _title(label: str, window: float, note: str, width: int) -> str:
    """The most telling title that fits the plot's `width` (plotext leaves out a title wider than its
    plot): a note about a clipped peak is kept before the long form of the label."""
    span = window_label(window)
    short = label.rsplit(" ", 1)[-1]
    names = [f"{label} · last {span}", f"{short} · {span}", short]
    if note:
        notes = [note, note.replace(" off scale", ""), note.replace(" peak", "").replace(" off scale", "")]
        names = [f"{names[0]}  {notes[0]}", *(f"{name}  {n}" for n in notes for name in names[1:]), *names]
    return next((name for name in names if cell_len(name) <= width - 2), short)


@dataclass(frozen=True)
class Series:
    """One line: its name, x in seconds relative to now (negative = past, ascending), y in bits per
    second (None where there is no rate: drawn as a gap)."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    colour_variable: str
    """A palette name (e.g. "rate-in", `ui/palette`), resolved at draw time so theme switches apply."""


class CachedPlot(PlotextPlot):
    """A plot whose picture is built once per figure, size and theme, not once per repaint: Textual
    repaints every widget of a screen on each of its layout passes, and `PlotextPlot.render` rebuilds
    the whole figure each time (the console's costliest draw). Call `redraw()` after changing `plt`."""

    def __init__(self) -> None:
        super().__init__()
        self._figure = 0
        self._picture: tuple[tuple[object, ...], RenderResult] | None = None

    def redraw(self) -> None:
        self._figure += 1
        self.refresh()

    def render(self) -> RenderResult:
        key = (self._figure, self.size, self.app.theme)
        if self._picture is None or self._picture[0] != key:
            self._picture = (key, super().render())
        return self._picture[1]


class ThroughputChart(Widget):
    """`set_series([in, out])`: one panel per series, side by side."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = """
    ThroughputChart { height: 1fr; layout: horizontal; }
    ThroughputChart > PlotextPlot { height: 1fr; width: 1fr; }
    """ + PALETTE_CSS

    window: reactive[float] = reactive(WINDOWS[0], init=False)
    """Seconds of history shown, ending now."""

    def __init__(self, *, panels: int = 2, **options: Any) -> None:
        super().__init__(**options)
        self._panels = panels
        self._series: tuple[Series, ...] = ()
        self._stale = True
        self._drawn_at = -math.inf
        self._ended: str | None = None
        self._palette = PaletteFollower(self, self._draw)

    def end_at(self, ended: str | None) -> None:
        """The chart ends when the stream ended (`ended`: when, in words) rather than now; None: it runs to now."""
        if ended != self._ended:
            self._ended = ended
            self._stale = True

    def compose(self) -> ComposeResult:
        for _ in range(self._panels):
            yield CachedPlot()

    def on_mount(self) -> None:
        self._draw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def on_show(self) -> None:
        self.flush()  # data that arrived while hidden

    def on_resize(self) -> None:
        self._draw()  # tick spacing and the number of columns follow the size

    def watch_window(self) -> None:
        self._stale = True
        self.flush()

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

    def _colour(self, colours: Palette, name: str) -> tuple[int, int, int]:
        """The one place a palette colour leaves Rich styles: plotext draws in RGB triplets. Without a
        stylesheet that names it (a bare test app), the chart's own text colour."""
        colour = Style.parse(colours.get(name, "")).color or self.rich_style.color
        if colour is None:
            return (136, 136, 136)
        triplet = colour.get_truecolor()
        return (triplet.red, triplet.green, triplet.blue)

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        self._stale = False
        colours = self._palette.built_with()
        for plot, series in zip(self.query(CachedPlot).results(CachedPlot), self._series, strict=False):
            self._draw_panel(plot, series, colours)

    def _draw_panel(self, plot: CachedPlot, series: Series, colours: Palette) -> None:
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        window = self.window
        width, height = max(20, plot.size.width), max(6, plot.size.height)
        pieces = runs(series.xs, series.ys, -window, 0.0)
        # The y labels' width is not known before the axis is: size the columns for the widest one.
        columns = max(1, width - 12)
        shown = [downsample(piece, -window, 0.0, columns) for piece in pieces]
        top = robust_top([y for _, ys in shown for y in ys])
        axis = rate_axis(top.value * HEADROOM, intervals=max(1, min(5, (height - 4) // 2)))
        colour = self._colour(colours, series.colour_variable)
        for xs, ys in shown:
            plt.plot(xs, [min(y, axis.top) for y in ys], marker="braille", color=colour)
        note = "no data" if not shown else ""
        clipped = [x for xs, ys in shown for x, y in zip(xs, ys, strict=True) if y > axis.top]
        if clipped and top.clipped_peak is not None:
            plt.scatter(clipped, [axis.top] * len(clipped), marker=CLIPPED_MARK, color=colour)
            note = f"{CLIPPED_MARK} peak {units.rate(top.clipped_peak)} off scale"
        plot_width = width - max(cell_len(label) for label in axis.labels) - 2
        if self._ended is not None:
            note = f"ended {self._ended}" + (f" · {note}" if note else "")
        plt.title(_title(series.label, window, note, plot_width))
        plt.ylim(0, axis.top)
        plt.yticks(axis.ticks, axis.labels)
        times = time_axis(window, plot_width, "now" if self._ended is None else "end")
        plt.xlim(-window, 0)
        plt.xticks(times.ticks, times.labels)
        plot.redraw()

"""The charts over time: each panel (bit rate in, bit rate out, viewers) with its own scale, over a fixed window.

A panel is one `Series` (a panel of its own, titled by its label) or a `Panel` of several series drawn
on one scale with a legend naming them (viewers per playback protocol). A series' axis is a bit rate
(`RATE`: 1-2-5 ticks with the unit) or a count (`COUNT`: whole-number ticks, no clipping: a rise of
viewers is news, not an outlier).

A screen's redraw calls `show` once (the lines, the window, the events, the end); `set_series`, `set_events`,
`flush` and `window` do one of these at a time. plotext (through textual-plotext) is an
implementation detail of this file, so the drawing back end can be swapped without touching a screen.

What a panel shows (the arithmetic is in `chart_scale`):
- the last `window` seconds, always the whole window (-5m … now), whatever the history holds;
- y from 0 to a round top in 1-2-5 steps, the unit on the axis's top label;
- a moment's outlier clipped at the top, marked ▲ and named in the title, instead of flattening the rest;
- gaps (no rate, or no sample for a while) as gaps;
- at most two points per column (lowest and highest), so a build costs the same at 60 or 3,600 samples.

Events (`set_events`: ad breaks, alerts, a stream's start, end, restart) are drawn on every panel, under the
line: a span as a shaded band from its start to its end (to now while it goes on), an instant as a column,
each with its glyph at the top, and a legend of the kinds shown on the chart's last line.

Building a plotext picture is still the costliest drawing the console does, so a caller may ask for
at most one redraw per `min_gap` seconds: newer data then waits for a later `flush`, and a hidden
chart waits until it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static
from textual_plotext import PlotextPlot

from omeconsole.core import units
from omeconsole.core.chart_scale import (
    WINDOWS,
    count_axis,
    downsample,
    rate_axis,
    robust_top,
    runs,
    time_axis,
    window_label,
)
from omeconsole.live.pace import Interval
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, Palette, PaletteFollower

CLIPPED_MARK = "▲"
HEADROOM = 1.1
"""The axis reaches at least 10 % above the highest value it shows, so the line is not drawn on the frame."""
PLOT_FRAME = 4
"""Rows of a panel that are not its plot: the title, the frame's top and bottom, the time labels."""
LEGEND_MARGIN = 5
"""Columns of a legend's entry besides its label: the space before it, the line's sample and the spaces."""
"""Rows of a panel that are not its plot: the title, the frame's top and bottom, the time labels."""


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


AxisKind = Literal["rate", "count"]
RATE: AxisKind = "rate"
COUNT: AxisKind = "count"


@dataclass(frozen=True)
class Series:
    """One line: its name, x in seconds relative to now (negative = past, ascending), y in bits per
    second (`RATE`) or a count (`COUNT`), None where there is no value: drawn as a gap."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    colour_variable: str
    """A palette name (e.g. "rate-in", `ui/palette`), resolved at draw time so theme switches apply."""
    axis: AxisKind = RATE


@dataclass(frozen=True)
class Panel:
    """Several series on one scale (the first one's axis kind), with a legend naming them."""

    title: str
    lines: tuple[Series, ...]
    note: str = ""
    """Said after the title (what the lines do not cover, e.g. per protocol only for the last 10 min)."""
    legend: bool = True


def _panel(item: Series | Panel) -> Panel:
    return item if isinstance(item, Panel) else Panel(item.label, (item,), legend=False)


def legend_top(peak: float, rows: int, entries: int) -> float:
    """The lowest axis top that keeps a line reaching `peak` under a legend of `entries` rows (plotext
    draws it in the plot's top left corner) on a plot `rows` rows tall: `peak` itself when there is no
    room for both (the legend then covers the oldest few columns' tops)."""
    if entries <= 0 or rows - entries < 2:
        return peak
    return peak * rows / (rows - entries)


BAND_FILL = "░"
"""What a span's band is drawn with: light enough for the line drawn over it to stay readable."""


@dataclass(frozen=True)
class MarkStyle:
    """How one kind of event is drawn: its glyph (on the chart and in the legend), its name in the legend and
    a theme variable for its colour."""

    glyph: str
    words: str
    colour_variable: str


@dataclass(frozen=True)
class ChartMark:
    """One event on the time axis of every panel: seconds relative to now, like the series' x. `end` None:
    an instant (a column); otherwise a band from `start` to `end`."""

    start: float
    end: float | None
    style: MarkStyle


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
    """`set_series([in, out])`: one panel per series (or `Panel`), side by side."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = """
    ThroughputChart { height: 1fr; layout: horizontal; }
    ThroughputChart > PlotextPlot { height: 1fr; width: 1fr; }
    ThroughputChart > #chart-legend { dock: bottom; height: 1; padding: 0 1; display: none; }
    """ + PALETTE_CSS

    window: reactive[float] = reactive(WINDOWS[0], init=False)
    """Seconds of history shown, ending now."""

    def __init__(self, *, panels: int = 2, **options: Any) -> None:
        super().__init__(**options)
        self._panels = panels
        self._series: tuple[Panel, ...] = ()
        self._stale = True
        self._drawn = Interval()
        self._ended: str | None = None
        self._marks: tuple[ChartMark, ...] = ()
        self._palette = PaletteFollower(self, self._draw)

    def compose(self) -> ComposeResult:
        for _ in range(self._panels):
            yield CachedPlot()
        yield Static(id="chart-legend")

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

    def show(self, series: Sequence[Series | Panel] | None, *, window: float, marks: Sequence[ChartMark],
             ended: str | None = None, now: float | None = None, min_gap: float = 0.0) -> None:
        """What one redraw tells the chart, in one call: the lines (None: the same lines, whose new points wait
        under the gap), the seconds of history shown, the events, and when the stream ended (`ended`, in words:
        the chart ends there rather than now; None: it runs to now). Drawn under the gap, as `set_series`; a
        new window is drawn at once."""
        if ended != self._ended:
            self._ended = ended
            self._stale = True
        self.set_events(marks)
        if series is not None:
            self._series = tuple(_panel(item) for item in series)
            self._stale = True
        self.window = window
        self.flush(now, min_gap)

    def set_series(self, series: Sequence[Series | Panel], *, now: float | None = None, min_gap: float = 0.0) -> None:
        """Replace what is drawn; plotext rebuilds its picture on the next refresh of this widget only.

        With `now` (seconds, the caller's clock) and `min_gap`, the picture is rebuilt only if the
        last one is at least `min_gap` old; otherwise the series waits for a later `flush`.
        """
        self._series = tuple(_panel(item) for item in series)
        self._stale = True
        self.flush(now, min_gap)

    def set_events(self, marks: Sequence[ChartMark]) -> None:
        """The events drawn on every panel from the next picture on (with the series' next `set_series` or
        `flush`, under the same gap)."""
        marks = tuple(marks)
        if marks != self._marks:
            self._marks = marks
            self._stale = True

    def flush(self, now: float | None = None, min_gap: float = 0.0) -> None:
        """Draw a series that is still waiting, if the chart is shown and the gap has passed."""
        if not self._stale or not self.is_mounted or not self.display:
            return
        if now is not None and not self._drawn.due(now, min_gap):
            return
        self._drawn.drawn(now)
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
        self._draw_legend(colours)

    def _draw_legend(self, colours: Palette) -> None:
        """The kinds of the events in the window, each glyph in its colour; hidden when there is none."""
        window = self.window
        styles = dict.fromkeys(mark.style for mark in self._marks
                               if (mark.end if mark.end is not None else mark.start) >= -window)
        legend = self.query_one("#chart-legend", Static)
        legend.display = bool(styles)
        if styles:
            text = Text(no_wrap=True, overflow="ellipsis")
            for style in styles:
                text.append(f"{style.glyph} ", style=f"bold {colours.get(style.colour_variable, '')}")
                text.append(f"{style.words}  ")
            legend.update(text)

    def _draw_marks(self, plt: Any, top: float, colours: Palette) -> None:
        """The events under the line: bands (shaded to the top of the axis) and columns, glyphs on top."""
        window = self.window
        for mark in self._marks:
            colour = self._colour(colours, mark.style.colour_variable)
            if mark.end is None:
                if -window <= mark.start <= 0:
                    plt.vline(mark.start, colour)
                    plt.text(mark.style.glyph, mark.start, top, color=colour, alignment="center")
                continue
            start, end = max(mark.start, -window), min(mark.end, 0.0)
            if start <= end:
                plt.plot([start, end], [top, top], marker=BAND_FILL, color=colour, fillx=True)
                plt.text(mark.style.glyph, start, top, color=colour, alignment="left")

    def _draw_panel(self, plot: CachedPlot, panel: Panel, colours: Palette) -> None:
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        window = self.window
        width, height = max(20, plot.size.width), max(6, plot.size.height)
        # The y labels' width is not known before the axis is: size the columns for the widest one.
        columns = max(1, width - 12)
        shown = [[downsample(piece, -window, 0.0, columns) for piece in runs(line.xs, line.ys, -window, 0.0)]
                 for line in panel.lines]
        values = [y for pieces in shown for _, ys in pieces for y in ys]
        intervals = max(1, min(5, (height - 4) // 2))
        top = robust_top(values) if panel.lines[0].axis == RATE else None
        named = [line.label for line, pieces in zip(panel.lines, shown, strict=True) if pieces] if panel.legend else []
        # plotext leaves out a legend taller than its plot: the names then go in the title, never nowhere.
        in_plot = len(named) + PLOT_FRAME <= plot.size.height
        if top is not None:
            axis = rate_axis(top.value * HEADROOM, intervals)
        else:
            labels = named if in_plot else []
            # Only what is drawn in the legend's columns (the oldest part of the window) must stay under it.
            legend_end = -window + window * (LEGEND_MARGIN + max(map(cell_len, labels), default=0)) / columns
            under = max((y for pieces in shown for xs, ys in pieces for x, y in zip(xs, ys, strict=True)
                         if x <= legend_end), default=0.0)
            peak = max(values, default=0.0) * HEADROOM
            axis = count_axis(max(peak, legend_top(under, height - PLOT_FRAME, len(labels))), intervals)
        self._draw_marks(plt, axis.top, colours)
        for line, pieces in zip(panel.lines, shown, strict=True):
            colour = self._colour(colours, line.colour_variable)
            for index, (xs, ys) in enumerate(pieces):
                label = line.label if panel.legend and in_plot and index == 0 else None
                plt.plot(xs, [min(y, axis.top) for y in ys], marker="braille", color=colour, label=label)
        note = "no data" if not values else ""
        clipped = [x for pieces in shown for xs, ys in pieces for x, y in zip(xs, ys, strict=True) if y > axis.top]
        if clipped and top is not None and top.clipped_peak is not None:
            colour = self._colour(colours, panel.lines[0].colour_variable)
            plt.scatter(clipped, [axis.top] * len(clipped), marker=CLIPPED_MARK, color=colour)
            note = f"{CLIPPED_MARK} peak {units.rate(top.clipped_peak)} off scale"
        for words in (panel.note, "" if in_plot else " · ".join(named)):
            if words:
                note = f"{note} · {words}" if note else words
        plot_width = width - max(cell_len(label) for label in axis.labels) - 2
        if self._ended is not None:
            note = f"ended {self._ended}" + (f" · {note}" if note else "")
        plt.title(_title(panel.title, window, note, plot_width))
        plt.ylim(0, axis.top)
        plt.yticks(axis.ticks, axis.labels)
        times = time_axis(window, plot_width, "now" if self._ended is None else "end")
        plt.xlim(-window, 0)
        plt.xticks(times.ticks, times.labels)
        plot.redraw()

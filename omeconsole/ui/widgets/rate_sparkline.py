"""A one-line sparkline of a rate with its current, lowest and highest values written beside it.

The bars follow `chart_scale.spark_levels`: a band at least a quarter of the peak tall, centred on
the data, so a change reads as a change and a steady rate as a flat line (neither a solid bar, as a
scale from zero draws it, nor magnified noise, as a scale from the minimum does). A column without a
reading is left blank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

from omeconsole.core import units
from omeconsole.core.chart_scale import SPARK_BARS, spark_levels, time_columns
from omeconsole.ui.palette import palette_classes, palette_css


def spark_numbers(current: float | None, low: float, high: float) -> str:
    """`4.50 Mb/s  min 4.10  max 4.90`: the unit once when the three share it."""
    now, lowest, highest = units.rate(current), units.rate(low), units.rate(high)
    unit = f" {now.rsplit(' ', 1)[-1]}"
    if lowest.endswith(unit) and highest.endswith(unit):
        lowest, highest = lowest.removesuffix(unit), highest.removesuffix(unit)
    return f"{now}  min {lowest}  max {highest}"


class SparkBars:
    """One row of bars, right-aligned: the newest value is always in the last column."""

    def __init__(self, values: Sequence[float | None], width: int, style: Style) -> None:
        self.values = values
        self.width = width
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = self.width or options.max_width
        levels = spark_levels(self.values, width)
        yield Segment(" " * (width - len(levels)))
        yield Segment("".join(" " if level is None else SPARK_BARS[level] for level in levels), self.style)


class Spark(Widget):
    """The bars alone, in the palette's colour named `colour` (`rate-in`); `show(values)` redraws."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(palette_classes("rate-in", "rate-out"))
    DEFAULT_CSS = "Spark { height: 1; }" + palette_css("rate-in", "rate-out")

    def __init__(self, colour_variable: str, **options: Any) -> None:
        super().__init__(**options)
        self._colour_variable = colour_variable
        self._values: tuple[float | None, ...] = ()
        self._xs: tuple[float, ...] | None = None
        self._window = 0.0
        self._short = False

    def show(self, values: Sequence[float | None], xs: Sequence[float] | None = None, window: float = 0.0) -> None:
        """`xs` (seconds before now) and `window`: the bars span the window, time-aligned, blank where there is
        no reading; without them, the values are spread over the width."""
        shown = (tuple(values), tuple(xs) if xs is not None else None, window)
        if shown != (self._values, self._xs, self._window):
            self._values, self._xs, self._window = shown
            self.refresh()

    def render(self) -> SparkBars:
        width = self.size.width
        values: Sequence[float | None] = self._values
        if self._xs is not None and self._window > 0 and width > 0:
            values = time_columns(self._xs, self._values, self._window, width)
        return SparkBars(values, width, self.get_component_rich_style(f"palette--{self._colour_variable}",
                                                                      partial=True))


CAPTION_WIDTH = 5
MIN_BARS = 12
"""Columns of bars kept before the lowest and highest values give way."""


class RateSparkline(Horizontal):
    """`in  ▄▅▄▅▇█  4.50 Mb/s  min 4.10  max 4.90`: the numbers make the bars readable."""

    DEFAULT_CSS = """
    RateSparkline { height: 1; }
    RateSparkline > .caption { width: 5; }  /* CAPTION_WIDTH */
    RateSparkline > Spark { width: 1fr; min-width: 3; }
    RateSparkline > .numbers { width: auto; padding-left: 1; }
    """

    def __init__(self, caption: str, colour_variable: str, **options: Any) -> None:
        super().__init__(**options)
        self._caption = caption
        self._colour_variable = colour_variable
        self._numbers = units.NA
        self._numbers_width = len(units.NA)
        self._values: tuple[float | None, ...] = ()
        self._short = False
        self._shared_width = 0

    def compose(self) -> ComposeResult:
        yield Label(self._caption, classes="caption")
        yield Spark(self._colour_variable)
        yield Label(units.NA, classes="numbers")

    def show(self, values: Sequence[float | None], *, fresh: bool = False, xs: Sequence[float] | None = None,
             window: float = 0.0) -> None:
        """Oldest first; None where there is no rate. The numbers say n/a until there is one. `fresh`: another
        node's series, so the numbers take the width they need now, not the widest the last node needed.
        `xs`, `window`: the bars span the chart's window, time-aligned (see `Spark.show`)."""
        self.query_one(Spark).show(values, xs, window)
        self._values = tuple(values)
        if fresh:
            self._numbers_width = 0
            self._shared_width = 0
            self._numbers = ""
        self._write_numbers()

    @property
    def numbers_width(self) -> int:
        return self._numbers_width

    def pad_numbers_to(self, width: int) -> None:
        """The numbers take `width` columns (the widest of the in and out sparklines), so both rows keep
        bars of the same width: a column means the same instant in both."""
        if width != self._shared_width:
            self._shared_width = width
            self.query_one(".numbers", Label).update(self._numbers.ljust(max(width, self._numbers_width)),
                                                     layout=True)

    def on_resize(self) -> None:
        self._write_numbers()

    def _write_numbers(self) -> None:
        """Current, lowest and highest when the row has room for them beside a readable sparkline; else
        the current value alone."""
        values = self._values
        known = [v for v in values if v is not None]
        text = spark_numbers(values[-1], min(known), max(known)) if known else units.NA
        room = self.size.width - CAPTION_WIDTH - MIN_BARS - 1
        short = bool(known) and self.size.width > 0 and len(text) > room
        if short:
            text = units.rate(values[-1])
        if text != self._numbers:
            # The numbers take the width they need, and keep the widest they have needed in this form: the
            # screen is laid out again when they grow or change form, not each time a digit comes or goes.
            relayout = short != self._short or len(text) > self._numbers_width
            self._numbers_width = len(text) if short != self._short else max(self._numbers_width, len(text))
            self._short = short
            self.query_one(".numbers", Label).update(text.ljust(max(self._numbers_width, self._shared_width)),
                                                     layout=relayout)
            self._numbers = text

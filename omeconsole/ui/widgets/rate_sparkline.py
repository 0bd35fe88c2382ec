"""A sparkline whose scale starts at zero, with its current, min and max values written beside it.

Textual's Sparkline scales from the smallest to the largest value, which makes a steady 5 Mb/s stream
look wildly jagged; a monitoring console needs the honest picture, so the baseline here is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, Sparkline

from omeconsole.ui import format as fmt

_BARS = "▁▂▃▄▅▆▇█"


class _ZeroBasedBars:
    """One row of bars, one per column, each the max of its slice of the data, scaled from 0 to the peak."""

    def __init__(self, data: Sequence[float], width: int, style: Style) -> None:
        self.data = data
        self.width = width
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = self.width or options.max_width
        if not self.data:
            yield Segment(" " * width)
            return
        peak = max(self.data) or 1.0
        columns = min(width, len(self.data))
        step = Fraction(len(self.data), columns)
        bars = []
        for i in range(columns):
            chunk = self.data[int(i * step): max(int((i + 1) * step), int(i * step) + 1)]
            level = max(chunk) / peak
            bars.append(" " if level <= 0 else _BARS[min(len(_BARS) - 1, int(level * (len(_BARS) - 1) + 0.5))])
        yield Segment(" " * (width - columns))
        yield Segment("".join(bars), self.style)


class ZeroBasedSparkline(Sparkline):
    """Assign a new list to `data` to redraw (in-place changes are not seen)."""

    def render(self) -> _ZeroBasedBars:
        colour = self.get_component_styles("sparkline--max-color").color
        return _ZeroBasedBars(list(self.data or ()), self.size.width, Style(color=colour.rich_color))


class RateSparkline(Horizontal):
    """`in  ▁▂▅▇█  4.50 Mb/s (min 4.10, max 4.90)`: the numbers make the bars readable."""

    DEFAULT_CSS = """
    RateSparkline { height: 1; }
    RateSparkline > .caption { width: 5; }
    RateSparkline > ZeroBasedSparkline { width: 1fr; }
    RateSparkline > .numbers { width: 50; padding-left: 1; }
    """

    def __init__(self, caption: str, **options: Any) -> None:
        super().__init__(**options)
        self._caption = caption

    def compose(self) -> ComposeResult:
        yield Label(self._caption, classes="caption")
        yield ZeroBasedSparkline([])
        yield Label(fmt.NA, classes="numbers")

    def show(self, values: Sequence[float | None]) -> None:
        """Known values only are drawn; the numbers say n/a until there is at least one."""
        known = [v for v in values if v is not None]
        self.query_one(ZeroBasedSparkline).data = known
        numbers = self.query_one(".numbers", Label)
        if not known:
            numbers.update(fmt.NA, layout=False)
            return
        current = values[-1]
        numbers.update(f"{fmt.rate(current)}  (min {fmt.rate(min(known))}, max {fmt.rate(max(known))})",
                       layout=False)

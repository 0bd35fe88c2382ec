"""Connections per protocol as bars with their numbers: inbound (providers) or outbound (publishers).

Protocols with connections get a bar each; the idle ones are named on one muted line, so the panel
stays short and a missing bar still visibly means zero. The panel grows at once and gives room back
only once its readings have needed less for a while (`SHRINK_AFTER`), so counts flapping between 0 and
a few do not move the screen (and lay it all out again) every second or two. When the server does
not report a direction at all (v1 has no inbound counters) the panel says n/a instead of zeros.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.widgets import Static

from omeconsole.core import units
from omeconsole.core.text import visible
from omeconsole.ui.palette import PaletteFollower, palette_classes, palette_css

_FULL = "█"
_PARTIAL = " ▏▎▍▌▋▊▉"
SHRINK_AFTER = 30
"""Readings in a row that need fewer lines before the panel shrinks to the most of them (half a minute at
the default interval: a protocol that comes and goes more often than that keeps its line)."""


def bar(value: int, peak: int, width: int) -> str:
    """A horizontal bar of `width` cells for value/peak, with eighth-cell resolution."""
    if peak <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(value / peak * width * 8))
    full, rest = divmod(eighths, 8)
    return _FULL * full + (_PARTIAL[rest] if rest else "")


class ConnectionBars(Static):
    """One line per protocol: `rtmp    ██████▌        12`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(palette_classes("muted", "meter"))
    DEFAULT_CSS = palette_css("muted", "meter")

    def __init__(self, title: str, protocols: Sequence[str], **options: Any) -> None:
        self._palette = PaletteFollower(self, lambda: self._draw(reading=False))
        super().__init__(**options)
        self.border_title = title
        self._protocols = tuple(protocols)
        self._counts: Mapping[str, int] | None = None
        self._lines = 0
        self._lines_width = 0
        """The width the panel last drew at."""
        self._fewer: list[int] = []
        """The lines of the latest readings in a row that needed fewer than the panel's height."""

    def show(self, counts: Mapping[str, int] | None, *, fresh: bool = False) -> None:
        """None means the server does not report this direction. `fresh`: another node than before."""
        if counts == self._counts and not fresh:
            return
        if fresh or (counts is None) != (self._counts is None):
            self._lines = 0  # another node, or n/a to bars: nothing to keep steady
        self._counts = dict(counts) if counts is not None else None
        self._draw(reading=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def on_resize(self) -> None:
        self._draw(reading=False)  # the bars are as long as the panel is wide

    def _draw(self, *, reading: bool) -> None:
        """Draw; the panel grows to the lines it needs at once, and shrinks to the most the latest
        `SHRINK_AFTER` readings needed once every one of them needed fewer lines than it has.

        Protocols whose counts flap between 0 and a few would otherwise move every panel below them up
        and down every second or two, and each move lays the whole screen out and resizes (rebuilds)
        the chart above. A new width gives room back at once only where the width itself saves lines
        (the same counts wrapped less): the tree beside the detail takes the width its labels need,
        which moves by a cell or two, and that must not undo the wait. The panel sets its height
        itself: inside the detail's row of two panels, Textual measures an auto height at a width
        narrower than the one it then draws at, so bars drawn to the full width were counted as wrapped.
        """
        width = self.content_size.width
        text = self._text(width)
        self.update(text, layout=False)
        if not width:
            return
        lines = self._count(text, width)
        before, self._lines_width = self._lines_width, width
        if lines > self._lines or (before not in (0, width) and lines < self._count(self._text(before), before)):
            self._set_lines(lines)
        elif lines == self._lines:
            self._fewer.clear()
        elif reading:
            self._fewer.append(lines)
            if len(self._fewer) >= SHRINK_AFTER:
                self._set_lines(max(self._fewer))

    def _set_lines(self, lines: int) -> None:
        self._lines = lines
        self._fewer.clear()
        self.styles.height = lines + self.styles.gutter.height

    def _count(self, text: Text, width: int) -> int:
        return len(text.wrap(self.app.console, width))

    def _text(self, width: int) -> Text:
        muted = self._palette.built_with()["muted"]
        if self._counts is None:
            return Text(f"{units.NA} (not reported by this server)", style=muted)
        # Protocols the server names beyond the known ones are its words: shown through `visible`.
        names = list(self._protocols) + sorted(visible(n, 24) for n in set(self._counts) - set(self._protocols))
        counts = {visible(n, 24): v for n, v in self._counts.items()}
        active = [n for n in names if counts.get(n, 0) > 0]
        idle = [n for n in names if counts.get(n, 0) <= 0]
        text = Text()
        if active:
            label_width = max(len(n) for n in active)
            number_width = max(len(units.count(counts[n])) for n in active)
            bar_width = max(0, width - label_width - number_width - 2)
            peak = max(counts[n] for n in active)
            colour = self._palette.built_with()["meter"]
            for name in active:
                value = counts[name]
                text.append(f"{name:<{label_width}} ")
                text.append(bar(value, peak, bar_width).ljust(bar_width), style=colour)
                text.append(f" {units.count(value):>{number_width}}\n", style="bold")
        if idle:
            wide = width >= 40
            text.append(f"0: {', '.join(idle)}" if wide else f"{len(idle)} more at 0", style=muted)
        text.rstrip()
        return text

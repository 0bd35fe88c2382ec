"""The console's own colours (states, rates, muted words) as Rich styles read from CSS, never from theme variables.

A widget or screen that draws text in these colours lists `PALETTE_CLASSES` in its `COMPONENT_CLASSES` and
`PALETTE_CSS` in its `DEFAULT_CSS`, which gives each component class its theme variable
(`.palette--rate-in { color: $rate-in; }`), and reads `palette(self)` when it builds that text: a theme (or an
app's stylesheet, which may restyle a class) says every colour. Textual works the component styles out again
when the theme changes and refreshes the widget; a widget whose text is built ahead of drawing is told by
`PaletteFollower` and builds it again, so a new theme recolours everything at once. The one place a colour
leaves Rich styles is the chart: plotext wants RGB triplets (`ThroughputChart._colour`).

The console's apps are `PaletteApp`s: they give Textual defaults for these variables, so the CSS parses in
Textual's own themes too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from rich.style import Style
from textual.app import App, ReturnType
from textual.widget import Widget
from textual.widgets import Static

from omeconsole.ui.themes import derived_variables

PALETTE_NAMES = ("muted", "accent", "state-live", "state-ended", "state-stale", "state-unknown", "rate-in",
                 "rate-out", "meter")
"""The colours text is drawn in; each is the theme variable of the same name."""
PALETTE_CLASSES = frozenset(f"palette--{name}" for name in PALETTE_NAMES)
PALETTE_CSS = "\n" + "\n".join(f".palette--{name} {{ color: ${name}; }}" for name in PALETTE_NAMES)
"""The classes' colours, in the `DEFAULT_CSS` of every widget that lists them (Textual scopes it to the widget),
so the widget is coloured in any app that defines the variables (`PaletteApp`), whatever stylesheet it loads."""

Palette = Mapping[str, str]
"""Rich style strings by palette name (`"#50c878"`, or `""` where the stylesheet sets none)."""


def palette(widget: Widget) -> dict[str, str]:
    """The widget's palette as its component classes say now (it must list `PALETTE_CLASSES`); no colours
    before the widget is styled (a `PaletteFollower` draws again once it is)."""
    styles = {}
    for name in PALETTE_NAMES:
        style = widget.get_component_rich_style(f"palette--{name}", partial=True, default=Style.null())
        styles[name] = str(style) if style else ""
    return styles


class PaletteApp(App[ReturnType]):
    """An app whose stylesheets may use the console's variables in any theme: one that does not name them
    (Textual's own) gets them derived from its colours, as a theme file that leaves them out does."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return derived_variables(self.current_theme)


class PaletteFollower:
    """Calls `redraw` when a widget's palette is no longer the one its text was built in.

    Textual updates a node's component styles just after it tells the node its styles changed
    (`notify_style_update`), in the same pass over the stylesheet: the comparison runs once that pass is over
    (`call_next`), before the screen is drawn again, and costs one dictionary comparison when nothing changed."""

    def __init__(self, widget: Widget, redraw: Callable[[], object]) -> None:
        self._widget = widget
        self._redraw = redraw
        self._drawn: dict[str, str] | None = None

    def built_with(self) -> dict[str, str]:
        """The palette to build text in now (remembered as the one drawn)."""
        self._drawn = palette(self._widget)
        return self._drawn

    def styles_changed(self) -> None:
        """Call from the widget's `notify_style_update`."""
        if self._widget.is_attached and self._drawn is not None:
            self._widget.call_next(self._check)

    def _check(self) -> None:
        if self._drawn is not None and self._widget.is_mounted and palette(self._widget) != self._drawn:
            self._redraw()


class PaletteStatic(Static):
    """A `Static` whose text is built in palette colours ahead of drawing: `_draw` builds it (reading
    `self._palette.built_with()`), and runs again when another theme changes those colours."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def __init__(self, **options: Any) -> None:
        self._palette = PaletteFollower(self, self._draw)
        super().__init__(**options)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def _draw(self) -> None:
        raise NotImplementedError

"""The console's own colours (states, rates, muted words) as Rich styles read from CSS, never from theme variables.

A widget or screen that draws text in these colours lists the classes of the colours it uses in its
`COMPONENT_CLASSES` and their CSS in its `DEFAULT_CSS` (`palette_classes("muted")`, `palette_css("muted")`; all
of them: `PALETTE_CLASSES`, `PALETTE_CSS`), which gives each component class its theme variable
(`.palette--rate-in { color: $rate-in; }`): a theme (or an app's stylesheet, which may restyle a class) says
every colour. Textual applies the stylesheet to each listed class at every style update of the widget, so a
widget lists only what it draws in. The colours are resolved once per style update, not per redraw
(`PaletteFollower.built_with`: Textual drops its own cache of component styles at every refresh, and
resolving nine classes per widget per redraw took about 6 % of a profiled minute of the dashboard); when
Textual has worked the component styles out again (another theme), the follower resolves them anew and, if
they changed, calls the widget's redraw, so a new theme recolours everything at once. The one place a colour
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


def palette_classes(*names: str) -> frozenset[str]:
    """The component classes of these palette colours, for a widget's `COMPONENT_CLASSES`."""
    return frozenset(f"palette--{name}" for name in names)


def palette_css(*names: str) -> str:
    """These colours' rules, for the `DEFAULT_CSS` of a widget that lists their classes (Textual scopes it to the
    widget), so the widget is coloured in any app that defines the variables (`PaletteApp`), whatever
    stylesheet it loads."""
    return "\n" + "\n".join(f".palette--{name} {{ color: ${name}; }}" for name in names)


PALETTE_CLASSES = palette_classes(*PALETTE_NAMES)
PALETTE_CSS = palette_css(*PALETTE_NAMES)

Palette = Mapping[str, str]
"""Rich style strings by palette name (`"#50c878"`, or `""` where the stylesheet sets none)."""


def palette(widget: Widget) -> dict[str, str]:
    """The widget's palette as its component classes say now: `""` for a colour whose class it does not list,
    and for every colour before the widget is styled (a `PaletteFollower` draws again once it is)."""
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
    """A widget's palette, resolved once per style update, and a call to `redraw` when it changes.

    Textual updates a node's component styles just after it tells the node its styles changed
    (`notify_style_update`), in the same pass over the stylesheet: the palette is resolved again once that
    pass is over (`call_next`), before the screen is drawn again. A theme switch that leaves a widget's own
    rules as they were does not tell it (Textual's animated update skips it), so the theme's name is part of
    what the resolved palette was resolved for."""

    def __init__(self, widget: Widget, redraw: Callable[[], object]) -> None:
        self._widget = widget
        self._redraw = redraw
        self._colours: dict[str, str] | None = None
        """Resolved for `_theme`, until the widget's styles change."""
        self._theme = ""
        self._drawn: dict[str, str] | None = None

    def built_with(self) -> dict[str, str]:
        """The palette to build text in now (remembered as the one drawn)."""
        theme = self._widget.app.theme
        if self._colours is None or theme != self._theme:
            self._colours, self._theme = palette(self._widget), theme
        self._drawn = self._colours
        return self._colours

    def styles_changed(self) -> None:
        """Call from the widget's `notify_style_update`."""
        self._colours = None
        if self._widget.is_attached and self._drawn is not None:
            self._widget.call_next(self._check)

    def _check(self) -> None:
        drawn = self._drawn
        if drawn is not None and self._widget.is_mounted and self.built_with() != drawn:
            self._redraw()


class PaletteStatic(Static):
    """A `Static` whose text is built in palette colours ahead of drawing: `_draw` builds it (reading
    `self._palette.built_with()`), and runs again when another theme changes those colours. It draws in the
    muted colour only; a subclass that uses others lists them."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(palette_classes("muted"))
    DEFAULT_CSS = palette_css("muted")

    def __init__(self, **options: Any) -> None:
        self._palette = PaletteFollower(self, self._draw)
        super().__init__(**options)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def _draw(self) -> None:
        raise NotImplementedError

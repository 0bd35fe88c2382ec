"""Every shipped theme holds its text to WCAG AA: 4.5:1 for text, 3:1 for bars, lines and symbols.

Two ways: the theme's colour pairs as the widgets use them (text colours on every background they sit
on), and what the widgets actually draw: the tree (cursor focused and not), the detail (header,
sparklines, connection bars, totals, source and tracks, chart axes), the status line, the banner, the
footer and the help table are rendered in each theme and every cell's colours are measured.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App
from textual.color import Color
from textual.geometry import Region
from textual.widget import Widget
from widget_support import THEMES, Gallery

from omeconsole.ui.screens.help import HelpScreen, help_entries
from omeconsole.ui.themes import contrast_ratio
from omeconsole.ui.widgets.node_tree import NodeTree

TEXT, GRAPHIC = 4.5, 3.0
TEXT_COLOURS = ("foreground", "muted", "rate-in", "rate-out", "state-live", "state-ended", "state-stale",
                "state-unknown", "accent", "footer-key-foreground")


def resolved(theme_name: str) -> dict[str, str]:
    theme = next(t for t in THEMES if t.name == theme_name)
    return {**theme.to_color_system().generate(), **theme.variables}


def over(base: str, layer: str) -> str:
    """`layer` (which may be translucent) painted over the opaque `base`."""
    top = Color.parse(layer)
    return Color.parse(base).blend(top.with_alpha(1.0), top.a).hex


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
def test_text_colours_on_every_background_they_sit_on(theme: str) -> None:
    colours = resolved(theme)
    backgrounds = {name: colours[name] for name in ("background", "surface", "panel")}
    backgrounds["hovered row"] = over(colours["surface"], colours["block-hover-background"])
    failures = [f"{fg} {colours[fg]} on {bg} {value}: {contrast_ratio(colours[fg], value):.2f}"
                for fg in TEXT_COLOURS for bg, value in backgrounds.items()
                if contrast_ratio(colours[fg], value) < TEXT]
    assert failures == []


GRAPHICS = (range(0x2500, 0x2600), range(0x2800, 0x2900))
"""Box drawing, blocks and shapes (bars, frames, ●■▲▶▼) and braille (chart lines): non-text contrast."""


def measure(widget: Widget) -> list[str]:
    """Every drawn cell of `widget` whose colours fall short, described for the failure message."""
    failures = []
    default = widget.rich_style
    for y, strip in enumerate(widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))):
        for segment in strip:
            failures.extend(_check(widget, y, segment, default))
    return failures


def _check(widget: Widget, y: int, segment: Segment, default: Any) -> list[str]:
    text = segment.text.strip()
    style = segment.style
    if not text or style is None:
        return []
    fg, bg = style.color or default.color, style.bgcolor or default.bgcolor
    if fg is None or bg is None:
        return [f"{type(widget).__name__} line {y}: {text!r} has no colour of its own"]
    graphic = all(any(ord(c) in block for block in GRAPHICS) for c in text if not c.isspace())
    need = GRAPHIC if graphic else TEXT
    ratio = contrast_ratio(Color.from_rich_color(fg), Color.from_rich_color(bg))
    if ratio < need:
        return [f"{type(widget).__name__} line {y}: {text[:24]!r} {fg.name} on {bg.name} {ratio:.2f}"]
    return []


def leaves(app: App[Any]) -> list[Widget]:
    """The widgets that draw (containers only hold them; the tree draws its own rows)."""
    return [w for w in app.screen.query("*").results(Widget) if w.display and w.size.area and not w.is_container]


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
async def test_what_the_widgets_draw_holds_aa(theme: str) -> None:
    app = Gallery(theme)
    async with app.run_test(size=(170, 50)) as pilot:
        await pilot.pause()
        failures = [f for widget in leaves(app) for f in measure(widget)]
        app.set_focus(None)  # the tree's cursor when the tree has not the focus
        await pilot.pause()
        failures += [f"(blurred) {f}" for f in measure(app.query_one(NodeTree))]
        await app.push_screen(HelpScreen(help_entries(app.screen)))
        await pilot.pause()
        failures += [f for widget in leaves(app) for f in measure(widget)]
        assert failures == []

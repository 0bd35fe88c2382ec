"""The console's colours come from CSS: a widget's palette (its component classes) is its theme's variables,
in every shipped theme and in Textual's own themes, which do not name them (`PaletteApp` derives them)."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.app import ComposeResult
from widget_support import THEMES, Gallery

from omeconsole.ui.palette import PALETTE_NAMES, PaletteApp, palette
from omeconsole.ui.themes import derived_variables
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import StatusBar


def same_colour(style: str, colour: str) -> bool:
    return Style.parse(style).color == Style.parse(colour).color


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
async def test_every_palette_colour_is_its_themes_variable(theme: str) -> None:
    app = Gallery(theme)
    async with app.run_test(size=(140, 42)) as pilot:
        await pilot.pause()
        colours = palette(app.query_one(NodeTree))
        variables = app.theme_variables
        wrong = {name: (colours[name], variables[name]) for name in PALETTE_NAMES
                 if not same_colour(colours[name], variables[name])}
        assert wrong == {}


class StatusBarHost(PaletteApp[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "nord"])
async def test_textuals_own_themes_get_the_console_colours_derived_from_theirs(theme: str) -> None:
    """A theme that names none of the console's variables still parses and draws: a live state in its success
    colour, rates in its primary and accent."""
    app = StatusBarHost()
    app.theme = theme
    async with app.run_test(size=(40, 3)) as pilot:
        await pilot.pause()
        colours = palette(app.query_one(StatusBar))
        expected = derived_variables(app.current_theme)
        wrong = {name: (colours[name], colour) for name, colour in expected.items()
                 if not same_colour(colours[name], colour)}
        assert wrong == {}

"""The Sixel data the console sends selects every colour it defines (ui/widgets/sixel_picture.py): xterm draws
a colour defined without a selection in the colour used before, green at first (a black picture came out solid
green; the real xterm: tests/sim/test_real_terminals.py), in whole bands (Konsole)."""

from __future__ import annotations

import re

from PIL import Image
from textual_image._sixel import image_to_sixels

from omeconsole.ui.widgets.sixel_picture import select_after_definitions, whole_bands


def _drawn_before_selected(sixels: str) -> list[str]:
    """Registers whose pixels are drawn while another (or none) is selected."""
    wrong, selected = [], None
    for found in re.finditer(r"#(\d+)(;2;\d+;\d+;\d+)?|[?-~!]", sixels.split('"1;1;', 1)[1]):
        if found.group(0).startswith("#"):
            if found.group(2) is None:
                selected = found.group(1)
            continue
        if selected is None:
            wrong.append("none")
    return wrong


def test_a_black_picture_selects_black_before_drawing() -> None:
    plain = image_to_sixels(Image.new("RGB", (20, 12)))
    assert _drawn_before_selected(plain)  # textual-image 0.12.0 as it is: drawn before any selection
    fixed = select_after_definitions(plain)
    assert _drawn_before_selected(fixed) == []
    assert fixed.startswith('\x1bP0;0;0q"1;1;20;12#0;2;0;0;0#0')


def test_every_colour_of_a_picture_is_selected_after_its_definition() -> None:
    picture = Image.new("RGB", (30, 12), (0, 0, 0))
    picture.paste((192, 192, 192), (10, 0, 20, 12))
    picture.paste((200, 0, 0), (20, 0, 30, 12))
    fixed = select_after_definitions(image_to_sixels(picture))
    definitions = re.findall(r"#(\d+);2;\d+;\d+;\d+#(\d+)", fixed)
    assert len(definitions) == 3
    assert all(defined == selected for defined, selected in definitions)
    # The pixels themselves are untouched: only selections were added.
    assert re.sub(r"#\d+(?!;)", "", fixed) == re.sub(r"#\d+(?!;)", "", image_to_sixels(picture))


def test_the_picture_is_cut_to_whole_sixel_bands() -> None:
    """Konsole draws a partial last band whole, over the caption's row: the console sends whole bands only."""
    assert whole_bands(Image.new("RGB", (288, 170))).size == (288, 168)
    assert whole_bands(Image.new("RGB", (288, 168))).size == (288, 168)
    assert whole_bands(Image.new("RGB", (8, 5))).size == (8, 5)  # less than a band: nothing to cut to
    sixels = select_after_definitions(image_to_sixels(whole_bands(Image.new("RGB", (20, 17)))))
    assert sixels.startswith('\x1bP0;0;0q"1;1;20;12')

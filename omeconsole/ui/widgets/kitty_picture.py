"""The picture in Kitty graphics, placed directly over the widget's cells, which it leaves blank.

textual-image 0.12.0 draws Kitty pictures only through Unicode placeholders, which kitty has from 0.28 on:
Debian 12's kitty 0.26.5 and Konsole 22.12 have the protocol's direct placement (seen under Xvfb:
tests/sim/test_real_terminals.py) but no placeholders. So this widget sends the picture as the Sixel widget
sends Sixel data, at the cursor, with the same scaling and cropping: transmitted and placed in one command
(`a=T`, raw RGB compressed), the cursor left where it was (`C=1`), no reply asked for (`q=2`: an answer
would land in Textual's input), the previous picture of this widget deleted first.

A placed picture stays on a Kitty terminal until deleted, over whatever Textual draws there later (the
tree, a help screen, a prompt). So it is deleted when the widget is hidden or removed and when its screen is
no longer the one shown, and painted again (the same commands, from the cache) whenever it is shown.
It is drawn over the cells (z-index 0), which this widget leaves blank. A negative z-index would put it under
the text, or under every coloured cell (hidden by whatever covers it, with no message to send), but kitty
0.26.5 then paints every background colour of the screen wrong (Textual's dark grey 20,23,28 as 83,13,18 and
darker red, seen under Xvfb); with pictures at 0 or above it paints them right.
"""

from __future__ import annotations

import base64
import zlib
from itertools import count

from PIL import Image as PILImage
from rich.segment import Segment
from textual.app import ComposeResult
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual_image._sixel import BackgroundColor, SixelOptions
from textual_image.widget import SixelImage
from textual_image.widget.sixel import _ImageSixelImpl, _NoopRenderable

CHUNK = 4096
"""The protocol's largest payload per escape sequence."""
_START, _END = "\x1b_G", "\x1b\\"
_image_ids = count(0x4F4D45)  # ids of this process's pictures, one a widget: each replaces its own only


def deletion(image_id: int) -> str:
    """The command that removes the picture `image_id` from the screen and frees its data."""
    return f"{_START}a=d,d=I,i={image_id},q=2{_END}"


def kitty_commands(image: PILImage.Image, image_id: int, columns: int, rows: int) -> str:
    """Delete this widget's previous picture, then send `image` and place it over columns by rows cells."""
    rgb = image.convert("RGB")
    payload = base64.standard_b64encode(zlib.compress(rgb.tobytes())).decode()
    keys = (f"a=T,q=2,f=24,o=z,s={rgb.width},v={rgb.height},i={image_id},p=1,c={columns},r={rows},C=1")
    commands = [deletion(image_id)]
    for start in range(0, len(payload), CHUNK):
        more = 1 if start + CHUNK < len(payload) else 0
        commands.append(f"{_START}{keys + ',' if start == 0 else 'q=2,'}m={more};{payload[start:start + CHUNK]}{_END}")
    return "".join(commands)


class _KittyPlacement(_ImageSixelImpl):
    """textual-image's Sixel injection (scaling, cropping, cache, cursor moves) with Kitty commands as the data."""

    def __init__(self, image: PILImage.Image | None, image_id: int) -> None:
        super().__init__(image)
        self._image_id = image_id
        self._cells = (0, 0)

    def _image_to_sixels(self, image: PILImage.Image, sixel_options: SixelOptions | None = None,
                         background: BackgroundColor | None = None) -> str:
        return kitty_commands(image, self._image_id, *self._cells)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._cells = (crop.width, crop.height)
        lines = super().render_lines(crop)
        if not lines:
            return lines
        # Blank cells under the picture, in the widget's colours: what shows where the picture is taken down.
        blank = Segment(" " * crop.width, self.rich_style)
        return [Strip([blank], crop.width)] * (crop.height - 1) + [Strip([blank, *lines[-1]], crop.width)]


class KittyPicture(SixelImage, Renderable=_NoopRenderable):
    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._image_id = next(_image_ids)

    def compose(self) -> ComposeResult:
        yield _KittyPlacement(self.image, self._image_id)

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def on_hide(self) -> None:
        self._take_down()

    def on_unmount(self) -> None:
        self._take_down()

    def _screen_changed(self, shown: Screen[object]) -> None:
        if shown is not self.screen:
            self._take_down()

    def _take_down(self) -> None:
        """Delete the picture, then ask for it again: painted where the widget is still shown, gone elsewhere (a
        Hide that arrives after the widget was shown again must not leave it deleted)."""
        driver = self.app._driver  # the one writer to the terminal, as App.bell uses it
        if driver is not None:
            driver.write(deletion(self._image_id))
        for placement in self.query(_KittyPlacement):
            placement.refresh()

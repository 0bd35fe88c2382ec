"""textual-image's Sixel widget with every colour selected after it is defined, so xterm draws the right colours.

textual-image 0.12.0 defines each colour register on first use (`#N;2;R;G;B`) and counts on the definition
also selecting it. xterm (379, as a VT340) does not: the pixels that follow are drawn with the register in use
before, green at first. Every picture's first band came out in the wrong colours, and a black picture in
solid green (seen under Xvfb: tests/sim/test_real_terminals.py), while the caption said "black". An
explicit `#N` after each definition is what the DEC manual describes and every Sixel terminal reads.
textual-image 0.13 defines the palette up front instead, but needs Python 3.12; drop the selections with it.
The picture is also sent in whole sixel bands (`whole_bands`, for Konsole).
"""

from __future__ import annotations

import re

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual_image._sixel import BackgroundColor, SixelOptions
from textual_image.widget import SixelImage
from textual_image.widget.sixel import _ImageSixelImpl, _NoopRenderable

_DEFINITION = re.compile(r"#(\d+);2;\d+;\d+;\d+")


def select_after_definitions(sixels: str) -> str:
    """The same Sixel data with each colour definition followed by the selection of that colour."""
    return _DEFINITION.sub(lambda found: f"{found.group(0)}#{found.group(1)}", sixels)


def whole_bands(image: PILImage.Image) -> PILImage.Image:
    """The picture cut to a height of whole sixel bands (6 pixels).

    Konsole 22.12 draws a last, partial band whole, into the row under the picture, and hides that row's text:
    the caption under the picture ("black") was written but not shown (seen under Xvfb). At most 5 pixel rows
    of the picture's area are left empty instead."""
    height = image.height - image.height % 6
    return image.crop((0, 0, image.width, height)) if 0 < height < image.height else image


class _SelectingSixels(_ImageSixelImpl):
    def _image_to_sixels(self, image: PILImage.Image, sixel_options: SixelOptions | None = None,
                         background: BackgroundColor | None = None) -> str:
        return select_after_definitions(super()._image_to_sixels(whole_bands(image), sixel_options, background))


class SixelPicture(SixelImage, Renderable=_NoopRenderable):
    def compose(self) -> ComposeResult:
        yield _SelectingSixels(self.image, self._sixel_options)

"""The thumbnails of a stream with an image encoding profile: one picture per second of its media.

The real server decodes the input and encodes a picture at the profile's frame rate (the documented
sample: 1 per second) in each image codec the profile lists; `thumb.jpg` / `thumb.png` / `thumb.webp`
always answer the latest. The simulator has no decoder at run time, so its picture is drawn from what
defines its media: the stream's own time since it started (a counter `MM:SS`, bars that move one step a
second, a box that crosses the frame) in the stream's own colours. Every second gives another picture, so
a client can tell a live picture from a frozen one; a black one is all zeros.

Pictures are pure functions of (stream, second, kind, format), so the same request always gets the same
bytes; the last few are kept, as the real server keeps one encoded frame per codec.
"""

from __future__ import annotations

import functools
import io
import zlib

import numpy as np
import numpy.typing as npt
from PIL import Image

from simulator.world.picture_faults import PictureKind

WIDTH, HEIGHT = 320, 180
"""The image encode's size (a small profile: a monitor wall's tile)."""
CONTENT_TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
"""By extension, as the real server answers them (MimeTypeFromMediaCodecId)."""
_BARS = np.array([(192, 192, 192), (192, 192, 0), (0, 192, 192), (0, 192, 0), (192, 0, 192), (192, 0, 0),
                  (0, 0, 192)], dtype=np.uint8)
_FONT = {  # 3x5 digits, one row per string
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    ":": ("000", "010", "000", "010", "000"),
}
_SCALE = 6


def picture(identity: str, second: int, kind: PictureKind) -> npt.NDArray[np.uint8]:
    """The HEIGHT x WIDTH x 3 picture of the stream named `identity` at `second` of its life."""
    if kind == "black":
        return np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    shift = zlib.crc32(identity.encode("utf-8", "backslashreplace")) % len(_BARS)
    columns = (np.arange(WIDTH) + second * 8) * len(_BARS) // WIDTH % len(_BARS)
    frame = np.repeat(_BARS[(columns + shift) % len(_BARS)][np.newaxis, :, :], HEIGHT, axis=0)
    box = second * 23 % (WIDTH - 40)
    frame[HEIGHT - 50:HEIGHT - 10, box:box + 40] = 255
    _draw_text(frame, f"{second // 60 % 100:02d}:{second % 60:02d}", 8, 8)
    return frame


def encoded(identity: str, second: int, kind: PictureKind, image_format: str) -> bytes:
    """The picture as the image encode `image_format` (`jpg`, `png`, `webp`) writes it."""
    return _encoded(identity, second, kind, image_format)


@functools.lru_cache(maxsize=64)
def _encoded(identity: str, second: int, kind: PictureKind, image_format: str) -> bytes:
    image = Image.fromarray(picture(identity, second, kind), "RGB")
    out = io.BytesIO()
    if image_format == "jpg":
        image.save(out, "JPEG", quality=80)
    elif image_format == "png":
        image.save(out, "PNG")
    elif image_format == "webp":
        image.save(out, "WEBP", quality=80)
    else:
        raise ValueError(f"no image encode for {image_format!r}")
    return out.getvalue()


def _draw_text(frame: npt.NDArray[np.uint8], text: str, left: int, top: int) -> None:
    width = (4 * len(text) - 1) * _SCALE
    frame[top - 4:top + 5 * _SCALE + 4, left - 4:left + width + 4] = 0
    for index, char in enumerate(text):
        glyph = np.array([[c == "1" for c in row] for row in _FONT[char]])
        cells = np.kron(glyph, np.ones((_SCALE, _SCALE), dtype=bool))
        x = left + index * 4 * _SCALE
        frame[top:top + cells.shape[0], x:x + cells.shape[1]][cells] = 255

"""A thumbnail from a server is hostile input: its bytes become pixels here, and nothing else of it goes on.

Before anything is decoded: the body is capped by the read itself (`MAX_THUMBNAIL_BYTES`, api/publisher.py),
the format is read from the header and must be JPEG, PNG or WebP, and the header's size must stay within
`MAX_PIXELS` (a 50,000 x 50,000 PNG header is refused before one row is inflated: that is what a
decompression bomb is). Decoding runs on one worker thread with a deadline: a picture not decoded by then
is refused, and while that worker is still busy no other decode starts (a thread cannot be stopped, so
slow pictures cannot pile up). A truncated picture is refused, never padded with grey. What comes out is
RGB pixels at most `SHOWN_SIZE` (a fresh image: no metadata, profile or text of the original survives).
"""

from __future__ import annotations

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

MAX_THUMBNAIL_BYTES = 4 * 1024 * 1024
"""A 1280x720 JPEG is ~100 kB and a PNG under 2 MB."""
MAX_PIXELS = 2560 * 1440
"""Width x height allowed by the header: decoding one is ~11 MB of RGB at most."""
SHOWN_SIZE = (320, 180)
"""The most a kept picture holds: a stream view's panel is far smaller in cells."""
DECODE_DEADLINE_S = 2.0
FORMATS = ("JPEG", "PNG", "WEBP")


class ThumbnailRefused(Exception):
    """The bytes are not a picture the console will show; the message says why in plain words."""


@dataclass(frozen=True)
class Picture:
    width: int
    height: int
    rgb: bytes
    """width x height x 3 bytes, row by row."""


class Decoder:
    """One worker thread; `decode` refuses a picture when the worker is still busy with an earlier one."""

    def __init__(self, deadline_s: float = DECODE_DEADLINE_S) -> None:
        self.deadline_s = deadline_s
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thumbnail-decode")
        self._busy = threading.Lock()

    async def decode(self, body: bytes) -> Picture:
        if not self._busy.acquire(blocking=False):
            raise ThumbnailRefused("the previous picture is still being decoded")
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self._pool, self._decode_then_free, body)
        try:
            return await asyncio.wait_for(asyncio.shield(job), self.deadline_s)
        except TimeoutError:
            raise ThumbnailRefused(f"not decoded within {self.deadline_s:g} s") from None

    def _decode_then_free(self, body: bytes) -> Picture:
        try:
            return decode_picture(body)
        finally:
            self._busy.release()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def decode_picture(body: bytes) -> Picture:
    """The picture in `body`, checked before it is decoded (see the module); ThumbnailRefused otherwise."""
    if len(body) > MAX_THUMBNAIL_BYTES:
        raise ThumbnailRefused(f"{len(body):,} bytes; at most {MAX_THUMBNAIL_BYTES:,}")
    try:
        with Image.open(io.BytesIO(body), formats=FORMATS) as image:
            width, height = image.size
            if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
                raise ThumbnailRefused(f"{width}x{height} pixels; at most {MAX_PIXELS:,} in all")
            if image.format == "JPEG":
                image.draft("RGB", SHOWN_SIZE)  # JPEG decodes at 1/2, 1/4 or 1/8 directly: less memory
            image.load()  # ImageFile.LOAD_TRUNCATED_IMAGES is left False: a cut picture raises
            rgb = image.convert("RGB")
    except ThumbnailRefused:
        raise
    except Image.DecompressionBombError:  # Pillow's own check, at twice its limit: already while opening
        raise ThumbnailRefused(f"more pixels than {MAX_PIXELS:,} (a decompression bomb)") from None
    except UnidentifiedImageError:
        raise ThumbnailRefused("not a JPEG, PNG or WebP picture") from None
    except (OSError, ValueError, SyntaxError) as error:
        raise ThumbnailRefused(f"the picture cannot be decoded ({type(error).__name__})") from None
    rgb.thumbnail(SHOWN_SIZE)
    return Picture(rgb.width, rgb.height, rgb.tobytes())

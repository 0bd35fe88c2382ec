"""Hostile thumbnails (issue 29): what a server (or anything in its place) can send as `thumb.jpg` is refused
before it costs memory or time: a 50,000 x 50,000 PNG header, a decompression bomb, a PNG whose data
inflates far past its header, a truncated JPEG, a body over the size cap, a decode that outlives its
deadline. Memory is measured in a fresh process (its peak RSS before and after), where a decoded bomb
would show as hundreds of megabytes."""

from __future__ import annotations

import asyncio
import functools
import io
import json
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from omeconsole.core.thumbnails import decode
from omeconsole.core.thumbnails.decode import MAX_THUMBNAIL_BYTES, Decoder, Picture, ThumbnailRefused, decode_picture

MEMORY_GROWTH_LIMIT = 20 * 1024 * 1024


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def zeros_compressed(count: int) -> bytes:
    """`count` zero bytes (a multiple of 1 MiB) deflated a MiB at a time: the test never holds them all."""
    deflate = zlib.compressobj(9)
    mib = bytes(1 << 20)
    return b"".join([*(deflate.compress(mib) for _ in range(count >> 20)), deflate.flush()])


def png(width: int, height: int, raw: bytes = b"", *, compressed: bytes | None = None) -> bytes:
    """A PNG of that header size (8-bit RGB) whose IDAT holds `raw` compressed (or `compressed` as it is)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = compressed if compressed is not None else zlib.compress(raw, 9)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))


@functools.cache
def hostile_bodies() -> dict[str, bytes]:
    jpeg = io.BytesIO()
    Image.fromarray(np.random.default_rng(1).integers(0, 255, (360, 640, 3), dtype=np.uint8)).save(jpeg, "JPEG")
    whole = jpeg.getvalue()
    return {
        "50000x50000 header": png(50_000, 50_000, b"\x00" * 1000),
        "4000x4000 header": png(4000, 4000, compressed=zeros_compressed(1 << 20)),  # under Pillow's own limit
        "decompression bomb": png(20_000, 20_000, compressed=zeros_compressed(64 << 20)),  # 1.2 GB claimed
        "data past its header": png(64, 64, compressed=zeros_compressed(200 << 20)),  # 200 MiB behind 64x64
        "truncated JPEG": whole[: len(whole) // 2],
        "over the size cap": b"\xff\xd8\xff" + bytes(MAX_THUMBNAIL_BYTES),
        "not a picture": b"<html>Please sign in</html>",
    }


@pytest.mark.parametrize("name", list(hostile_bodies()))
def test_a_hostile_thumbnail_is_refused(name: str) -> None:
    body = hostile_bodies()[name]
    if name == "data past its header":  # Pillow reads only the rows the header asks for: a picture of 64x64
        assert decode_picture(body).width == 64
        return
    with pytest.raises(ThumbnailRefused) as refused:
        decode_picture(body)
    assert str(refused.value)
    if name in ("50000x50000 header", "decompression bomb"):
        assert "pixels" in str(refused.value)
    if name == "4000x4000 header":  # refused by the console's own cap, before Pillow's
        assert str(refused.value) == "4000x4000 pixels; at most 3,686,400 in all"


PROBE = """
import json, resource, sys
from omeconsole.core.thumbnails.decode import ThumbnailRefused, decode_picture
sys.path.insert(0, sys.argv[1])
from test_thumbnail_hostile import hostile_bodies
bodies = hostile_bodies()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
outcomes = {}
for name, body in bodies.items():
    try:
        outcomes[name] = "decoded %dx%d" % (decode_picture(body).width, decode_picture(body).height)
    except ThumbnailRefused as error:
        outcomes[name] = "refused: %s" % error
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"growth_kib": after - before, "outcomes": outcomes}))
"""


def test_refusing_them_all_grows_memory_by_less_than_20_mb() -> None:
    """In a fresh process, the bodies already made: the peak RSS while all of them are tried."""
    probe = subprocess.run([sys.executable, "-c", PROBE, str(Path(__file__).parent)], capture_output=True,
                           text=True, timeout=120, check=True)
    result = json.loads(probe.stdout)
    assert result["growth_kib"] * 1024 < MEMORY_GROWTH_LIMIT, result
    assert all(o.startswith("refused") for n, o in result["outcomes"].items() if n != "data past its header"), result


def test_only_pixels_come_out() -> None:
    """A PNG carrying text chunks with terminal escapes and an ICC profile gives the same RGB pixels as the
    plain PNG, and nothing else: a Picture is its size and its pixels."""
    image = Image.fromarray(np.full((18, 32, 3), 90, dtype=np.uint8))
    plain, loaded = io.BytesIO(), io.BytesIO()
    image.save(plain, "PNG")
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J")
    image.save(loaded, "PNG", pnginfo=info, icc_profile=b"\x00" * 128)
    assert decode_picture(loaded.getvalue()) == decode_picture(plain.getvalue())
    assert set(Picture.__dataclass_fields__) == {"width", "height", "rgb"}


async def test_a_decode_past_its_deadline_is_refused_and_no_other_starts_meanwhile(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A decode that never ends (a fault no real picture is needed for): refused at the deadline; the next
    picture is refused while the worker is still busy, and decoded once it is free."""
    release = threading.Event()
    real = decode.decode_picture

    def stuck(body: bytes) -> Picture:
        release.wait(30)
        return real(body)

    monkeypatch.setattr(decode, "decode_picture", stuck)
    decoder = Decoder(deadline_s=0.05)
    good = png(4, 4, b"".join(b"\x00" + bytes(12) for _ in range(4)))
    try:
        with pytest.raises(ThumbnailRefused, match=r"not decoded within 0\.05 s"):
            await decoder.decode(good)
        with pytest.raises(ThumbnailRefused, match="still being decoded"):
            await decoder.decode(good)
        release.set()
        monkeypatch.setattr(decode, "decode_picture", real)
        for _ in range(1000):  # until the stuck decode has finished and freed the worker
            if decoder._busy.acquire(blocking=False):
                decoder._busy.release()
                break
            await asyncio.sleep(0.01)
        assert (await decoder.decode(good)).width == 4
    finally:
        release.set()
        decoder.close()

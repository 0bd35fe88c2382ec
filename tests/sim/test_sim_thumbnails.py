"""The simulator's thumbnail publisher over real HTTP with a manual clock: `/{app}/{stream}/thumb.jpg|png`
decoded by two independent decoders (Pillow and PyAV's FFmpeg), one new picture per second of the stream's
life, 404 where the application has no image encode of that format, the publisher's headers and CORS,
bytes counted out, and the picture faults: frozen on one frame, black."""

from __future__ import annotations

import io

import av
import httpx
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image
from sim_support import api_client, running_simulator

from simulator.world.clock import ManualClock
from simulator.world.fault_spec import FaultSpecError, parse_fault_spec


def pillow_pixels(body: bytes) -> npt.NDArray[np.uint8]:
    with Image.open(io.BytesIO(body)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)


def ffmpeg_pixels(body: bytes, codec: str) -> npt.NDArray[np.uint8]:
    frames = av.CodecContext.create(codec, "r").decode(av.Packet(body))
    assert len(frames) == 1
    return frames[0].to_ndarray(format="rgb24")  # type: ignore[no-any-return]


def close(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    """Mean absolute difference of two pictures, 0-255."""
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


@pytest.mark.parametrize(("image_format", "codec", "content_type"),
                         [("jpg", "mjpeg", "image/jpeg"), ("png", "png", "image/png")])
async def test_both_decoders_read_the_same_picture_and_it_changes_every_second(
        clock: ManualClock, image_format: str, codec: str, content_type: str) -> None:
    async with running_simulator(clock=clock) as sim, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(5.2)
        first = await pub.get(f"/app/stream/thumb.{image_format}")
        assert first.status_code == 200
        assert first.headers["content-type"] == content_type
        assert first.headers["access-control-allow-origin"] == "*"
        assert first.headers["server"] == "OvenMediaEngine"
        assert int(first.headers["content-length"]) == len(first.content)
        assert "cache-control" not in first.headers
        by_pillow, by_ffmpeg = pillow_pixels(first.content), ffmpeg_pixels(first.content, codec)
        assert by_pillow.shape == by_ffmpeg.shape == (180, 320, 3)
        assert close(by_pillow, by_ffmpeg) < 3  # lossless PNG: equal; JPEG: the decoders' rounding
        assert by_pillow.std() > 40  # a picture, not a flat field
        same_second = await pub.get(f"/app/stream/thumb.{image_format}")
        assert same_second.content == first.content
        clock.advance(1.0)
        later = ffmpeg_pixels((await pub.get(f"/app/stream/thumb.{image_format}")).content, codec)
        assert close(later, by_ffmpeg) > 5  # a new picture a second later


async def test_no_image_encode_no_thumbnail(clock: ManualClock) -> None:
    async with running_simulator(clock=clock) as sim, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(2)
        for path in ("/live/concert/thumb.jpg", "/app/stream/thumb.webp", "/app/nobody/thumb.jpg",
                     "/app/stream/thumb.gif", "/app/stream/xthumb.jpg"):
            reply = await pub.get(path)
            assert reply.status_code == 404, path
            assert reply.content == b""
            assert reply.headers["content-type"] == "text/html"
        assert (await pub.head("/app/stream/thumb.jpg")).status_code == 404  # GET only, as the real server


async def test_thumbnail_bytes_are_counted_out(clock: ManualClock) -> None:
    """app/backup has nobody watching: every byte out is the thumbnail's (with its header block)."""
    stats = "/v1/stats/current/vhosts/default/apps/app/streams/backup"
    async with running_simulator(clock=clock) as sim, api_client(sim) as api, \
            httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(2)
        before = (await api.get(stats)).json()["response"]["totalBytesOut"]
        reply = await pub.get("/app/backup/thumb.png")
        after = (await api.get(stats)).json()["response"]["totalBytesOut"]
        assert len(reply.content) < after - before < len(reply.content) + 1000


async def test_frozen_picture_stays_the_same_while_the_fault_lasts(clock: ManualClock) -> None:
    spec = "picture-freeze=10s..20s,streams=default/app/stream"
    async with running_simulator(clock=clock, faults=spec) as sim, \
            httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(10.5)
        frozen = (await pub.get("/app/stream/thumb.png")).content
        others = (await pub.get("/app/news/thumb.png")).content
        for _ in range(5):
            clock.advance(1.0)
            assert (await pub.get("/app/stream/thumb.png")).content == frozen
        assert (await pub.get("/app/news/thumb.png")).content != others  # only the chosen stream froze
        clock.advance(5.0)
        assert (await pub.get("/app/stream/thumb.png")).content != frozen  # live again after 20 s


async def test_black_picture_is_black_to_both_decoders(clock: ManualClock) -> None:
    async with running_simulator(clock=clock, faults="picture-black=at:3s:for:5s") as sim, \
            httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        clock.advance(4)
        body = (await pub.get("/app/sports/thumb.jpg")).content
        assert pillow_pixels(body).max() < 8 and ffmpeg_pixels(body, "mjpeg").max() < 8
        clock.advance(5)
        assert pillow_pixels((await pub.get("/app/sports/thumb.jpg")).content).max() > 200


def test_picture_faults_in_the_spec() -> None:
    spec = parse_fault_spec("picture-freeze=every:60s:for:10s,picture-black=30s..40s,streams=*/app/*")
    assert spec.picture_freeze is not None and spec.picture_freeze.period_ms == 60_000
    assert spec.picture_black is not None and spec.picture_black.end_ms == 40_000
    assert spec.has_world_faults
    with pytest.raises(FaultSpecError, match="picture-black"):
        parse_fault_spec("picture-black=soon")

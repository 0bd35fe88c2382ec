"""A real client check: PyAV (FFmpeg's HLS demuxer) reads 20 s of the live HLS and LL-HLS streams over
HTTP and decodes the video without errors, with continuous timestamps across segments and loops.

The world clock runs 40 s ahead of the stream's start so that the 20 s are already published when the
player starts at the oldest segment: the test takes about a second, not twenty."""

from __future__ import annotations

import asyncio
import itertools

import av
import pytest
from sim_support import running_simulator

from simulator.world.clock import SystemClock


class _AheadClock(SystemClock):
    """The system clock, shifted by `ahead_ms` once the world exists."""

    def __init__(self) -> None:
        self.ahead_ms = 0

    def now_ms(self) -> int:
        return super().now_ms() + self.ahead_ms


def _read(url: str, seconds: float) -> list[float]:
    """Decoded video frame times from the start of the playlist until `seconds` of video were read."""
    times: list[float] = []
    with av.open(url, options={"live_start_index": "0"}, timeout=20) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            assert frame.time is not None
            times.append(frame.time)
            if frame.time - times[0] >= seconds:
                break
    return times


@pytest.mark.parametrize("playlist", ["ts:playlist.m3u8", "llhls.m3u8"])
async def test_pyav_reads_20_seconds_of_the_live_stream(playlist: str) -> None:
    clock = _AheadClock()
    async with running_simulator(clock=clock) as sim:
        clock.ahead_ms = 40_000
        times = await asyncio.to_thread(_read, f"{sim.publisher_url}/app/stream/{playlist}", 20.0)
    assert times[-1] - times[0] >= 20.0
    steps = {round(b - a, 3) for a, b in itertools.pairwise(times)}
    assert steps == {round(1 / 30, 3)}, steps

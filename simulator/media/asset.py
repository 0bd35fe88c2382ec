"""The pre-encoded media loop (package data) and its re-timing into endless live media.

The loop is 8 s: 240 video frames at 30 fps (a keyframe every 30), 375 AAC frames of 1024 samples
at 48 kHz. Both tracks end together there, so repeating the loop gives continuous timestamps with no
discontinuity. It is stored as raw Annex B H.264 and ADTS AAC (regenerate with bench/make_asset.sh)
and parsed here in pure Python once per process: no ffmpeg at run time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from simulator.media.model import AUDIO_TIMESCALE, VIDEO_TIMESCALE, MediaSample

FRAME_TICKS = 3000
"""One video frame at 30 fps in 90 kHz ticks."""
AAC_FRAME_SAMPLES = 1024
AUDIO_FRAME_TICKS_90K = AAC_FRAME_SAMPLES * VIDEO_TIMESCALE // AUDIO_TIMESCALE
"""One AAC frame in 90 kHz ticks (1920, exact)."""
LOOP_VIDEO_FRAMES = 240
LOOP_AUDIO_FRAMES = 375
LOOP_TICKS = LOOP_VIDEO_FRAMES * FRAME_TICKS
"""The loop length in 90 kHz ticks (8 s)."""
KEYFRAME_FRAMES = 30

_NAL_SLICE = 1
_NAL_IDR = 5
_NAL_SPS = 7
_NAL_PPS = 8


class AssetError(RuntimeError):
    """The packaged media does not have the shape the simulator relies on (regenerate it)."""


@dataclass(frozen=True)
class Asset:
    sps: bytes
    pps: bytes
    audio_specific_config: bytes
    width: int
    height: int
    channels: int
    video_frames: tuple[bytes, ...]
    """Each frame as AVCC (4-byte length + NAL), parameter sets and SEI removed; frame 0 of every
    30 is an IDR."""
    audio_frames: tuple[bytes, ...]
    """Raw AAC frames (ADTS headers removed)."""

    @property
    def video_codec(self) -> str:
        """The RFC 6381 codec string, e.g. avc1.4d401e."""
        return "avc1." + self.sps[1:4].hex()

    @property
    def audio_codec(self) -> str:
        return f"mp4a.40.{self.audio_specific_config[0] >> 3}"

    def video_samples(self, start: int, end: int) -> list[MediaSample]:
        """Video frames whose decode time (90 kHz) lies in [start, end), on the endless timeline."""
        first = -(-start // FRAME_TICKS)
        last = -(-end // FRAME_TICKS)
        return [
            MediaSample(
                decode_time=n * FRAME_TICKS,
                duration=FRAME_TICKS,
                keyframe=n % KEYFRAME_FRAMES == 0,
                data=self.video_frames[n % LOOP_VIDEO_FRAMES],
            )
            for n in range(max(0, first), last)
        ]

    def audio_samples(self, start: int, end: int) -> list[MediaSample]:
        """AAC frames whose start (in 90 kHz) lies in [start, end); decode times in the 48 kHz timescale."""
        first = -(-start // AUDIO_FRAME_TICKS_90K)
        last = -(-end // AUDIO_FRAME_TICKS_90K)
        return [
            MediaSample(
                decode_time=k * AAC_FRAME_SAMPLES,
                duration=AAC_FRAME_SAMPLES,
                keyframe=True,
                data=self.audio_frames[k % LOOP_AUDIO_FRAMES],
            )
            for k in range(max(0, first), last)
        ]


@functools.cache
def load_asset() -> Asset:
    """The packaged loop, parsed once per process."""
    folder = resources.files("simulator.media").joinpath("assets")
    video = folder.joinpath("loop.h264").read_bytes()
    audio = folder.joinpath("loop.aac").read_bytes()
    sps, pps, frames = _split_h264(video)
    config, channels, aac_frames = _split_adts(audio)
    if len(frames) < LOOP_VIDEO_FRAMES or len(aac_frames) < LOOP_AUDIO_FRAMES:
        raise AssetError(f"the loop has {len(frames)} video / {len(aac_frames)} audio frames; "
                         f"need {LOOP_VIDEO_FRAMES} / {LOOP_AUDIO_FRAMES}")
    width, height = _sps_size(sps)
    return Asset(sps, pps, config, width, height, channels,
                 tuple(frames[:LOOP_VIDEO_FRAMES]), tuple(aac_frames[:LOOP_AUDIO_FRAMES]))


def _nal_units(stream: bytes) -> list[bytes]:
    units = []
    position = stream.find(b"\x00\x00\x01")
    while position >= 0:
        begin = position + 3
        following = stream.find(b"\x00\x00\x01", begin)
        stop = len(stream) if following < 0 else following
        unit = stream[begin:stop]
        units.append(unit.rstrip(b"\x00") if following >= 0 else unit)
        position = following
    return [unit for unit in units if unit]


def _split_h264(stream: bytes) -> tuple[bytes, bytes, list[bytes]]:
    """Parameter sets plus one AVCC frame per slice NAL (the encoder writes one slice per frame)."""
    sps = pps = b""
    frames: list[bytes] = []
    for unit in _nal_units(stream):
        kind = unit[0] & 0x1F
        if kind == _NAL_SPS:
            sps = sps or unit
        elif kind == _NAL_PPS:
            pps = pps or unit
        elif kind in (_NAL_SLICE, _NAL_IDR):
            if (kind == _NAL_IDR) != (len(frames) % KEYFRAME_FRAMES == 0):
                raise AssetError(f"frame {len(frames)}: keyframes must fall every {KEYFRAME_FRAMES} frames")
            frames.append(len(unit).to_bytes(4, "big") + unit)
    if not sps or not pps:
        raise AssetError("the H.264 loop has no SPS/PPS")
    return sps, pps, frames


def _split_adts(stream: bytes) -> tuple[bytes, int, list[bytes]]:
    frames = []
    position = 0
    config = b""
    channels = 0
    while position + 7 <= len(stream):
        header = stream[position:position + 7]
        if header[0] != 0xFF or header[1] & 0xF0 != 0xF0:
            raise AssetError(f"ADTS sync lost at byte {position}")
        protection_absent = header[1] & 1
        profile = header[2] >> 6
        frequency_index = (header[2] >> 2) & 0x0F
        channels = ((header[2] & 1) << 2) | (header[3] >> 6)
        length = ((header[3] & 3) << 11) | (header[4] << 3) | (header[5] >> 5)
        header_size = 7 if protection_absent else 9
        frames.append(stream[position + header_size:position + length])
        config = config or (((profile + 1) << 11) | (frequency_index << 7) | (channels << 3)).to_bytes(2, "big")
        position += length
    return config, channels, frames


class _Bits:
    def __init__(self, data: bytes) -> None:
        self.data = data.replace(b"\x00\x00\x03", b"\x00\x00")
        self.position = 0

    def bit(self) -> int:
        value = (self.data[self.position >> 3] >> (7 - (self.position & 7))) & 1
        self.position += 1
        return value

    def bits(self, count: int) -> int:
        value = 0
        for _ in range(count):
            value = (value << 1) | self.bit()
        return value

    def ue(self) -> int:
        zeros = 0
        while self.bit() == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.bits(zeros)


def _sps_size(sps: bytes) -> tuple[int, int]:
    """Width and height from an SPS (profiles without scaling lists, as x264 writes for main)."""
    reader = _Bits(sps[1:])
    profile = reader.bits(8)
    reader.bits(16)
    reader.ue()
    if profile in (100, 110, 122, 244, 44, 83, 86, 118, 128):
        raise AssetError("the H.264 loop must use the main or baseline profile")
    reader.ue()
    poc_type = reader.ue()
    if poc_type == 0:
        reader.ue()
    elif poc_type == 1:
        raise AssetError("the H.264 loop must not use POC type 1")
    reader.ue()
    reader.bit()
    width_mbs = reader.ue() + 1
    height_units = reader.ue() + 1
    frame_mbs_only = reader.bit()
    if not frame_mbs_only:
        reader.bit()
    reader.bit()
    crop = [0, 0, 0, 0]
    if reader.bit():
        crop = [reader.ue() for _ in range(4)]
    width = width_mbs * 16 - 2 * (crop[0] + crop[1])
    height = height_units * 16 * (2 - frame_mbs_only) - 2 * (crop[2] + crop[3])
    return width, height

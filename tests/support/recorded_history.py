"""A history store written by hand, the same bytes every run: what the replay's snapshot tests open.

No simulator and no polling: every reading is made from fixed numbers and stamped with a fixed wall time
(from `RECORDED_FROM`, one a second), so what a replay draws depends on the console alone. One server
records a small channel line-up for `RECORDED_S` seconds: `news` (up an hour before the recording, its
viewers rising), `sports` (restarted by its encoder half-way: a new life, counters from zero), and `promo`
(ends a minute in), under one application and one virtual host that carry their streams' sums, as the
server reports them. A second server (`scale`) records the same line-up with other numbers, for a fleet.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from omeconsole.core.history.observations import Observation, ObservedEnd, ObservedInfo, ObservedSample, ServerId
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo, TrackInfo

RECORDED_FROM = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
RECORDED_S = 180
NEWS = NodePath("default", "app", "news")
SPORTS = NodePath("default", "app", "sports")
PROMO = NodePath("default", "app", "promo")
APP = NodePath("default", "app")
VHOST = NodePath("default")
SPORTS_RESTART_S = 95
PROMO_END_S = 60


@dataclass(frozen=True)
class Channel:
    """A stream's fixed numbers: its input rate (bits/s, with a ripple of `swing` over 7 s), viewers per
    protocol at the start and their rise per minute, when its life began (seconds before the recording)."""

    path: NodePath
    rate_in: int
    swing: int
    viewers: dict[str, int]
    rise_per_min: int
    up_before_s: int


LINE_UP = (
    Channel(NEWS, 4_200_000, 300_000, {"llhls": 9, "hlsv3": 3, "webrtc": 2}, 3, 3600),
    Channel(SPORTS, 6_000_000, 500_000, {"llhls": 21, "hlsv3": 7, "webrtc": 4}, -2, 8100),
    Channel(PROMO, 1_500_000, 100_000, {"llhls": 2}, 0, 600),
)


def _epoch(seconds: float) -> float:
    return RECORDED_FROM.timestamp() + seconds


def _stats(at: float, created: float, total_in: int, total_out: int, viewers: dict[str, int]) -> NodeStats:
    return NodeStats(
        created=datetime.fromtimestamp(created, UTC), last_updated=datetime.fromtimestamp(at, UTC),
        total_bytes_in=total_in, total_bytes_out=total_out, connections_in={"srt": 1}, connections_out=viewers,
        total_connections=sum(viewers.values()), max_total_connections=None, max_total_connection_time=None,
        avg_throughput_in_bps=None, avg_throughput_out_bps=None, max_throughput_in_bps=None,
        max_throughput_out_bps=None, last_throughput_in_bytes=None, last_throughput_out_bytes=None)


def _info(channel: Channel, created: float) -> StreamInfo:
    return StreamInfo(
        name=channel.path.stream or "", source_type="SRT", source_url=None,
        created=datetime.fromtimestamp(created, UTC),
        tracks=(TrackInfo(id=0, type="Video", codec="H264", width=1280, height=720, framerate=30.0,
                          bitrate=channel.rate_in - 128_000, keyframe_interval=2.0),
                TrackInfo(id=1, type="Audio", codec="AAC", bitrate=128_000, samplerate=48_000, channels=2)),
        outputs=(channel.path.stream or "",))


@dataclass
class _Life:
    created: float
    total_in: int = 0
    total_out: int = 0


def _readings(server: ServerId, scale: float) -> Iterator[Observation]:
    """Every observation of the recording, in time order: each second the streams, then their sums."""
    lives = {channel.path: _Life(_epoch(-channel.up_before_s)) for channel in LINE_UP}
    sums = _Life(_epoch(-max(channel.up_before_s for channel in LINE_UP)))
    for channel in LINE_UP:
        yield ObservedInfo(server, channel.path, _info(channel, lives[channel.path].created), _epoch(0))
    for second in range(RECORDED_S):
        at = _epoch(second)
        rates_in = rates_out = 0.0
        sum_viewers: dict[str, int] = {}
        for channel in LINE_UP:
            if channel.path == PROMO and second >= PROMO_END_S:
                if second == PROMO_END_S:
                    yield ObservedEnd(server, PROMO, at)
                continue
            life = lives[channel.path]
            if channel.path == SPORTS and second == SPORTS_RESTART_S:
                lives[SPORTS] = life = _Life(at - 2)  # the encoder reconnected: a new life from zero
                yield ObservedInfo(server, SPORTS, _info(channel, life.created), at)
            rise = channel.rise_per_min * second // 60
            viewers = {protocol: max(0, count + (rise if protocol == "llhls" else 0))
                       for protocol, count in channel.viewers.items()}
            rate_in = round(scale * (channel.rate_in + channel.swing * ((second * 3) % 7 - 3) // 3))
            rate_out = rate_in * sum(viewers.values())
            life.total_in += rate_in // 8
            life.total_out += rate_out // 8
            sample = Sample(at=second, rate_in_bps=float(rate_in), rate_out_bps=float(rate_out),
                            viewers=sum(viewers.values()),
                            stats=_stats(at, life.created, life.total_in, life.total_out, viewers))
            yield ObservedSample(server, channel.path, sample, at)
            sums.total_in, sums.total_out = sums.total_in + rate_in // 8, sums.total_out + rate_out // 8
            rates_in, rates_out = rates_in + rate_in, rates_out + rate_out
            for protocol, count in viewers.items():
                sum_viewers[protocol] = sum_viewers.get(protocol, 0) + count
        for node in (APP, VHOST):
            sample = Sample(at=second, rate_in_bps=rates_in, rate_out_bps=rates_out, viewers=sum(sum_viewers.values()),
                            stats=_stats(at, sums.created, sums.total_in, sums.total_out, sum_viewers))
            yield ObservedSample(server, node, sample, at)


def write_recording(path: Path, servers: dict[ServerId, float]) -> None:
    """The recording of each server (and its scale of the line-up's rates) into a new store at `path`."""
    writer = HistoryWriter.start(path, HistorySettings(path=path), now=lambda: _epoch(RECORDED_S))
    try:
        for server, scale in servers.items():
            for observation in _readings(server, scale):
                assert writer.offer(observation), "the writer dropped a reading"
        assert writer.flush(60), "the recording was not written within a minute"
    finally:
        writer.close()

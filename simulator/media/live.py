"""One watched stream's published media: its timeline plus the bytes built from it, built once and
shared by every client (playlists per live-edge position, parts and segments by name, the latter in
the publisher's ByteCache shared by every stream).

Made on a stream's first request and dropped when nobody watches it: 10,000 unwatched streams cost
nothing.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from simulator.media import fmp4, hls_playlist, llhls_playlist
from simulator.media.asset import FRAME_TICKS, LOOP_TICKS, Asset, load_asset
from simulator.media.cache import ByteCache
from simulator.media.layout import Layout
from simulator.media.model import VIDEO_TIMESCALE, TrackKind
from simulator.media.mpegts import package_ts_segment
from simulator.media.timeline import Snapshot, StreamTimeline
from simulator.world.edition import ENTERPRISE, ServerProfile
from simulator.world.events import EventLog

log = logging.getLogger("simulator.media")

EdgeKey = tuple[int, int, int, int, int]
"""(video msn, video parts done, audio msn, audio parts done, events planned): what a playlist shows."""


@dataclass(frozen=True)
class Body:
    """A response body, with its gzip form for clients that accept it (playlists only)."""

    data: bytes
    gzipped: bytes | None = None


def stream_key(vhost: str, app: str, stream: str, created_ms: int) -> str:
    """8 characters naming one life of a stream in file names (a restarted stream gets new names)."""
    digest = hashlib.blake2b(f"{vhost}/{app}/{stream}/{created_ms}".encode(), digest_size=5).digest()
    return base64.b32encode(digest).decode().lower()


class LiveMedia:
    def __init__(self, layout: Layout, vhost: str, app: str, stream: str, created_ms: int, events: EventLog,
                 cache: ByteCache | None = None, profile: ServerProfile = ENTERPRISE,
                 input_bps: int | None = None) -> None:
        """`cache`: where its media bytes are kept (the publisher's, shared by every stream), else its own;
        `profile`: the server played (its cue cuts, marker tags and playlist layout); `input_bps`: the
        stream's input bitrate, which the captured layout's BANDWIDTH states."""
        self.layout = layout
        self.profile = profile
        self.path = f"/{app}/{stream}/"
        self.timeline = StreamTimeline(layout, created_ms, events, profile)
        self.key = stream_key(vhost, app, stream, created_ms)
        self.identity = (vhost, app, stream, created_ms)
        """Names this life of the stream in the shared cache."""
        self.label = f"{vhost}/{app}/{stream}"
        self.asset = load_asset()
        self._cache = cache if cache is not None else ByteCache()
        self._snapshots: dict[TrackKind, tuple[EdgeKey, Snapshot]] = {}
        self._edge: tuple[int, int, EdgeKey] = (-1, -1, (-1, -1, -1, -1, -1))
        """(now_ms, event count, edge key) of the last lookup: one computation per clock value."""
        self._playlists: dict[str, tuple[EdgeKey, Body]] = {}
        self._logged = 0
        loop_bytes = sum(map(len, self.asset.video_frames)) + sum(map(len, self.asset.audio_frames))
        self.bandwidth = round(loop_bytes * 8 / (LOOP_TICKS / VIDEO_TIMESCALE) * 1.25)
        self.input_bps = input_bps if input_bps and input_bps > 0 else self.bandwidth

    # -- the live edge ---------------------------------------------------------------------------

    def snapshot(self, now_ms: int, track: TrackKind = "video") -> Snapshot:
        """One track of the stream now; recomputed only when a part of either track completes or an
        event arrives (a chunklist reports the other track's newest part)."""
        key = self._edge_key(now_ms)
        cached = self._snapshots.get(track)
        if cached is None or cached[0] != key:
            cached = (key, self.timeline.snapshot(now_ms, track))
            self._snapshots[track] = cached
            self._log_rejections()
        return cached[1]

    def _edge_key(self, now_ms: int) -> EdgeKey:
        timeline = self.timeline
        events = len(timeline.events.events)
        if self._edge[:2] == (now_ms, events):
            return self._edge[2]
        now = timeline.ticks_at(now_ms)
        video, audio = timeline.last_part(now, "video"), timeline.last_part(now, "audio")
        key = (*video, *audio, timeline.plan().event_count)
        self._edge = (now_ms, events, key)
        return key

    def _log_rejections(self) -> None:
        rejections = self.timeline.plan().rejections
        for rejection in rejections[self._logged:]:
            log.warning("%s: cue %d of event %d not written: %s", self.label, rejection.index,
                        rejection.event_seq, rejection.reason)
        self._logged = len(rejections)

    # -- playlists -------------------------------------------------------------------------------

    def _playlist(self, name: str, now_ms: int, track: TrackKind, render: Callable[[Snapshot], str]) -> Body:
        snapshot = self.snapshot(now_ms, track)
        key = self._snapshots[track][0]
        cached = self._playlists.get(name)
        if cached is None or cached[0] != key:
            text = render(snapshot).encode()
            cached = (key, Body(text, gzip.compress(text, compresslevel=5, mtime=0)))
            self._playlists[name] = cached
        return cached[1]

    def llhls_multivariant(self) -> Body:
        codecs = (self.asset.video_codec, self.asset.audio_codec)
        resolution = (self.asset.width, self.asset.height)
        if self.profile.captured_playlists:
            text = llhls_playlist.captured_multivariant(self.path, self.key, codecs=codecs, resolution=resolution,
                                                        bandwidth=self.input_bps, channels=self.asset.channels)
        else:
            text = llhls_playlist.multivariant(self.key, codecs=codecs, resolution=resolution,
                                               bandwidth=self.bandwidth)
        return Body(text.encode(), gzip.compress(text.encode(), mtime=0))

    def chunklist(self, track: TrackKind, now_ms: int) -> Body:
        return self._playlist(f"chunklist-{track}", now_ms, track, lambda snap: llhls_playlist.chunklist(
            snap, self.layout, track, self.key, captured=self.profile.captured_playlists))

    def ts_multivariant(self) -> Body:
        codecs = hls_playlist.codecs_attribute(self.asset.sps, self.asset.audio_specific_config)
        if self.profile.captured_playlists:  # the input's average, and its peak by the loop's own peak/average
            variant = hls_playlist.TsVariant(self.key, round(self.input_bps * _peak_ratio(self.asset)), codecs,
                                             (self.asset.width, self.asset.height), 30.0,
                                             average_bandwidth=self.input_bps)
        else:
            variant = hls_playlist.TsVariant(self.key, self.bandwidth, codecs, (self.asset.width, self.asset.height),
                                             30.0)
        text = hls_playlist.render_multivariant_playlist([variant]).encode()
        return Body(text, gzip.compress(text, mtime=0))

    def ts_media_playlist(self, now_ms: int) -> Body:
        return self._playlist("medialist", now_ms, "video", lambda snap: hls_playlist.render_media_playlist(
            snap.segments, variant=self.key, segment_count=self.layout.segment_count,
            target_duration=self.layout.target_duration))

    # -- media files -----------------------------------------------------------------------------

    def part_ready_ms(self, track: TrackKind, msn: int, index: int) -> int | None:
        """World time at which part (msn, index) is complete; None if the segment has no such part."""
        bounds = self.timeline.part_bounds(msn, index, track)
        return None if bounds is None else self.timeline.wall_ms(bounds[1])

    def segment_ready_ms(self, track: TrackKind, msn: int) -> int:
        return self.timeline.wall_ms(self.timeline.track_boundary(msn + 1, track))

    def oldest_served_msn(self, now_ms: int) -> int:
        """Older files than this answer 404 (they left every playlist long ago)."""
        return self.timeline.msn_at(self.timeline.ticks_at(now_ms)) - 2 * self.layout.segment_count - 1

    def init(self, track: TrackKind) -> bytes:
        return self._cached(("init", track), lambda: fmp4.init_segment(self.asset, track))

    def part(self, track: TrackKind, msn: int, index: int) -> bytes:
        """The bytes of a complete part (the caller checks it is complete)."""
        def build() -> bytes:
            bounds = self.timeline.part_bounds(msn, index, track)
            if bounds is None:
                raise KeyError((msn, index))
            start, end = bounds
            samples = (self.asset.video_samples(start, end) if track == "video"
                       else self.asset.audio_samples(start, end))
            id3 = [p for p in self.timeline.plan().id3 if start <= p.media_time < end]
            return fmp4.fragment(start // self.layout.grid(track).unit + 1, samples, id3, track)
        return self._cached(("part", track, msn, index), build)

    def segment(self, track: TrackKind, msn: int) -> bytes:
        """A complete segment: its parts one after the other."""
        def build() -> bytes:
            count = self.timeline.part_count(msn, track)
            return b"".join(self.part(track, msn, index) for index in range(count))
        return self._cached(("seg", track, msn), build)

    def ts_segment(self, msn: int) -> bytes:
        def build() -> bytes:
            timeline = self.timeline
            segment = timeline.segment(msn, timeline.boundary(msn + 1))
            return package_ts_segment(
                segment, self.asset.video_samples(segment.start, segment.end),
                self.asset.audio_samples(segment.start, segment.end), sps=self.asset.sps, pps=self.asset.pps,
                audio_config=self.asset.audio_specific_config)
        return self._cached(("ts", msn), build)

    def _cached(self, key: tuple[object, ...], build: Callable[[], bytes]) -> bytes:
        return self._cache.get(self.identity, key, build)


def _peak_ratio(asset: Asset) -> float:
    """The loop's busiest second (its video frames, with the audio's average) over its average rate."""
    per_second = round(VIDEO_TIMESCALE / FRAME_TICKS)
    sizes = [len(frame) for frame in asset.video_frames]
    audio_per_second = sum(map(len, asset.audio_frames)) / (LOOP_TICKS / VIDEO_TIMESCALE)
    seconds = max(1, len(sizes) // per_second)
    windows = [sum(sizes[at * per_second:(at + 1) * per_second]) for at in range(seconds)]
    average = sum(sizes) / (len(sizes) / per_second) + audio_per_second
    return (max(windows) + audio_per_second) / average

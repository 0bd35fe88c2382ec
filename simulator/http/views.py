"""The JSON documents the management API returns, built from the world (reference §1.2, §3)."""

from __future__ import annotations

from typing import Any

from simulator.world.edition import Edition
from simulator.world.timefmt import iso8601_ms
from simulator.world.topology import Stream

_SOURCE_TYPES = {
    "file": "File", "mpegts": "MPEGTS", "multiplex": "Multiplex", "ovt": "Ovt", "rtmp": "Rtmp",
    "rtsp": "Rtsp", "rtsppull": "RtspPull", "scheduled": "Scheduled", "srt": "SRT", "webrtc": "WebRTC",
}
_PULLED_SOURCE_URLS = {
    "ovt": "ovt://origin.example.net:9000/{app}/{stream}",
    "rtsppull": "rtsp://camera.example.net:554/{stream}",
    "file": "file:///media/{stream}.mp4",
}
_AUDIO_BITRATE = 128_000
FRAMERATE = 30.0
KEYFRAME_INTERVAL_SECONDS = 1.0


def stats_v2(counters: dict[str, Any]) -> dict[str, Any]:
    """The seed's v2 record: the same shape at vhost, application and stream level."""
    return {
        "createdTime": iso8601_ms(counters["created_ms"]),
        "lastUpdatedTime": iso8601_ms(counters["last_updated_ms"]),
        "providers": {
            "avgThroughputIn": counters["avg_in"],
            "connections": counters["provider_conn"],
            "lastRecvTime": iso8601_ms(counters["last_recv_ms"]),
            "lastThroughputIn": counters["last_in"],
            "maxThroughputIn": counters["max_in"],
            "totalBytesIn": counters["bytes_in"],
        },
        "publishers": {
            "avgThroughputOut": counters["avg_out"],
            "connections": counters["publisher_conn"],
            "lastSentTime": iso8601_ms(counters["last_sent_ms"]),
            "lastThroughputOut": counters["last_out"],
            "maxThroughputOut": counters["max_out"],
            "maxTotalConnectionTime": iso8601_ms(counters["max_total_conn_ms"]),
            "maxTotalConnections": counters["max_total_conn"],
            "totalBytesOut": counters["bytes_out"],
            "totalConnections": counters["total_conn"],
        },
    }


def stats_v1(counters: dict[str, Any]) -> dict[str, Any]:
    """The open source v1 record (`json_serdes/metrics.cpp`): one flat object, publisher connections only;
    the same at server, vhost, application and stream level."""
    return {
        "avgThroughputIn": counters["avg_in"],
        "avgThroughputOut": counters["avg_out"],
        "connections": counters["publisher_conn"],
        "createdTime": iso8601_ms(counters["created_ms"]),
        "lastRecvTime": iso8601_ms(counters["last_recv_ms"]),
        "lastSentTime": iso8601_ms(counters["last_sent_ms"]),
        "lastThroughputIn": counters["last_in"],
        "lastThroughputOut": counters["last_out"],
        "lastUpdatedTime": iso8601_ms(counters["last_updated_ms"]),
        "maxThroughputIn": counters["max_in"],
        "maxThroughputOut": counters["max_out"],
        "maxTotalConnectionTime": iso8601_ms(counters["max_total_conn_ms"]),
        "maxTotalConnections": counters["max_total_conn"],
        "totalBytesIn": counters["bytes_in"],
        "totalBytesOut": counters["bytes_out"],
        "totalConnections": counters["total_conn"],
    }


def video_size(bitrate_kbps: int) -> tuple[int, int]:
    if bitrate_kbps >= 4000:
        return 1920, 1080
    if bitrate_kbps >= 2000:
        return 1280, 720
    if bitrate_kbps >= 800:
        return 854, 480
    return 640, 360


def _tracks(stream: Stream, edition: Edition) -> list[dict[str, Any]]:
    """The stream's video, audio and data tracks as the edition's version writes them (`json_serdes/stream.cpp`).

    Both versions write `maxFramerate` (the highest frame rate seen). From 0.21 (the open source edition here)
    a track also has `codecStatus` (always `Ready` for a bypass track), `timebase` and `configChangeCount`
    (`lastConfigChanged` only once it is above 0), and a data track has `data.codec`: `None`, the codec of the
    data track every provider adds for events.
    """
    video_bitrate = max(stream.bitrate_kbps * 1000 - _AUDIO_BITRATE, 100_000)
    width, height = video_size(stream.bitrate_kbps)
    keyframe_frames = FRAMERATE * KEYFRAME_INTERVAL_SECONDS
    video: dict[str, Any] = {
        "bypass": True, "codec": "H264", "width": width, "height": height, "maxWidth": width,
        "maxHeight": height, "bitrate": video_bitrate, "bitrateConf": 0, "bitrateAvg": video_bitrate,
        "bitrateLatest": video_bitrate, "framerate": FRAMERATE, "framerateConf": 0.0,
        "framerateAvg": FRAMERATE, "framerateLatest": FRAMERATE, "maxFramerate": FRAMERATE, "hasBframes": False,
        "keyFrameInterval": keyframe_frames, "keyFrameIntervalConf": 0.0,
        "keyFrameIntervalAvg": keyframe_frames, "keyFrameIntervalLatest": keyframe_frames,
        "deltaFramesSinceLastKeyFrame": 0,
    }
    audio: dict[str, Any] = {
        "bypass": True, "codec": "AAC", "samplerate": 48000, "channel": 2, "bitrate": _AUDIO_BITRATE,
        "bitrateConf": 0, "bitrateAvg": _AUDIO_BITRATE, "bitrateLatest": _AUDIO_BITRATE,
    }
    data: dict[str, Any] = {"id": 2, "name": "data", "type": "Data"}
    if edition == "oss":
        video |= {"codecStatus": "Ready", "configChangeCount": 0, "timebase": {"den": 90000, "num": 1}}
        audio |= {"codecStatus": "Ready", "configChangeCount": 0, "timebase": {"den": 48000, "num": 1}}
        data["data"] = {"codec": "None"}
    return [
        {"id": 0, "name": "video", "type": "Video", "video": video},
        {"id": 1, "name": "audio", "type": "Audio", "audio": audio},
        data,
    ]


def stream_info(stream: Stream, edition: Edition) -> dict[str, Any]:
    source: dict[str, Any] = {
        "createdTime": iso8601_ms(stream.created_ms),
        "sourceType": _SOURCE_TYPES[stream.input_protocol],
        "tracks": _tracks(stream, edition),
    }
    url = _PULLED_SOURCE_URLS.get(stream.input_protocol)
    if url:
        source["sourceUrl"] = url.format(app=stream.app, stream=stream.name)
    playlists = [
        {
            "name": "llhls", "fileName": "llhls",
            "options": {"webrtcAutoAbr": False, "hlsChunklistPathDepth": -1, "enableTsPackaging": True},
            "renditions": [{"name": "source", "videoVariantName": "video", "audioVariantName": "audio"}],
        }
    ]
    return {
        "input": source,
        "name": stream.name,
        "outputs": [{"name": stream.name, "tracks": _tracks(stream, edition), "playlists": playlists}],
    }

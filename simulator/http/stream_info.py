"""`GET /v1/vhosts/{v}/apps/{a}/streams/{s}`: the stream info each edition and version writes (`json_serdes/
stream.cpp`, reference §3), with the stream's bit rate from the scenario.

Three shapes (`ServerProfile.stream_info_shape`):

- `oss-0.19` (0.19 and 0.20, whose code is one; capture api/22), describing the media the publisher really
  serves (the packaged loop's size, frame rate, keyframe interval, sample rate and channels): the input names
  its tracks Video, Audio and
  Data, with `bypass: false`, and an RTMP input its peer as `sourceUrl` (`TCP://address:port`); no `max*`,
  `codecStatus`, `configChangeCount` or `timebase`; the data track is only its id, name and type; the output's
  tracks are the bypass encodes, `{"bypass": true}` and nothing else; three playlists (LL-HLS `llhls`, the
  configured `master` with TS packaging, HLS `playlist`), in file-name order.
- `oss-0.21`: the 0.21 fields (`codecStatus`, `configChangeCount`, `timebase`, `maxFramerate`, a data track
  with `data.codec`), the input's tracks copied to the output, one playlist.
- `enterprise`: as the simulator has always written it for the seed's edition (`maxFramerate`, no 0.21 fields).

Every shape gives the size of the media the publisher really serves (the packaged loop, 640x360), so a
stream's info and its playlists' RESOLUTION agree (they did not: 854x480 by bit rate against 640x360).
"""

from __future__ import annotations

from typing import Any

from simulator.media.asset import KEYFRAME_FRAMES, load_asset
from simulator.media.model import AUDIO_TIMESCALE
from simulator.world.edition import ServerProfile
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
"""The packaged loop's frame rate (simulator/media/asset.py)."""


def stream_info(stream: Stream, profile: ServerProfile,
                publishers: tuple[str, ...] = ("hls", "llhls")) -> dict[str, Any]:
    """`publishers`: the application's; in the 0.19 shape, the LL-HLS and HLS publishers' own playlists are
    listed only when they run."""
    shape = profile.stream_info_shape
    source: dict[str, Any] = {
        "createdTime": iso8601_ms(stream.created_ms),
        "sourceType": _SOURCE_TYPES[stream.input_protocol],
    }
    url = _source_url(stream, shape == "oss-0.19")
    if url:
        source["sourceUrl"] = url
    if shape == "oss-0.19":
        source["tracks"] = _input_tracks_019(stream)
        outputs = [{"name": stream.name, "tracks": _BYPASS_TRACKS_019, "playlists": _playlists_019(publishers)}]
    else:
        source["tracks"] = _tracks(stream, shape == "oss-0.21")
        outputs = [{"name": stream.name, "tracks": _tracks(stream, shape == "oss-0.21"), "playlists": _PLAYLISTS}]
    return {"input": source, "name": stream.name, "outputs": outputs}


def _source_url(stream: Stream, rtmp_peer: bool) -> str | None:
    """A pulled input's URL; from 0.19's code also an RTMP publisher's peer address (the capture's
    `TCP://127.0.0.1:59428`), here a documentation address (RFC 5737) and a port fixed by the stream."""
    if rtmp_peer and stream.input_protocol == "rtmp":
        return f"TCP://192.0.2.{1 + stream.row % 254}:{49152 + stream.row % 16384}"
    url = _PULLED_SOURCE_URLS.get(stream.input_protocol)
    return url.format(app=stream.app, stream=stream.name) if url else None


def _video_bitrate(stream: Stream) -> int:
    return max(stream.bitrate_kbps * 1000 - _AUDIO_BITRATE, 100_000)


def _input_tracks_019(stream: Stream) -> list[dict[str, Any]]:
    asset = load_asset()
    bitrate = _video_bitrate(stream)
    keyframe_frames = float(KEYFRAME_FRAMES)
    video = {
        "bitrate": bitrate, "bitrateAvg": bitrate, "bitrateConf": bitrate, "bitrateLatest": bitrate,
        "bypass": False, "codec": "H264", "deltaFramesSinceLastKeyFrame": 0, "framerate": FRAMERATE,
        "framerateAvg": FRAMERATE, "framerateConf": FRAMERATE, "framerateLatest": FRAMERATE, "hasBframes": False,
        "height": asset.height, "keyFrameInterval": keyframe_frames, "keyFrameIntervalAvg": keyframe_frames,
        "keyFrameIntervalConf": 0.0, "keyFrameIntervalLatest": keyframe_frames, "width": asset.width,
    }
    audio = {
        "bitrate": _AUDIO_BITRATE, "bitrateAvg": _AUDIO_BITRATE, "bitrateConf": _AUDIO_BITRATE,
        "bitrateLatest": _AUDIO_BITRATE, "bypass": False, "channel": asset.channels, "codec": "AAC",
        "samplerate": AUDIO_TIMESCALE,
    }
    return [
        {"id": 0, "name": "Video", "type": "Video", "video": video},
        {"id": 1, "name": "Audio", "type": "Audio", "audio": audio},
        {"id": 2, "name": "Data", "type": "Data"},
    ]


_BYPASS_TRACKS_019 = [
    {"id": 0, "name": "bypass_video", "type": "Video", "video": {"bypass": True}},
    {"id": 1, "name": "bypass_audio", "type": "Audio", "audio": {"bypass": True}},
    {"id": 2, "name": "Data", "type": "Data"},
]


def _playlists_019(publishers: tuple[str, ...]) -> list[dict[str, Any]]:
    """The captured server's three playlists (the publishers' own only where they run); the configured one's
    rendition is named from the height."""
    def playlist(file_name: str, name: str, rendition: str, ts: bool, depth: int, abr: bool) -> dict[str, Any]:
        return {
            "fileName": file_name, "name": name,
            "options": {"enableTsPackaging": ts, "hlsChunklistPathDepth": depth, "webrtcAutoAbr": abr},
            "renditions": [{"audioVariantName": "bypass_audio", "name": rendition,
                            "videoVariantName": "bypass_video"}],
        }

    return [
        *([playlist("llhls", "llhls_default", "default", ts=False, depth=-1, abr=False)]
          if "llhls" in publishers else []),
        playlist("master", "default", f"{load_asset().height}p", ts=True, depth=0, abr=True),
        *([playlist("playlist", "hls_default", "default", ts=True, depth=-1, abr=False)]
          if "hls" in publishers else []),
    ]


_PLAYLISTS = [
    {
        "name": "llhls", "fileName": "llhls",
        "options": {"webrtcAutoAbr": False, "hlsChunklistPathDepth": -1, "enableTsPackaging": True},
        "renditions": [{"name": "source", "videoVariantName": "video", "audioVariantName": "audio"}],
    }
]


def _tracks(stream: Stream, fields_021: bool) -> list[dict[str, Any]]:
    """The video, audio and data tracks as Enterprise and open source 0.21 write them.

    Both write `maxFramerate` (the highest frame rate seen). 0.21 also writes `codecStatus` (always `Ready` for a
    bypass track), `timebase` and `configChangeCount` (`lastConfigChanged` only once it is above 0), and a data
    track has `data.codec`: `None`, the codec of the data track every provider adds for events.
    """
    asset = load_asset()
    width, height = asset.width, asset.height  # what the publisher really serves, as in 0.19's shape
    bitrate = _video_bitrate(stream)
    keyframe_frames = float(KEYFRAME_FRAMES)
    video: dict[str, Any] = {
        "bypass": True, "codec": "H264", "width": width, "height": height, "maxWidth": width,
        "maxHeight": height, "bitrate": bitrate, "bitrateConf": 0, "bitrateAvg": bitrate,
        "bitrateLatest": bitrate, "framerate": FRAMERATE, "framerateConf": 0.0,
        "framerateAvg": FRAMERATE, "framerateLatest": FRAMERATE, "maxFramerate": FRAMERATE, "hasBframes": False,
        "keyFrameInterval": keyframe_frames, "keyFrameIntervalConf": 0.0,
        "keyFrameIntervalAvg": keyframe_frames, "keyFrameIntervalLatest": keyframe_frames,
        "deltaFramesSinceLastKeyFrame": 0,
    }
    audio: dict[str, Any] = {
        "bypass": True, "codec": "AAC", "samplerate": 48000, "channel": 2,
        "bitrate": _AUDIO_BITRATE, "bitrateConf": 0, "bitrateAvg": _AUDIO_BITRATE, "bitrateLatest": _AUDIO_BITRATE,
    }
    data: dict[str, Any] = {"id": 2, "name": "data", "type": "Data"}
    if fields_021:
        video |= {"codecStatus": "Ready", "configChangeCount": 0, "timebase": {"den": 90000, "num": 1}}
        audio |= {"codecStatus": "Ready", "configChangeCount": 0, "timebase": {"den": 48000, "num": 1}}
        data["data"] = {"codec": "None"}
    return [
        {"id": 0, "name": "video", "type": "Video", "video": video},
        {"id": 1, "name": "audio", "type": "Audio", "audio": audio},
        data,
    ]

"""`GET /v1/vhosts/{v}/apps/{a}`: the application's configuration as the server echoes it.

The open source server echoes its Server.xml for the application (capture api/20): values are the XML's
strings ("true", "0.5"), keys its element names, sorted. The simulator has no Server.xml; it writes the
configuration it really runs: the providers its streams come in by, one bypass output profile (the streams are
published as they arrive) with an image encode per thumbnail format of the application (one picture a second,
320x180, as the thumbnails are drawn), and the publishers of its scenario (`publishers`; by default LL-HLS and HLS, the
captured server's) with the LL-HLS and HLS settings of `[media]`. Enterprise, built on the same code, answers
the same.
"""

from __future__ import annotations

from typing import Any

from simulator.media.thumbnail import HEIGHT, WIDTH
from simulator.world.edition import ServerProfile
from simulator.world.scenario import MediaSettings
from simulator.world.topology import App

_ANY_ORIGIN = {"urls": ["*"]}
_IMAGE_CODECS = {"jpg": "jpeg", "png": "png", "webp": "webp"}
"""A thumbnail's file extension to its image encode's `<Codec>`."""
_PLAYLISTS = [{
    "fileName": "master", "name": "default",
    "options": {"enableTsPackaging": "true", "hLSChunklistPathDepth": "0"},
    "rendition_templates": [{"audio_template": {"encoding_type": "all"}, "name": "${Height}p",
                             "video_template": {"encoding_type": "all"}}],
}]


def app_info(app: App, media: MediaSettings, profile: ServerProfile) -> dict[str, Any]:
    del profile  # every edition echoes its configuration the same way
    segments = {"segmentCount": str(media.segment_count), "segmentDuration": f"{media.segment_duration:g}"}
    settings: dict[str, dict[str, Any]] = {
        "hls": {"createDefaultPlaylist": "true", "crossDomains": _ANY_ORIGIN, **segments},
        "llhls": {"chunkDuration": f"{media.part_target:g}", "createDefaultPlaylist": "true",
                  "crossDomains": _ANY_ORIGIN, "originMode": "true", "partHoldBack": f"{3 * media.part_target:g}",
                  **segments},
        "thumbnail": {"crossDomains": _ANY_ORIGIN},
    }
    publishers: dict[str, Any] = {"appWorkerCount": "1", "streamWorkerCount": "2"}
    for name in app.publishers:
        publishers[name] = settings.get(name, {})
    return {
        "dynamic": False, "name": app.name,
        "outputProfiles": {"hwaccels": {"decoder": {"enable": "false"}, "encoder": {"enable": "false"}},
                           "outputProfile": [_bypass_profile(app.thumbnails)]},
        "providers": {protocol: {} for protocol in sorted({s.input_protocol for s in app.streams.values()})},
        "publishers": dict(sorted(publishers.items())),
        "type": "live",
    }


def _bypass_profile(thumbnails: tuple[str, ...]) -> dict[str, Any]:
    encodes: dict[str, Any] = {"audios": [{"bypass": "true", "name": "bypass_audio"}]}
    if thumbnails:
        encodes["images"] = [{"codec": _IMAGE_CODECS[image_format], "framerate": "1", "height": str(HEIGHT),
                              "width": str(WIDTH)} for image_format in thumbnails]
    encodes["videos"] = [{"bypass": "true", "name": "bypass_video"}]
    return {"encodes": encodes, "name": "bypass_stream", "outputStreamName": "${OriginStreamName}",
            "playlists": _PLAYLISTS}

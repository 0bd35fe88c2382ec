"""`GET /v1/vhosts/{v}/apps/{a}`: the application's configuration as the server echoes it.

The open source server echoes its Server.xml for the application (capture api/20): values are the XML's
strings ("true", "0.5"), keys its element names. The simulator has no Server.xml; it writes the configuration
it really runs: the providers its streams come in by, one bypass output profile (the streams are published as
they arrive), and the LL-HLS and HLS settings of its scenario (`[media]`). Enterprise keeps the seed-era
answer (`dynamic`, `name`, `type`).
"""

from __future__ import annotations

from typing import Any

from simulator.world.edition import ServerProfile
from simulator.world.scenario import MediaSettings
from simulator.world.topology import App

_ANY_ORIGIN = {"urls": ["*"]}
_BYPASS_PROFILE = {
    "encodes": {"audios": [{"bypass": "true", "name": "bypass_audio"}],
                "videos": [{"bypass": "true", "name": "bypass_video"}]},
    "name": "bypass_stream",
    "outputStreamName": "${OriginStreamName}",
    "playlists": [{
        "fileName": "master", "name": "default",
        "options": {"enableTsPackaging": "true", "hLSChunklistPathDepth": "0"},
        "rendition_templates": [{"audio_template": {"encoding_type": "all"}, "name": "${Height}p",
                                 "video_template": {"encoding_type": "all"}}],
    }],
}


def app_info(app: App, media: MediaSettings, profile: ServerProfile) -> dict[str, Any]:
    info: dict[str, Any] = {"dynamic": False, "name": app.name, "type": "live"}
    if profile.is_enterprise:
        return info
    segments = {"segmentCount": str(media.segment_count), "segmentDuration": f"{media.segment_duration:g}"}
    return info | {
        "outputProfiles": {"hwaccels": {"decoder": {"enable": "false"}, "encoder": {"enable": "false"}},
                           "outputProfile": [_BYPASS_PROFILE]},
        "providers": {protocol: {} for protocol in sorted({s.input_protocol for s in app.streams.values()})},
        "publishers": {
            "appWorkerCount": "1",
            "hls": {"createDefaultPlaylist": "true", "crossDomains": _ANY_ORIGIN, **segments},
            "llhls": {"chunkDuration": f"{media.part_target:g}", "createDefaultPlaylist": "true",
                      "crossDomains": _ANY_ORIGIN, "originMode": "true",
                      "partHoldBack": f"{3 * media.part_target:g}", **segments},
            "streamWorkerCount": "2",
        },
    }

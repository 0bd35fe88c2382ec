"""Every v1 response of the simulator, both editions, validated against the JSON schemas in tests/support/schemas/.

The schemas are ours, written from the facts of the vendor's OpenAPI document and the real server's JSON
writer, one per version the simulator reports (tests/support/schemas/README.md). The simulator is walked the way a
client discovers it: the listings give every virtual host, application and stream, and each is read at every
level, with errors (401, 404, 400) and sends too.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from sim_support import api_client, running_simulator

from simulator.http.event_validation import Edition
from simulator.world.clock import ManualClock

SCHEMAS = Path(__file__).parents[1] / "support" / "schemas"
SCHEMA_BASE = "https://omeconsole.invalid/schemas/"
VERSION_SCHEMA = {"enterprise": "v1-0.20.5.json", "oss": "v1-0.21.json"}
REPORTED_VERSION = {"enterprise": "0.20.5", "oss": "0.21."}


def _registry() -> Registry:
    resources = [(SCHEMA_BASE + path.name, Resource.from_contents(json.loads(path.read_text("utf-8"))))
                 for path in SCHEMAS.glob("*.json")]
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validator(schema_file: str, definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"{SCHEMA_BASE}{schema_file}#/$defs/{definition}"}, registry=REGISTRY)


def errors(edition: Edition, definition: str, document: Any) -> list[str]:
    """Why `document` breaks the definition (looked up in the edition's version schema, else the common one)."""
    version_file = VERSION_SCHEMA[edition]
    defined = json.loads((SCHEMAS / version_file).read_text("utf-8"))["$defs"]
    schema_file = version_file if definition in defined else "v1-common.json"
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(schema_file, definition).iter_errors(document)]


async def read(http: httpx.AsyncClient, path: str) -> tuple[int, Any]:
    reply = await http.get(path)
    return reply.status_code, reply.json()


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_every_v1_response_matches_the_schema_of_the_reported_version(edition: Edition) -> None:
    clock = ManualClock()
    async with running_simulator("demo", edition=edition, clock=clock) as simulator, api_client(simulator) as http:
        clock.advance(30)  # counters moving, throughput measured, streams churned in `live`
        checked: list[tuple[str, str]] = []

        async def check(path: str, definition: str, status: int = 200) -> Any:
            code, body = await read(http, path)
            assert code == status, (path, body)
            assert errors(edition, definition, body) == [], path
            checked.append((path, definition))
            return body

        version = await check("/v1/version", "VersionReply")
        assert version["response"]["version"].startswith(REPORTED_VERSION[edition])
        await check("/v1/stats/current", "MetricsReply")
        for vhost in (await check("/v1/vhosts", "Names"))["response"]:
            await check(f"/v1/vhosts/{vhost}", "VHostReply")
            await check(f"/v1/stats/current/vhosts/{vhost}", "MetricsReply")
            for app in (await check(f"/v1/vhosts/{vhost}/apps", "Names"))["response"]:
                await check(f"/v1/vhosts/{vhost}/apps/{app}", "ApplicationReply")
                await check(f"/v1/stats/current/vhosts/{vhost}/apps/{app}", "MetricsReply")
                for stream in (await check(f"/v1/vhosts/{vhost}/apps/{app}/streams", "Names"))["response"]:
                    info = await check(f"/v1/vhosts/{vhost}/apps/{app}/streams/{stream}", "StreamReply")
                    assert info["response"]["name"] == stream
                    await check(f"/v1/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}", "MetricsReply")
        for missing in ("/v1/vhosts/nope", "/v1/vhosts/default/apps/nope", "/v1/vhosts/default/apps/app/streams/nope",
                        "/v1/stats/current/vhosts/default/apps/app/streams/nope", "/v1/nothing"):
            await check(missing, "Error", 404)
        assert len([c for c in checked if c[1] == "StreamReply"]) == 8
        async with api_client(simulator, authorized=False) as anonymous:
            reply = await anonymous.get("/v1/vhosts")
            assert reply.status_code == 401 and errors(edition, "Error", reply.json()) == []

        stream = "/v1/vhosts/default/apps/app/streams/stream"
        id3 = {"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": "k", "data": "v"}]}
        sent = await http.post(f"{stream}:sendEvent", json=id3)
        assert sent.status_code == 200 and errors(edition, "Status", sent.json()) == []
        refused = await http.post(f"{stream}:sendEvent", json={"eventFormat": "id3v2"})
        assert refused.status_code == 400 and errors(edition, "Error", refused.json()) == []
        mixed = await http.post(f"{stream}:sendEvents", json=[id3, {"eventFormat": "nope", "events": [{}]}])
        if edition == "oss":  # each element on its own, a bare array, 207 as their statuses differ
            assert mixed.status_code == 207 and errors(edition, "ActionResults", mixed.json()) == []
        else:  # all or nothing
            assert mixed.status_code == 400 and errors(edition, "Error", mixed.json()) == []


def test_the_schemas_hold_the_facts_where_the_vendor_document_is_wrong() -> None:
    """The schemas are not a rubber stamp: what each version does not write, or writes otherwise, fails."""
    metrics = {"avgThroughputIn": 0, "avgThroughputOut": 0, "createdTime": "2026-01-01T00:00:00.000+00:00",
               "lastRecvTime": "2026-01-01T00:00:00.000+00:00", "lastSentTime": "2026-01-01T00:00:00.000+00:00",
               "lastThroughputIn": 0, "lastThroughputOut": 0, "lastUpdatedTime": "2026-01-01T00:00:00.000+00:00",
               "maxThroughputIn": 0, "maxThroughputOut": 0, "maxTotalConnectionTime": "2026-01-01T00:00:00.000+00:00",
               "maxTotalConnections": 0, "totalBytesIn": 5_000_000_000, "totalBytesOut": 2**40,
               "totalConnections": 0,
               "connections": dict.fromkeys(("file", "hlsv3", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc"),
                                            0)}
    reply = {"message": "OK", "response": metrics, "statusCode": 200}
    assert errors("oss", "MetricsReply", reply) == []  # byte counters past int32: the document's int32 is wrong
    without_last_out = copy.deepcopy(reply)
    del without_last_out["response"]["lastThroughputOut"]
    assert errors("oss", "MetricsReply", without_last_out)
    hls_key = copy.deepcopy(reply)
    hls_key["response"]["connections"]["hls"] = hls_key["response"]["connections"].pop("hlsv3")
    assert errors("oss", "MetricsReply", hls_key)

    video = {"bypass": True, "codec": "H264", "width": 1280, "maxWidth": 1280, "height": 720, "maxHeight": 720,
             "bitrate": 1, "bitrateConf": 0, "framerate": 30.0, "framerateConf": 0.0, "maxFramerate": 30.0,
             "keyFrameInterval": 30.0, "keyFrameIntervalConf": 0.0}
    audio = {"bypass": True, "codec": "AAC", "samplerate": 48000, "channel": 2, "bitrate": 1, "bitrateConf": 0}
    tracks = [{"id": 0, "name": "video", "type": "Video", "video": video},
              {"id": 1, "name": "audio", "type": "Audio", "audio": audio},
              {"id": 2, "name": "data", "type": "Data"}]
    info = {"message": "OK", "statusCode": 200, "response": {
        "name": "s", "input": {"createdTime": metrics["createdTime"], "sourceType": "Rtmp", "tracks": tracks},
        "outputs": [{"name": "s", "tracks": tracks, "playlists": []}]}}
    assert errors("enterprise", "StreamReply", info) == []
    assert errors("oss", "StreamReply", info)  # 0.21 requires data.codec
    with_data = copy.deepcopy(info)
    with_data["response"]["input"]["tracks"][2]["data"] = {"codec": "None"}
    with_data["response"]["outputs"][0]["tracks"][2]["data"] = {"codec": "None"}
    assert errors("oss", "StreamReply", with_data) == []
    assert errors("enterprise", "StreamReply", with_data)  # no data object before 0.21
    no_max = copy.deepcopy(info)
    del no_max["response"]["input"]["tracks"][0]["video"]["maxFramerate"]
    assert errors("enterprise", "StreamReply", no_max)
    later_field = copy.deepcopy(info)
    later_field["response"]["input"]["tracks"][0]["video"]["codecStatus"] = "Ready"
    assert errors("enterprise", "StreamReply", later_field)
    assert errors("oss", "StreamReply", {**with_data, "response": {**with_data["response"], "name": ""}})

"""One description of the API (tests/support/schemas) holds the real server, the simulator and the console to it.

The simulator no longer imports the console's wire models (import-linter forbids it), so the two sides meet only
here: every reply a real 0.19.0 gave (tests/support/fixtures/ome-0.19.0/api), every reply of the simulator in each
edition and version, and every body the console builds for a send are validated against the same schemas.
A shape both sides got wrong in the same way fails here, where before it passed everywhere.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from adops_support import SharedClock, make_ops
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from sim_support import TEST_TOKEN, api_client, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.api.wire import Id3Frame
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.edition import ServerProfile, server_profile

SCHEMAS = Path(__file__).parents[1] / "support" / "schemas"
CAPTURES = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0" / "api"
BASE = "https://omeconsole.invalid/schemas/"
REGISTRY = Registry().with_resources(
    (BASE + path.name, Resource.from_contents(json.loads(path.read_text("utf-8")))) for path in SCHEMAS.glob("*.json"))
STREAM_INFO_SCHEMA = {"enterprise": "v1-0.20.5.json", "oss-0.19": "v1-0.19.json", "oss-0.21": "v1-0.21.json"}
PROFILES = [server_profile("enterprise"), server_profile("oss", "0.19.0"), server_profile("oss", "0.20.5"),
            server_profile("oss", "0.21.0")]


def problems(document: Any, schema_file: str, definition: str) -> list[str]:
    validator = Draft202012Validator({"$ref": f"{BASE}{schema_file}#/$defs/{definition}"}, registry=REGISTRY)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


# -- (a) the real server ----------------------------------------------------------------------------------

REPLY_SCHEMA = {
    # capture -> the definition its reply body must meet (v1-common unless a file is named)
    "01_stats_vhost.json": "MetricsReply", "02_stats_app.json": "MetricsReply", "03_stats_stream.json": "MetricsReply",
    "44_stats_server_v1_missing.json": "MetricsReply",
    "17_vhosts.json": "Names", "19_apps.json": "Names", "21_streams.json": "Names",
    "18_vhost_default.json": "VHostReply", "20_app.json": "ApplicationReply",
    "22_stream.json": ("v1-0.19.json", "StreamReply"), "43_version.json": "VersionReply",
    "30_sendEvent_cue_out.json": "Status", "31_sendEvent_cue_in.json": "Status", "32_sendEvent_id3v2.json": "Status",
    "52_sendEvent_cue_out_no_duration.json": "Status",
    "33_sendEvents_id3v2.json": "ActionResults", "34_sendEvents_mixed.json": "ActionResults",
}
ACCEPTED_REQUESTS = {"30_sendEvent_cue_out.json", "31_sendEvent_cue_in.json", "32_sendEvent_id3v2.json",
                     "33_sendEvents_id3v2.json", "52_sendEvent_cue_out_no_duration.json",
                     "41_sendEvent_missing_stream.json", "42_sendEvent_noauth.json"}
"""Bodies the real server took (or would have, had the stream or the token been right)."""
REFUSED_REQUESTS = {"34_sendEvents_mixed.json", "36_sendEvent_format_foo.json", "37_sendEvent_missing_events.json",
                    "38_sendEvent_empty_events.json", "39_sendEvent_bad_cuetype.json",
                    "40_sendEvents_not_array.json", "51_sendEvent_frame_bad.json"}
"""Bodies the real server refused with 400 (or 207 for one element): the request schema refuses them too."""


def _capture(name: str) -> dict[str, Any]:
    return json.loads((CAPTURES / name).read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.glob("*.json")))
def test_every_reply_of_the_real_server_meets_the_schema(name: str) -> None:
    reply = _capture(name)["response"]
    if reply["status"] == 204:
        assert reply["body"] == ""
        return
    definition = REPLY_SCHEMA.get(name, "Error")
    schema_file, definition = definition if isinstance(definition, tuple) else ("v1-common.json", definition)
    assert reply["status"] in (200, 207) or definition == "Error"
    assert problems(json.loads(reply["body"]), schema_file, definition) == []


@pytest.mark.parametrize("name", sorted(ACCEPTED_REQUESTS | REFUSED_REQUESTS))
def test_the_request_schema_accepts_what_the_real_server_took_and_refuses_what_it_refused(name: str) -> None:
    request = _capture(name)["request"]
    definition = "SendEvents" if request["path"].endswith(":sendEvents") else "SendEvent"
    found = problems(json.loads(request["body"]), "requests.json", definition)
    assert (found == []) == (name in ACCEPTED_REQUESTS), found


def test_the_schemas_are_not_a_rubber_stamp() -> None:
    """What the real server does not write fails: a 0.21 field in 0.19's info, a data object, a full bypass
    track, an unknown key in a request."""
    info = json.loads(_capture("22_stream.json")["response"]["body"])
    assert problems(info, "v1-0.19.json", "StreamReply") == []
    assert problems(info, "v1-0.21.json", "StreamReply") != []  # 0.21 writes maxFramerate, codecStatus, data
    video = info["response"]["input"]["tracks"][0]["video"]
    for change in ({"maxFramerate": 30.0}, {"codecStatus": "Ready"}, {"width": "640"}):
        altered = json.loads(json.dumps(info))
        altered["response"]["input"]["tracks"][0]["video"] = {**video, **change}
        assert problems(altered, "v1-0.19.json", "StreamReply") != [], change
    altered = json.loads(json.dumps(info))
    altered["response"]["outputs"][0]["tracks"][0]["video"]["codec"] = "H264"
    assert problems(altered, "v1-0.19.json", "StreamReply") != []
    cue = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    assert problems(cue, "requests.json", "SendEvent") == []
    assert problems({**cue, "events": [{"cueType": "out", "durationMs": 30000}]}, "requests.json", "SendEvent")
    assert problems({**cue, "events": [{"cueType": "out", "duration": 30.5}]}, "requests.json", "SendEvent")


# -- (b) the simulator, every edition and version ---------------------------------------------------------

async def _walk(http: httpx.AsyncClient, profile: ServerProfile) -> list[tuple[str, list[str]]]:
    """Every endpoint the simulator serves, read as a client discovers it, with the sends and the errors."""
    info_schema = STREAM_INFO_SCHEMA[profile.stream_info_shape]
    found: list[tuple[str, list[str]]] = []

    async def check(method: str, path: str, definition: str, schema_file: str = "v1-common.json",
                    body: Any = None, status: int | tuple[int, ...] = 200) -> Any:
        reply = await http.request(method, path, json=body)
        expected = status if isinstance(status, tuple) else (status,)
        document = reply.json()
        found.append((f"{method} {path} -> {reply.status_code}",
                      ([] if reply.status_code in expected else [f"status {reply.status_code}"])
                      + problems(document, schema_file, definition)))
        return document

    await check("GET", "/v1/version", "VersionReply")
    await check("GET", "/v1/stats/current", "MetricsReply")
    for vhost in (await check("GET", "/v1/vhosts", "Names"))["response"]:
        await check("GET", f"/v1/vhosts/{vhost}", "VHostReply")
        await check("GET", f"/v1/stats/current/vhosts/{vhost}", "MetricsReply")
        if profile.serves_v2_stats:
            await check("GET", f"/v2/stats/current/vhosts/{vhost}", "StatsReply", "v2.json")
        for app in (await check("GET", f"/v1/vhosts/{vhost}/apps", "Names"))["response"]:
            base = f"/v1/vhosts/{vhost}/apps/{app}"
            await check("GET", base, "ApplicationReply")
            await check("GET", f"/v1/stats/current/vhosts/{vhost}/apps/{app}", "MetricsReply")
            if profile.serves_v2_stats:
                await check("GET", f"/v2/stats/current/vhosts/{vhost}/apps/{app}", "StatsReply", "v2.json")
            for stream in (await check("GET", f"{base}/streams", "Names"))["response"]:
                await check("GET", f"{base}/streams/{stream}", "StreamReply", info_schema)
                await check("GET", f"/v1/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}", "MetricsReply")
                if profile.serves_v2_stats:
                    await check("GET", f"/v2/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}",
                                "StatsReply", "v2.json")
    stream = "/v1/vhosts/default/apps/app/streams/stream"
    cue = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    id3 = {"eventFormat": "id3v2", "eventType": "video", "events": [{"frameType": "TXXX", "info": "k", "data": "v"}]}
    await check("POST", f"{stream}:sendEvent", "Status" if profile.accepts_cue else "Error", body=cue,
                status=200 if profile.accepts_cue else 400)
    await check("POST", f"{stream}:sendEvent", "Status", body=id3)
    batch = "ActionResults" if profile.send_events_multi_status else "Status"
    await check("POST", f"{stream}:sendEvents", batch, body=[id3, id3])
    await check("POST", f"{stream}:sendEvents", batch if profile.send_events_multi_status else "Error",
                body=[id3, {"eventFormat": "nope", "events": [{}]}],
                status=207 if profile.send_events_multi_status else 400)
    for path in ("/v1/vhosts/nope", "/v1/vhosts/default/apps/nope", f"{stream}x", "/v1/nothing",
                 f"{stream}:sendEvent", "/v1/stats/current/vhosts/default/apps/app/streams/nope"):
        await check("GET", path, "Error", status=404)
    await check("POST", "/v1/vhosts", "Error", body={}, status=400)
    if not profile.serves_v2_stats:
        await check("GET", "/v2/stats/current/vhosts/default", "Error", status=404)
    return found


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.describe())
async def test_every_reply_of_the_simulator_meets_the_schema_of_its_version(profile: ServerProfile) -> None:
    clock = ManualClock()
    async with running_simulator("demo", edition=profile.edition, version=profile.version, clock=clock) as simulator, \
            api_client(simulator) as http:
        clock.advance(30)
        checked = await _walk(http, profile)
    assert [(what, found) for what, found in checked if found] == []
    assert sum("streams/" in what and "stats" not in what and what.startswith("GET") for what, _ in checked) >= 8


# -- (c) the console's requests ------------------------------------------------------------------------------

STREAM = NodePath("default", "app", "stream")


@pytest.fixture
async def enterprise() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        yield simulator, SharedClock(manual)


async def test_every_body_the_console_plans_meets_the_request_schema(enterprise, tmp_path: Path) -> None:
    simulator, clock = enterprise
    async with OmeClient(simulator.api_url, TEST_TOKEN) as client:
        controller = make_ops(client, simulator.publisher_url, clock, tmp_path / "audit.jsonl").stream(STREAM)
        frames = [Id3Frame(frameType="txxx", info="adId", data="spot-1"), Id3Frame(frameType="TIT2", data="Song"),
                  Id3Frame(frameType="PRIV", info="com.example", data="x")]
        plans = [controller.plan_cue_out(30), controller.plan_cue_in(), controller.plan_id3(frames, "video"),
                 controller.plan_id3(frames[1:2], "audio"), controller.plan_id3(frames[:1])]
    for plan in plans:
        definition = "SendEvents" if plan.api_action == "sendEvents" else "SendEvent"
        assert problems(json.loads(plan.content), "requests.json", definition) == [], plan.describe()


async def test_every_body_the_console_client_sends_meets_the_request_schema(enterprise) -> None:
    """What left the console, as the simulator received it (each accepted element exactly as sent)."""
    simulator, _ = enterprise
    async with OmeClient(simulator.api_url, TEST_TOKEN) as client:
        await client.cue_out(STREAM, 30_000)
        await client.cue_in(STREAM)
        await client.id3(STREAM, [Id3Frame(frameType="TXXX", info="k", data="v")], "audio")
        await client.id3(STREAM, [Id3Frame(frameType="TIT2", data="title")])
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None
    bodies = [event.body for event in stream.events.events]
    assert [body["eventFormat"] for body in bodies] == ["cue", "cue", "id3v2", "id3v2"]  # type: ignore[index]
    assert [problems(body, "requests.json", "SendEvent") for body in bodies] == [[]] * 4

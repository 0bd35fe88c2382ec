"""The simulator plays an edition at a version: `--edition oss --version 0.19.0|0.20.N|0.21.N`, each answering
as that version of the real server does (the captures of a real 0.19.0 in tests/support/fixtures, reference §2.3)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sim_support import TEST_TOKEN, api_client, running_simulator

from simulator.http.fleet import start_fleet
from simulator.world.clock import ManualClock
from simulator.world.edition import UnknownVersion

PROGRAM = Path(sys.executable).with_name("ome-simulator")
CUE_OUT = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
CUE_IN = {"eventFormat": "cue", "events": [{"cueType": "in"}]}


@pytest.mark.parametrize(("edition", "version", "answered"), [
    ("oss", "0.19.0", "0.19.0"), ("oss", "0.20.3", "0.20.3"), ("oss", "0.21.0", "0.21.0"), ("oss", None, "0.21.0"),
    ("enterprise", None, "0.20.5.0-1"),
])
async def test_version_answers_the_version_played(edition: str, version: str | None, answered: str) -> None:
    async with running_simulator(edition=edition, version=version) as simulator, api_client(simulator) as http:  # type: ignore[arg-type]
        reply = await http.get("/v1/version")
    assert reply.status_code == 200
    assert reply.json()["response"] == {"gitVersion": f"v{answered}-omesim", "version": answered}


@pytest.mark.parametrize("version", ["0.19.0", "0.20.5"])
async def test_open_source_before_0_21_accepts_cue_out_and_in_even_without_a_duration(version: str) -> None:
    async with running_simulator(edition="oss", version=version) as simulator, api_client(simulator) as http:
        stream = next(iter(simulator.world.live_streams()))
        path = f"/v1/vhosts/{stream.vhost}/apps/{stream.app}/streams/{stream.name}:sendEvent"
        replies = [await http.post(path, json=body) for body in
                   (CUE_OUT, CUE_IN, {"eventFormat": "cue", "events": [{"cueType": "out"}]})]
        refused = await http.post(path, json={"eventFormat": "cue", "events": [{"cueType": "x"}]})
    assert [(r.status_code, r.content) for r in replies] == [(200, b'{"message":"OK","statusCode":200}')] * 3
    assert [e.event_set.events[0].cueType for e in stream.events.events] == ["out", "in", "out"]
    assert stream.events.events[2].event_set.events[0].duration == 0  # read as 0, as the real server does
    assert (refused.status_code, refused.json()["message"]) == (400, "[HTTP] cueType is not supported: [x] (400)")


async def test_open_source_0_21_refuses_cue() -> None:
    async with running_simulator(edition="oss", version="0.21.0") as simulator, api_client(simulator) as http:
        stream = next(iter(simulator.world.live_streams()))
        reply = await http.post(f"/v1/vhosts/{stream.vhost}/apps/{stream.app}/streams/{stream.name}:sendEvent",
                                json=CUE_OUT)
    assert (reply.status_code, reply.json()["message"]) == (400, "[HTTP] eventFormat is not supported: [cue] (400)")
    assert stream.events.events == []


async def test_a_fleet_plays_one_version_per_server() -> None:
    fleet = await start_fleet("demo", edges=2, access_tokens=TEST_TOKEN, editions=["enterprise", "oss", "oss"],
                              versions=[None, "0.19.0", "0.21.0"], clock=ManualClock())
    try:
        answered = []
        for server in fleet.servers:
            async with api_client(server) as http:
                answered.append((await http.get("/v1/version")).json()["response"]["version"])
    finally:
        await fleet.stop()
    assert answered == ["0.20.5.0-1", "0.19.0", "0.21.0"]


@pytest.mark.parametrize(("edition", "version"), [("oss", "0.18.0"), ("oss", "1.0"), ("oss", "0.19"),
                                                  ("enterprise", "0.19.0")])
async def test_a_version_not_played_stops_the_start(edition: str, version: str) -> None:
    with pytest.raises(UnknownVersion, match=version.replace(".", r"\.")):
        async with running_simulator(edition=edition, version=version):  # type: ignore[arg-type]
            pass


def test_the_program_refuses_an_unknown_version_with_a_clear_message() -> None:
    done = subprocess.run([str(PROGRAM), "--edition", "oss", "--version", "0.17.3", "--api-port", "0",
                           "--publisher-port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == ("ome-simulator: the oss edition plays versions 0.19.N, 0.20.N, 0.21.N "
                                   "(e.g. 0.19.0, 0.20.5, 0.21.0), not '0.17.3'")


def test_the_program_names_the_version_it_plays() -> None:
    process = subprocess.Popen([str(PROGRAM), "--edition", "oss", "--version", "0.19.0", "--api-port", "0",
                                "--publisher-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        api_line = process.stdout.readline()
        url = api_line.split()[2]
        reply = httpx.get(f"{url}/v1/version", headers={"Authorization": "Basic b21lLWFjY2Vzcy10b2tlbg=="})
    finally:
        process.terminate()
        process.communicate(timeout=20)
    assert first.startswith("ome-simulator (oss 0.19.0, scenario demo,")
    assert reply.json()["response"]["version"] == "0.19.0"


@pytest.mark.parametrize("edition", ["oss", "enterprise"])
async def test_open_source_ignores_what_it_does_not_read_where_enterprise_refuses(edition: str) -> None:
    """Open source reads `urgent` only when it is a bool and a frame's info or data only when they are text
    (reference §2.3); the seed's Enterprise refuses both."""
    bodies = [{"eventFormat": "id3v2", "urgent": "yes", "events": [{"frameType": "TIT2", "data": "t"}]},
              {"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": 1, "data": "v"}]}]
    async with running_simulator(edition=edition, version="0.19.0" if edition == "oss" else None) as simulator, \
            api_client(simulator) as http:  # type: ignore[arg-type]
        stream = next(iter(simulator.world.live_streams()))
        path = f"/v1/vhosts/{stream.vhost}/apps/{stream.app}/streams/{stream.name}:sendEvent"
        replies = [await http.post(path, json=body) for body in bodies]
    if edition == "oss":
        assert [r.status_code for r in replies] == [200, 200]
        sets = [e.event_set for e in stream.events.events]
        assert sets[0].urgent is None and sets[1].events[0].info is None and sets[1].events[0].data == "v"
    else:
        assert [(r.status_code, r.json()["message"]) for r in replies] == [
            (400, "[HTTP] urgent must be boolean (400)"), (400, "[HTTP] info must be string (400)")]
        assert stream.events.events == []


@pytest.mark.parametrize(("edition", "version"), [("enterprise", None), ("oss", "0.19.0"), ("oss", "0.21.0")])
async def test_a_stream_s_info_gives_the_size_its_playlists_publish(edition: str, version: str | None) -> None:
    # The info once said 854x480 (a size by bit rate) while the master playlist said RESOLUTION=640x360.
    more = {"version": version} if version else {}
    async with (running_simulator("demo", edition=edition, **more) as simulator,  # type: ignore[arg-type]
                api_client(simulator) as api, httpx.AsyncClient(base_url=simulator.publisher_url) as publisher):
        info = (await api.get("/v1/vhosts/default/apps/app/streams/news")).json()["response"]
        master = (await publisher.get("/app/news/llhls.m3u8")).text
    video = next(t["video"] for t in info["input"]["tracks"] if t["type"] == "Video")
    sizes = set(re.findall(r"RESOLUTION=(\d+x\d+)", master))
    assert sizes == {f"{video['width']}x{video['height']}"}, (sizes, video["width"], video["height"])

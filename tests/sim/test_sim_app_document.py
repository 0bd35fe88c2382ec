"""The simulator's application documents (`GET /v1/vhosts/{v}/apps/{a}`): the publishers and image encodes its
scenario gives each application, in the captured document's shape, and thumbnails served only where both the
thumbnail publisher and an image encode are configured, as by the real server. (The captured application's
document, byte for byte: tests/sim/test_sim_captures.py.)"""

from __future__ import annotations

import base64

import httpx
import pytest
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.playback import playback_urls
from omeconsole.model.app_config import AppConfig, ImageOutput
from omeconsole.model.paths import NodePath
from simulator.world.scenario import ScenarioError, parse_scenario

ONE_APP = """
[[vhosts]]
name = "default"
  [[vhosts.apps]]
  name = "app"
  {settings}
    [[vhosts.apps.streams]]
    name = "stream"
    permanent = true
"""


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_the_demos_applications_publish_what_their_scenario_says(edition: str) -> None:
    async with running_simulator("demo", edition=edition) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        assert await client.app_config("default", "app") == AppConfig(
            publishers=frozenset({"hls", "llhls", "srt", "thumbnail", "webrtc"}), ts_playlists=("master",),
            image_outputs=(ImageOutput("${OriginStreamName}", ("jpg", "png")),), dynamic=False)
        assert await client.app_config("default", "live") == AppConfig(
            publishers=frozenset({"hls", "llhls"}), ts_playlists=("master",), dynamic=False)


async def test_the_document_is_shaped_as_the_captured_one_with_the_publishers_in_key_order() -> None:
    scenario = parse_scenario(ONE_APP.format(settings='thumbnails = ["webp"]\n  publishers = ["webrtc", "llhls", '
                                                      '"thumbnail", "srt"]'), "one")
    async with running_simulator(scenario, edition="oss") as sim, \
            httpx.AsyncClient(base_url=sim.api_url, timeout=10,
                              headers={"Authorization": _basic(TEST_TOKEN)}) as http:
        document = (await http.get("/v1/vhosts/default/apps/app")).json()["response"]
        assert list(document) == ["dynamic", "name", "outputProfiles", "providers", "publishers", "type"]
        assert list(document["publishers"]) == ["appWorkerCount", "llhls", "srt", "streamWorkerCount", "thumbnail",
                                                "webrtc"]
        encodes = document["outputProfiles"]["outputProfile"][0]["encodes"]
        assert list(encodes) == ["audios", "images", "videos"]
        assert encodes["images"] == [{"codec": "webp", "framerate": "1", "height": "180", "width": "320"}]


async def test_a_thumbnail_needs_the_thumbnail_publisher_as_well_as_the_image_encode() -> None:
    without = parse_scenario(ONE_APP.format(settings='thumbnails = ["jpg"]\n  publishers = ["llhls", "hls"]'), "a")
    with_it = parse_scenario(ONE_APP.format(settings='thumbnails = ["jpg"]'), "b")  # the publisher by default
    for scenario, status in ((without, 404), (with_it, 200)):
        async with running_simulator(scenario) as sim, httpx.AsyncClient(timeout=10) as http:
            reply = await http.get(f"{sim.publisher_url.rstrip('/')}/app/stream/thumb.jpg")
            assert reply.status_code == status, scenario.name


def test_a_publisher_the_server_has_not_is_refused_with_its_key() -> None:
    with pytest.raises(ScenarioError, match=r"vhosts\[0\]\.apps\[0\]\.publishers must be a list of"):
        parse_scenario(ONE_APP.format(settings='publishers = ["rtmp"]'), "bad")


def _basic(token: str) -> str:
    return "Basic " + base64.b64encode(token.encode()).decode()


async def test_an_application_without_hls_lists_no_hls_playlist_and_the_console_offers_no_ts_url() -> None:
    scenario = parse_scenario(ONE_APP.format(settings='publishers = ["llhls"]'), "no-hls")
    async with running_simulator(scenario, edition="oss", version="0.19.0") as sim, \
            OmeClient(sim.api_url, TEST_TOKEN) as client:
        info = await client.stream_info("default", "app", "stream")
        assert [(p.name, p.file_name) for p in info.playlists] == [("llhls_default", "llhls"), ("default", "master")]
        app = await client.app_config("default", "app")
        urls = playback_urls("http://h:3333", NodePath("default", "app", "stream"), info, app)
        assert [(u.label, u.url) for u in urls] == [("LL-HLS llhls", "http://h:3333/app/stream/llhls.m3u8"),
                                                    ("LL-HLS master", "http://h:3333/app/stream/master.m3u8")]

"""The client against the real simulator, both editions: what an operator's scripts rely on."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlsplit

import pytest
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import DETECTION_REQUESTS, OmeClient
from omeconsole.api.errors import AuthError, EventsUnsupportedError, NotFoundError
from omeconsole.api.http import Cap, HttpTransport, Method, Reply, Timeouts
from omeconsole.api.wire import Id3Frame
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_detects_edition_and_lists_the_tree(edition: str) -> None:
    async with running_simulator(edition=edition) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        info = (await client.detect()).server
        assert info.edition == edition
        assert info.stats_api == ("v2" if edition == "enterprise" else "v1")
        assert info.version == ("0.20.5.0-1" if edition == "enterprise" else "0.21.0")
        assert info.events_supported is (edition == "enterprise")
        if edition == "oss":
            assert info.events_reason is not None and "cannot take cue events" in info.events_reason
        vhosts = await client.list_vhosts()
        assert vhosts == list(sim.world.vhosts)
        apps = await client.list_apps(vhosts[0])
        assert apps == list(sim.world.vhosts[vhosts[0]].apps)
        streams = await client.list_streams(vhosts[0], apps[0])
        assert streams == list(sim.world.vhosts[vhosts[0]].apps[apps[0]].streams)


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_stats_at_every_level_match_the_server_counters(edition: str) -> None:
    clock = ManualClock()
    async with running_simulator(edition=edition, clock=clock) as sim, \
            OmeClient(sim.api_url, TEST_TOKEN) as client:
        clock.advance(5)
        stream = next(iter(sim.world.live_streams()))
        path = NodePath(stream.vhost, stream.app, stream.name)
        stats = await client.stats(path)
        counters = sim.world.counters("stream", stream.row)
        assert stats.total_bytes_in == counters["bytes_in"] > 0
        assert stats.total_bytes_out == counters["bytes_out"]
        assert stats.total_connections == sum(stats.connections_out.values())
        if edition == "enterprise":
            assert stats.connections_in is not None and sum(stats.connections_in.values()) == 1
        else:
            assert stats.connections_in is None  # v1 does not report inbound connections: unknown, not 0
        assert stats.created.tzinfo is not None and stats.last_updated >= stats.created
        for parent in (NodePath(stream.vhost), NodePath(stream.vhost, stream.app)):
            parent_stats = await client.stats(parent)
            assert parent_stats.total_bytes_in >= stats.total_bytes_in


class WatchedTransport(HttpTransport):
    """The real transport, noting each request's path and how many were in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        self.paths.append(urlsplit(url).path)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await super().request(method, url, cap=cap, headers=headers, body=body, timeouts=timeouts)
        finally:
            self.in_flight -= 1


@contextlib.asynccontextmanager
async def watched_client(edition: str) -> AsyncIterator[tuple[RunningSimulator, OmeClient, WatchedTransport]]:
    """A simulator of `edition` 5 s into its traffic, and a client whose requests are watched."""
    clock = ManualClock()
    watched = WatchedTransport()
    async with running_simulator(edition=edition, clock=clock) as sim, \
            OmeClient(sim.api_url, TEST_TOKEN, transport=watched) as client:
        clock.advance(5)
        yield sim, client, watched


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_detection_is_one_round_trip_whose_reply_is_the_first_reading(edition: str) -> None:
    async with watched_client(edition) as (sim, client, watched):
        detection = await client.detect()
        assert len(watched.paths) == DETECTION_REQUESTS == watched.most_in_flight  # all asked at once
        assert detection.server.edition == edition and detection.vhosts == list(sim.world.vhosts)
        assert detection.first_reading is not None
        path, reading = detection.first_reading
        assert path == NodePath("default")
        assert reading.total_bytes_in == sim.world.counters("vhost", sim.world.vhosts["default"].row)["bytes_in"] > 0
        assert reading.invalid == frozenset()
        assert (reading.connections_in is None) is (edition == "oss")


@pytest.mark.parametrize("edition", ["enterprise", "oss"])
async def test_the_first_stats_call_detects_with_its_own_node_as_the_probe(edition: str) -> None:
    async with watched_client(edition) as (sim, client, watched):
        stream = next(iter(sim.world.live_streams()))
        stats = await client.stats(NodePath(stream.vhost, stream.app, stream.name))
        assert stats.total_bytes_in == sim.world.counters("stream", stream.row)["bytes_in"]
        assert len(watched.paths) == DETECTION_REQUESTS  # the probe's answer was the reading: no fifth request
        assert client.server_info is not None and client.server_info.stats_api == (
            "v2" if edition == "enterprise" else "v1")


async def test_stream_info_is_typed() -> None:
    async with running_simulator() as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        stream = next(iter(sim.world.live_streams()))
        info = await client.stream_info(stream.vhost, stream.app, stream.name)
        assert info.name == stream.name
        assert info.source_type
        video = [t for t in info.tracks if t.type == "Video"]
        assert video and video[0].codec and video[0].width and video[0].height and video[0].framerate


async def test_not_found_names_the_missing_level() -> None:
    async with running_simulator() as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        vhost = next(iter(sim.world.vhosts))
        app = next(iter(sim.world.vhosts[vhost].apps))
        cases = [(NodePath("nope"), "vhost"), (NodePath(vhost, "nope"), "app"),
                 (NodePath(vhost, app, "nope"), "stream")]
        for path, level in cases:
            with pytest.raises(NotFoundError) as caught:
                await client.stats(path)
            assert caught.value.level == level
            assert caught.value.status == 404
            assert "nope" in caught.value.message


async def test_wrong_token_is_an_auth_error_with_realm_and_no_token_anywhere() -> None:
    secret = "very-secret-token"
    async with running_simulator() as sim:
        client = OmeClient(sim.api_url, secret)
        encoded = base64.b64encode(secret.encode()).decode()
        assert secret not in repr(client) and encoded not in repr(client)
        async with client:
            with pytest.raises(AuthError) as caught:
                await client.list_vhosts()
        error = caught.value
        assert error.status == 401 and error.realm == "OvenMediaEngine"
        for text in (str(error), repr(error), error.message):
            assert secret not in text and encoded not in text


async def test_enterprise_takes_cue_and_id3_events() -> None:
    async with running_simulator() as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        stream = next(iter(sim.world.live_streams()))
        path = NodePath(stream.vhost, stream.app, stream.name)
        before = len(stream.events.events)
        out = await client.cue_out(path, 30_000)
        assert out.ok and out.status == 200 and out.message == "OK"
        assert out.body == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
        back = await client.cue_in(path)
        assert back.body == {"eventFormat": "cue", "events": [{"cueType": "in"}]}
        tag = await client.id3(path, [Id3Frame(frameType="TXXX", info="k", data="v")], "video")
        assert tag.ok
        assert tag.body == [{"eventFormat": "id3v2", "eventType": "video",
                             "events": [{"frameType": "TXXX", "info": "k", "data": "v"}]}]
        assert len(stream.events.events) == before + 3


async def test_open_source_refuses_cue_plainly_and_answers_207_for_mixed_sends() -> None:
    async with running_simulator(edition="oss") as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        await client.detect()
        stream = next(iter(sim.world.live_streams()))
        path = NodePath(stream.vhost, stream.app, stream.name)
        with pytest.raises(EventsUnsupportedError) as caught:
            await client.cue_out(path, 30_000)
        assert "cannot take cue events" in caught.value.message
        assert caught.value.body == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
        mixed = await client.send_events(path, [
            {"eventFormat": "id3v2", "events": [{"frameType": "TIT2", "data": "x"}]},
            {"eventFormat": "cue", "events": [{"cueType": "in"}]},
        ])
        assert mixed.status == 207 and not mixed.ok
        assert [item.status for item in mixed.items] == [200, 400]
        assert "eventFormat is not supported: [cue]" in mixed.items[1].message
        one = await client.id3(path, [Id3Frame(frameType="TIT2", data="title")])
        assert one.ok and [item.status for item in one.items] == [200]

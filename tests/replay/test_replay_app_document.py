"""The captured application document of a real 0.19.0 (api/20) through the console's own reader: the client over
HTTP against the replay, then the polling engine, which reads it once while the stream is selected (not with every
poll) and gives the playback URLs the captured server served."""

from __future__ import annotations

import random

from ome_replay import OmeReplay
from replay_support import replay_clock

from omeconsole.api.client import OmeClient
from omeconsole.core.playback import PORT_NOT_IN_API, playback_urls
from omeconsole.core.polling.engine import PollingEngine
from omeconsole.core.polling.settings import PollSettings
from omeconsole.model.app_config import AppConfig
from omeconsole.model.paths import NodePath

APP = NodePath("default", "app")
STREAM = NodePath("default", "app", "stream")
DOCUMENT = "/v1/vhosts/default/apps/app"


async def test_the_captured_document_read_by_the_client_says_ll_hls_and_hls_with_ts_packaging() -> None:
    async with OmeReplay(replay_clock()) as replay, OmeClient(replay.api_url, replay.token) as client:
        assert await client.app_config("default", "app") == AppConfig(
            publishers=frozenset({"llhls", "hls"}), ts_playlists=("master",), image_outputs=(),
            llhls_default_playlist=True, hls_default_playlist=True, dynamic=False)


async def test_the_engine_reads_it_once_for_the_selected_stream_and_the_urls_are_the_captured_servers() -> None:
    clock = replay_clock()
    async with OmeReplay(clock) as replay, OmeClient(replay.api_url, replay.token) as client:
        engine = PollingEngine(client, clock, PollSettings(app_config_interval=300.0), rng=random.Random(5))
        engine.select(STREAM)
        for _ in range(30):  # 30 polls of the stream, 3 of its info
            await engine.poll_cycle()
            clock.advance(1.0)
        asked = [seen for seen in replay.requests if seen.target == DOCUMENT]
        assert len(asked) == 1
        document = engine.app_config(APP)
        assert document is not None and document.error is None and document.config is not None
        urls = playback_urls(replay.publisher_url, STREAM, engine.node(STREAM).info, document.config)
        base = replay.publisher_url.rstrip("/")
        assert [(u.url, u.assumed) for u in urls] == [
            (f"{base}/app/stream/llhls.m3u8", None),
            (f"{base}/app/stream/master.m3u8", None),
            (f"{base}/app/stream/ts:master.m3u8", PORT_NOT_IN_API),
            (f"{base}/app/stream/ts:playlist.m3u8", PORT_NOT_IN_API),
        ]

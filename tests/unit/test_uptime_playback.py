"""A stream's uptime on the server's clock (`core/uptime`) and its playback URLs (`core/playback`) from the
real server's stream info (the 0.19.0 capture) and from hostile ones."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from omeconsole.api.convert import stream_info_from_wire
from omeconsole.core import units
from omeconsole.core.playback import encoded_path, playback_urls
from omeconsole.core.uptime import uptime_s
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

NEWS = NodePath("default", "app", "news")
CREATED = datetime(2026, 11, 29, 0, 3, 28, 518000, tzinfo=UTC)
CAPTURE = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0" / "api" / "22_stream.json"


def reading(at: float, stamp: datetime | None, created: datetime | None = CREATED) -> Sample:
    stats = NodeStats(created=created, last_updated=stamp, total_bytes_in=1, total_bytes_out=1, connections_in={},
                      connections_out={}, total_connections=0, max_total_connections=0,
                      max_total_connection_time=None, avg_throughput_in_bps=0, avg_throughput_out_bps=0,
                      max_throughput_in_bps=0, max_throughput_out_bps=0, last_throughput_in_bytes=0,
                      last_throughput_out_bytes=0)
    return Sample(at=at, rate_in_bps=None, rate_out_bps=None, viewers=0, stats=stats)


def live(*samples: Sample, state: NodeState = NodeState.LIVE) -> NodeView:
    return NodeView(NEWS, state, latest=samples[-1], history=samples)


def test_uptime_is_the_servers_span_plus_the_console_seconds_since_the_reading() -> None:
    # The console's own wall clock plays no part: the span is createdTime to the server's own stamp.
    view = live(reading(100.0, CREATED + timedelta(seconds=90)))
    assert uptime_s(view, 100.0) == 90.0
    assert uptime_s(view, 102.5) == 92.5
    assert units.uptime(uptime_s(view, 102.5)) == "1 min 32 s"


def test_stamps_standing_still_never_take_the_figure_back() -> None:
    stamp = CREATED + timedelta(seconds=60)
    view = live(reading(10.0, stamp), reading(11.0, stamp), reading(12.0, stamp))
    assert uptime_s(view, 12.0) == 62.0  # counted from the first reading with that stamp, not the newest


def test_a_created_time_after_the_servers_clock_or_missing_or_an_ended_stream_has_no_figure() -> None:
    assert uptime_s(live(reading(5.0, CREATED - timedelta(seconds=1))), 5.0) is None
    assert uptime_s(live(reading(5.0, CREATED, created=None)), 5.0) is None
    assert uptime_s(live(reading(5.0, None)), 5.0) is None
    assert uptime_s(live(reading(5.0, CREATED), state=NodeState.ENDED), 5.0) is None
    assert units.uptime(None) == "—"


def test_a_new_created_time_starts_again() -> None:
    restarted = CREATED + timedelta(minutes=5)
    view = live(reading(10.0, restarted - timedelta(seconds=1)),
                reading(11.0, restarted + timedelta(seconds=2), created=restarted))
    assert uptime_s(view, 11.0) == 2.0


def test_long_uptimes_read_in_hours_and_days() -> None:
    assert units.uptime(3 * 3600 + 4 * 60 + 59) == "3 h 04 min"
    assert units.uptime(2 * 86_400 + 3 * 3600) == "2 d 03 h"


def test_the_captured_servers_playlists_give_the_urls_it_served() -> None:
    """The 0.19.0 server listed three playlists; the capture fetched llhls.m3u8, master.m3u8, ts:master.m3u8 and
    ts:playlist.m3u8 from it (captures README, playlists 23..29)."""
    body = json.loads(json.loads(CAPTURE.read_text())["response"]["body"])["response"]
    urls = playback_urls("http://127.0.0.1:3333", NodePath("default", "app", "stream"),
                         stream_info_from_wire(body, "capture"))
    assert [(u.url, u.assumed) for u in urls] == [
        ("http://127.0.0.1:3333/app/stream/llhls.m3u8", False),
        ("http://127.0.0.1:3333/app/stream/master.m3u8", False),
        ("http://127.0.0.1:3333/app/stream/ts:master.m3u8", False),
        ("http://127.0.0.1:3333/app/stream/ts:playlist.m3u8", False),
        ("http://127.0.0.1:3333/app/stream/thumb.jpg", True),
        ("ws://127.0.0.1:3333/app/stream", True),
    ]


def wire(*playlists: dict[str, object], output: str = "news") -> dict[str, object]:
    return {"name": "news", "input": {"createdTime": "2026-11-29T00:03:28.518+00:00", "tracks": []},
            "outputs": [{"name": output, "tracks": [], "playlists": list(playlists)}]}


def test_an_app_without_ll_hls_gets_only_the_hls_url_and_what_is_assumed() -> None:
    info = stream_info_from_wire(wire({"fileName": "playlist", "name": "hls_default",
                                       "options": {"enableTsPackaging": True}}), "test")
    urls = playback_urls("https://cdn.example.net:3334", NEWS, info)
    assert [(u.label, u.url, u.assumed) for u in urls] == [
        ("HLS (TS) playlist", "https://cdn.example.net:3334/app/news/ts:playlist.m3u8", False),
        ("thumbnail", "https://cdn.example.net:3334/app/news/thumb.jpg", True),
        ("WebRTC", "wss://cdn.example.net:3334/app/news", True),
    ]


def test_ts_packaging_without_the_hls_publisher_in_sight_is_assumed() -> None:
    info = stream_info_from_wire(wire({"fileName": "llhls", "name": "llhls",
                                       "options": {"enableTsPackaging": True}}), "test")
    urls = {u.url: u.assumed for u in playback_urls("http://h:3333", NEWS, info)}
    assert urls["http://h:3333/app/news/llhls.m3u8"] is False
    assert urls["http://h:3333/app/news/ts:llhls.m3u8"] is True


def test_hostile_names_are_encoded_and_a_file_name_that_is_not_one_is_left_out() -> None:
    output = "a b\x1b[2J/../x"
    info = stream_info_from_wire(wire({"fileName": "../../etc/passwd", "name": "x"},
                                      {"fileName": "bad\x07name", "name": "y"},
                                      {"fileName": "llhls", "name": "llhls_default"}, output=output), "test")
    urls = [u.url for u in playback_urls("http://h:3333", NEWS, info)]
    assert urls[0] == "http://h:3333/app/a%20b%1B%5B2J%2F..%2Fx/llhls.m3u8"
    assert not any("passwd" in url or "bad" in url for url in urls)
    assert all(url.isascii() and url.isprintable() for url in urls)
    path = NodePath("default", "app", "n\x1bé/")
    assert encoded_path(path) == "default/app/n%1B%C3%A9%2F"

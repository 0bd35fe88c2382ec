"""A stream's playback URLs (`core/playback`) from what the real 0.19.0 server said (its stream info, api/22, and
its application's document, api/20), from documents of applications running more publishers, without any
document, and from hostile documents (`api/app_config`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from omeconsole.api.app_config import MAX_PROFILES, app_config_from_wire
from omeconsole.api.convert import stream_info_from_wire
from omeconsole.api.errors import ProtocolError
from omeconsole.core.playback import NOT_CONFIRMED, PORT_NOT_IN_API, SRT_PORT_NOT_IN_API, encoded_path, playback_urls
from omeconsole.live.playback import NOT_LISTED, NOT_READ_YET, unconfirmed
from omeconsole.model.app_config import AppConfig, AppConfigView
from omeconsole.model.paths import NodePath

CAPTURES = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0" / "api"
STREAM = NodePath("default", "app", "stream")
NEWS = NodePath("default", "app", "news")
PUBLISHER = "http://127.0.0.1:3333"


def captured(name: str) -> Any:
    return json.loads(json.loads((CAPTURES / name).read_text())["response"]["body"])["response"]


def captured_app() -> dict[str, Any]:
    document: dict[str, Any] = captured("20_app.json")
    return document


def config(document: object) -> AppConfig:
    read = app_config_from_wire(document, "test")
    assert read is not None
    return read


def urls_of(document: object | None, info: Any = None, path: NodePath = STREAM,
            publisher: str = PUBLISHER) -> list[tuple[str, str, str | None]]:
    stream_info = stream_info_from_wire(info if info is not None else captured("22_stream.json"), "test")
    app = config(document) if document is not None else None
    return [(u.label, u.url, u.assumed) for u in playback_urls(publisher, path, stream_info, app)]


def test_the_captured_application_gives_exactly_the_urls_the_captured_server_served() -> None:
    """The capture fetched llhls.m3u8, master.m3u8, ts:master.m3u8 and ts:playlist.m3u8 (playlists 23..29); its
    application runs LL-HLS and HLS only: no thumbnail, no WebRTC, no SRT. The HLS publisher's port is not in the
    API (both were on 3333 there, as the publisher URL's): its URLs say so."""
    app = config(captured_app())
    assert app.publishers == {"llhls", "hls"} and app.ts_playlists == ("master",) and app.image_outputs == ()
    assert urls_of(captured_app()) == [
        ("LL-HLS llhls", f"{PUBLISHER}/app/stream/llhls.m3u8", None),
        ("LL-HLS master", f"{PUBLISHER}/app/stream/master.m3u8", None),
        ("HLS (TS) master", f"{PUBLISHER}/app/stream/ts:master.m3u8", PORT_NOT_IN_API),
        ("HLS (TS) playlist", f"{PUBLISHER}/app/stream/ts:playlist.m3u8", PORT_NOT_IN_API),
    ]


def test_without_the_document_the_urls_are_the_guesses_of_before_marked_with_why() -> None:
    assert urls_of(None) == [
        ("LL-HLS llhls", f"{PUBLISHER}/app/stream/llhls.m3u8", None),
        ("LL-HLS master", f"{PUBLISHER}/app/stream/master.m3u8", None),
        ("HLS (TS) master", f"{PUBLISHER}/app/stream/ts:master.m3u8", PORT_NOT_IN_API),
        ("HLS (TS) playlist", f"{PUBLISHER}/app/stream/ts:playlist.m3u8", PORT_NOT_IN_API),
        ("thumbnail", f"{PUBLISHER}/app/stream/thumb.jpg", NOT_CONFIRMED),
        ("WebRTC", "ws://127.0.0.1:3333/app/stream", NOT_CONFIRMED),
    ]


def more_publishers(images: list[dict[str, str]], template: str = "${OriginStreamName}_preview",
                    publishers: tuple[str, ...] = ("thumbnail", "webrtc", "srt")) -> dict[str, Any]:
    """The captured document with more publishers and a second output profile with image encodes (as
    OvenMediaEngine's thumbnail documentation configures them)."""
    document = captured_app()
    document["publishers"] |= {name: {} for name in publishers}
    document["outputProfiles"]["outputProfile"].append(
        {"name": "thumbs", "outputStreamName": template, "encodes": {"images": images}})
    return document


def with_outputs(*names: str) -> dict[str, Any]:
    info: dict[str, Any] = captured("22_stream.json")
    info["outputs"] += [{"name": name, "tracks": []} for name in names]
    return info


def test_thumbnail_webrtc_and_srt_follow_the_publishers_and_image_encodes_the_document_lists() -> None:
    images = [{"codec": "jpeg", "framerate": "1"}, {"codec": "webp"}, {"codec": "PNG"}, {"codec": "gif"}]
    urls = urls_of(more_publishers(images), with_outputs("stream_preview"), publisher="https://cdn.example.net:3334")
    assert urls[4:] == [
        ("thumbnail jpg", "https://cdn.example.net:3334/app/stream_preview/thumb.jpg", PORT_NOT_IN_API),
        ("thumbnail webp", "https://cdn.example.net:3334/app/stream_preview/thumb.webp", PORT_NOT_IN_API),
        ("thumbnail png", "https://cdn.example.net:3334/app/stream_preview/thumb.png", PORT_NOT_IN_API),
        ("WebRTC", "wss://cdn.example.net:3334/app/stream", PORT_NOT_IN_API),
        # OvenMediaEngine's SRT playback: streamid = vhost/app/stream/playlist; `master` is its own playlist and
        # the configured TS playlist's name here too (listed once)
        ("SRT master", "srt://cdn.example.net:9998?streamid=default/app/stream/master", SRT_PORT_NOT_IN_API),
    ]


def test_a_thumbnail_needs_both_the_publisher_and_an_image_encode_and_an_output_the_stream_has() -> None:
    def thumbnails(document: dict[str, Any], info: Any = None) -> list[str]:
        return [url for label, url, _ in urls_of(document, info) if label.startswith("thumbnail")]

    jpeg = [{"codec": "jpeg"}]
    assert thumbnails(more_publishers(jpeg, publishers=("webrtc",))) == []  # an image encode, no publisher
    assert thumbnails(more_publishers([], publishers=("thumbnail",))) == []  # a publisher, no image encode
    assert thumbnails(more_publishers(jpeg)) == []  # the stream info lists no `stream_preview` output
    assert thumbnails(more_publishers(jpeg, template="${OriginStreamName}"), with_outputs()) == [
        f"{PUBLISHER}/app/stream/thumb.jpg"]
    assert thumbnails(more_publishers(jpeg, template="${StreamName}_x"), with_outputs("stream_x")) == []  # unknown


def test_ts_playlists_need_the_hls_publisher_and_ll_hls_ones_the_ll_hls_publisher() -> None:
    document = captured_app()
    del document["publishers"]["hls"]
    assert [label for label, _, _ in urls_of(document)] == ["LL-HLS llhls", "LL-HLS master"]
    document = captured_app()
    del document["publishers"]["llhls"]
    assert [label for label, _, _ in urls_of(document)] == ["HLS (TS) master", "HLS (TS) playlist"]


def test_before_the_stream_info_the_default_playlists_the_document_says_are_made() -> None:
    info = {"name": "stream", "input": {"tracks": []}}
    assert urls_of(captured_app(), info) == [
        ("LL-HLS llhls", f"{PUBLISHER}/app/stream/llhls.m3u8", None),
        ("HLS (TS) playlist", f"{PUBLISHER}/app/stream/ts:playlist.m3u8", PORT_NOT_IN_API)]
    document = captured_app()
    document["publishers"]["llhls"]["createDefaultPlaylist"] = "false"
    assert [label for label, _, _ in urls_of(document, info)] == ["HLS (TS) playlist"]


def test_hostile_documents_are_bounded_and_never_reach_a_url_raw() -> None:
    with pytest.raises(ProtocolError):
        app_config_from_wire(["not", "an", "object"], "test")
    assert app_config_from_wire({"name": "app"}, "test") is None  # publishers not listed: unknown, not none
    assert app_config_from_wire({"publishers": "webrtc"}, "test") is None
    odd = config({"publishers": {"webrtc": "yes", "x" * 300: {}, "appWorkerCount": "1", "SRT": {}},
                  "outputProfiles": {"outputProfile": [7, {"outputStreamName": None, "encodes": {"images": [{}]}}]}})
    assert odd.publishers == {"srt"} and odd.image_outputs == ()
    many = config({"publishers": {"thumbnail": {}}, "outputProfiles": {"outputProfile": [
        {"outputStreamName": f"${{OriginStreamName}}_{i}", "encodes": {"images": [{"codec": "png"}] * 1000},
         "playlists": [{"fileName": f"p{j}", "options": {"enableTsPackaging": "true"}} for j in range(1000)]}
        for i in range(1000)]}})
    assert len(many.image_outputs) == MAX_PROFILES and all(o.formats == ("png",) for o in many.image_outputs)
    assert len(many.ts_playlists) == 64  # every profile names the same 64 first playlists: each once
    hostile = more_publishers([{"codec": "jpeg"}], template="${OriginStreamName}\x1b]52;c;SGFjaw==\x07/../x")
    hostile["outputProfiles"]["outputProfile"][0]["playlists"][0]["fileName"] = "../../etc/passwd"
    urls = [url for _, url, _ in urls_of(hostile, with_outputs("stream\x1b]52;c;SGFjaw==\x07/../x"))]
    assert f"{PUBLISHER}/app/stream%1B%5D52%3Bc%3BSGFjaw%3D%3D%07%2F..%2Fx/thumb.jpg" in urls
    assert not any("passwd" in url for url in urls)
    assert all(url.isascii() and url.isprintable() for url in urls)


def test_hostile_stream_info_names_are_encoded_and_a_file_name_that_is_not_one_is_left_out() -> None:
    output = "a b\x1b[2J/../x"
    info = {"name": "news", "input": {"tracks": []}, "outputs": [{"name": output, "tracks": [], "playlists": [
        {"fileName": "../../etc/passwd", "name": "x"}, {"fileName": "bad\x07name", "name": "y"},
        {"fileName": "llhls", "name": "llhls_default"}]}]}
    document = more_publishers([], publishers=("srt", "webrtc"))
    for app in (None, document):
        urls = [url for _, url, _ in urls_of(app, info, path=NodePath("default", "app", "n\x1b/é"))]
        assert urls[0] == f"{PUBLISHER}/app/a%20b%1B%5B2J%2F..%2Fx/llhls.m3u8"
        assert not any("passwd" in url or "bad" in url for url in urls)
        assert all(url.isascii() and url.isprintable() for url in urls)
    assert "srt://127.0.0.1:9998?streamid=default/app/n%1B%2F%C3%A9/master" in urls
    assert encoded_path(NodePath("default", "app", "n\x1bé/")) == "default/app/n%1B%C3%A9%2F"


def test_the_panel_says_why_when_the_urls_do_not_follow_the_applications_configuration() -> None:
    assert unconfirmed(None) == NOT_READ_YET  # never asked for
    assert unconfirmed(AppConfigView()) == NOT_READ_YET  # asked for, no answer yet
    failed = unconfirmed(AppConfigView(error="[HTTP] Internal Server Error (500)"))
    assert failed is not None and "could not be read ([HTTP] Internal Server Error (500))" in failed
    assert unconfirmed(AppConfigView(config=None, read_at=3.0)) == NOT_LISTED
    kept = AppConfigView(config=config(captured_app()), error="timed out", read_at=3.0)
    assert unconfirmed(kept) is None  # the last document read still says which publishers run

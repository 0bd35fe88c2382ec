"""What a JavaScript player makes of the publisher's output: video.js's `m3u8-parser` reads the LL-HLS
chunklists and the HLSv3 playlists (no warning, cue tags and date ranges seen), and every duration a
playlist states is the media's own: PyAV on each fMP4 part and segment of both tracks, mux.js's
transmuxer on each MPEG-TS segment. Skipped, with the reason, where Node.js or npm is missing.

The stream runs 40 s on a manual clock with an ad break (out at 13.2 s, spliced at 15 s, back at 27 s),
so the windows hold complete segments, parts, a splice cut off the 6 s grid and the markers.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from typing import Any

import av
import httpx
import pytest
from js_support import JsParsers, js_parsers
from sim_support import api_client, running_simulator

from simulator.world.clock import ManualClock

__all__ = ["js_parsers"]  # the session fixture, used by name

BASE = "/app/stream/"
AAC_FRAME_S = 1024 / 48_000
STATED_DECIMALS_LLHLS = 5e-7 + 1e-9  # EXT-X-PART / EXTINF are written with 6 decimals
STATED_DECIMALS_TS = 5e-4 + 1e-9  # HLSv3 EXTINF with 3


@dataclass
class Published:
    playlists: dict[str, str]
    """name -> text: llhls.m3u8, both chunklists, ts:playlist.m3u8 and its media playlist."""
    files: dict[str, bytes]
    """Every init, part and complete segment the chunklists list, and every TS segment of the medialist."""
    video: str
    audio: str
    medialist: str


def _listed(text: str) -> list[str]:
    """Every URI a playlist names (media lines and quoted URI attributes), in order."""
    names = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.append(line)
        elif 'URI="' in line and not line.startswith(("#EXT-X-PRELOAD-HINT", "#EXT-X-RENDITION-REPORT")):
            names.append(line.split('URI="', 1)[1].split('"', 1)[0])
    return names


async def _publish() -> Published:
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, api_client(sim) as api, httpx.AsyncClient(
            base_url=sim.publisher_url, timeout=10) as pub:
        clock.advance(13.2)
        response = await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent",
                                  json={"eventFormat": "cue", "events": [{"cueType": "out", "duration": 12_000}]})
        assert response.status_code == 200, response.text
        clock.advance(40.3 - 13.2)
        playlists = {"llhls.m3u8": (await pub.get(BASE + "llhls.m3u8")).text}
        video, audio = (next(n for n in _listed(playlists["llhls.m3u8"]) if f"_{track}_" in n)
                        for track in ("video", "audio"))
        playlists["ts:playlist.m3u8"] = (await pub.get(BASE + "ts:playlist.m3u8")).text
        medialist = _listed(playlists["ts:playlist.m3u8"])[0]
        files: dict[str, bytes] = {}
        for name in (video, audio, medialist):
            playlists[name] = (await pub.get(BASE + name)).text
            for listed in _listed(playlists[name]):
                response = await pub.get(BASE + listed)
                assert response.status_code == 200, listed
                files[listed] = response.content
        return Published(playlists, files, video, audio, medialist)


@pytest.fixture(scope="module")
def published() -> Published:
    return asyncio.run(_publish())


@pytest.fixture(scope="module")
def parsed(published: Published, js_parsers: JsParsers) -> dict[str, Any]:
    ts = {name: data for name, data in published.files.items() if name.endswith(".ts")}
    return js_parsers(published.playlists, ts)


def _pyav_seconds(init: bytes, media: bytes) -> float:
    """Length of the media in one fMP4 fragment run, from PyAV's packets: last end minus first start."""
    with av.open(io.BytesIO(init + media), format="mp4") as container:
        stream = container.streams[0]
        packets = [p for p in container.demux(stream) if p.size and p.pts is not None and p.duration]
        assert packets and stream.time_base is not None
        start = min(p.pts for p in packets if p.pts is not None)
        end = max(p.pts + p.duration for p in packets if p.pts is not None and p.duration is not None)
        return float((end - start) * stream.time_base)


def _segments(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Complete segments, then the segment in progress (m3u8-parser's preloadSegment) if it has parts."""
    segments: list[dict[str, Any]] = list(manifest["segments"])
    if manifest.get("preloadSegment", {}).get("parts"):
        segments.append(manifest["preloadSegment"])
    return segments


def test_the_javascript_parser_reads_every_playlist_without_a_warning(parsed: dict[str, Any],
                                                                      published: Published) -> None:
    for name, result in parsed["playlists"].items():
        assert result["warnings"] == [], name
    for name in (published.video, published.audio):
        manifest = parsed["playlists"][name]["manifest"]
        assert manifest["partTargetDuration"] == 0.5 and manifest["serverControl"]["canBlockReload"] is True
        assert manifest["preloadSegment"]["preloadHints"][0]["type"] == "PART"
        newest = manifest["mediaSequence"] + len(manifest["segments"])  # the msn of the segment in progress
        assert manifest["renditionReports"][0]["lastMsn"] in (newest - 1, newest)
    assert parsed["playlists"][published.medialist]["manifest"]["segments"]


@pytest.mark.parametrize("track", ["video", "audio"])
def test_every_part_and_segment_states_the_duration_of_its_media(parsed: dict[str, Any], published: Published,
                                                                 track: str) -> None:
    name = published.video if track == "video" else published.audio
    manifest = parsed["playlists"][name]["manifest"]
    init = published.files[manifest["segments"][0]["map"]["uri"]]
    target = manifest["partTargetDuration"]
    checked_parts = 0
    for segment in _segments(manifest):
        parts = segment.get("parts", [])
        for part in parts:
            assert part["duration"] <= target, part
            real = _pyav_seconds(init, published.files[part["uri"]])
            assert abs(part["duration"] - real) <= STATED_DECIMALS_LLHLS, (part, real)
            checked_parts += 1
        if parts:
            assert parts[0].get("independent") is True, segment
        if track == "audio":
            assert all(part.get("independent") is True for part in parts), segment
        if "duration" in segment and "uri" in segment:
            real = _pyav_seconds(init, published.files[segment["uri"]])
            assert abs(segment["duration"] - real) <= STATED_DECIMALS_LLHLS, (segment["uri"], real)
            if parts:
                assert abs(sum(p["duration"] for p in parts) - segment["duration"]) < 1e-5
    assert checked_parts >= 25  # three segments' worth, from both sides of a splice
    if track == "audio":  # whole AAC frames that fit PART-TARGET: 23 of them
        durations = {round(p["duration"], 6) for s in _segments(manifest) for p in s.get("parts", [])}
        assert round(23 * AAC_FRAME_S, 6) in durations and max(durations) == round(23 * AAC_FRAME_S, 6)


def test_every_ts_segment_states_the_duration_of_its_video_and_carries_the_same_span_of_audio(
        parsed: dict[str, Any], published: Published) -> None:
    manifest = parsed["playlists"][published.medialist]["manifest"]
    assert len(manifest["segments"]) >= 6
    for segment in manifest["segments"]:
        timing = parsed["ts"][segment["uri"]]
        video_start, video_end = timing["video"]["start"] / 90_000, timing["video"]["end"] / 90_000
        assert abs(segment["duration"] - (video_end - video_start)) <= STATED_DECIMALS_TS, (segment, timing)
        audio_start, audio_end = timing["audio"]["start"] / 90_000, timing["audio"]["end"] / 90_000
        assert 0 <= audio_start - video_start < AAC_FRAME_S and 0 <= audio_end - video_end < AAC_FRAME_S


def test_cue_tags_and_date_ranges_are_seen_by_the_javascript_parser(parsed: dict[str, Any],
                                                                    published: Published) -> None:
    spliced: dict[str, list[tuple[str, str]]] = {}
    for name in (published.video, published.audio, published.medialist):
        manifest = parsed["playlists"][name]["manifest"]
        (splice,) = manifest["dateRanges"]  # m3u8-parser merges the out and the in tag of one ID
        assert splice["id"] == "splice-1" and splice["startDate"] == "2026-01-01T00:00:15.000Z"
        assert splice["scte35Out"].startswith("0xFC") and splice["scte35In"].startswith("0xFC")
        assert splice["plannedDuration"] == 12.0 and splice["duration"] == 12.0
        spliced[name] = [(s["dateTimeString"][:19], kind) for s in manifest["segments"]
                         for kind in ("cueOut", "cueOutCont", "cueIn") if kind in s]
        assert spliced[name][0][1] == "cueOut" and spliced[name][-1][1] == "cueIn"
    # the same segments carry the markers in every playlist (the audio starts within one AAC frame)
    assert spliced[published.video] == spliced[published.audio] == spliced[published.medialist]

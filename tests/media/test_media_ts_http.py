"""HLSv3 end to end over HTTP with a manual clock: an ID3 event and an ad break sent through the
management API show up in the `ts:playlist.m3u8` stream exactly where a TS player looks for them.
Checked with m3u8, threefive, PyAV and mutagen."""

from __future__ import annotations

import io

import httpx
import m3u8
import threefive
from media_ts_support import demux_with_pyav
from mutagen.id3 import ID3
from sim_support import api_client, running_simulator

from simulator.media.mpegts import TS_CONTENT_TYPE
from simulator.world.clock import ManualClock

BASE = "/app/stream/"
SEND_EVENT = "/v1/vhosts/default/apps/app/streams/stream:sendEvent"
ID3_EVENT = {"eventFormat": "id3v2", "eventType": "event",
             "events": [{"frameType": "TXXX", "info": "adId", "data": "XYZ-123"},
                        {"frameType": "TIT2", "data": "Hello"}]}
CUE_OUT = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 15_000}]}


async def test_ts_stream_carries_the_break_in_the_playlist_and_the_id3_in_the_media(clock: ManualClock) -> None:
    async with running_simulator(clock=clock) as sim, api_client(sim) as api, \
            httpx.AsyncClient(base_url=sim.publisher_url, timeout=10) as pub:
        stream = sim.world.find_stream("default", "app", "stream")
        assert stream is not None
        clock.advance(2.0)
        id3_ms = clock.now_ms()
        assert (await api.post(SEND_EVENT, json=ID3_EVENT)).status_code == 200
        clock.advance(1.2)
        assert (await api.post(SEND_EVENT, json=CUE_OUT)).status_code == 200
        clock.advance(30.0 - 3.2)

        master = await pub.get(BASE + "ts:playlist.m3u8")
        assert master.status_code == 200 and master.headers["content-type"].startswith(
            "application/vnd.apple.mpegurl")
        alias = await pub.get(BASE + "playlist.m3u8", params={"format": "ts"})
        assert alias.status_code == 200 and alias.text == master.text
        variants = m3u8.loads(master.text).playlists
        assert len(variants) == 1 and variants[0].stream_info.codecs.startswith("avc1.")

        media = await pub.get(BASE + variants[0].uri)
        playlist = m3u8.loads(media.text)
        assert playlist.version == 3 and playlist.target_duration == 6
        assert all(s.program_date_time is not None for s in playlist.segments)
        starts = [s.cue_out_start for s in playlist.segments]
        assert starts.count(True) == 1 and [s.cue_in for s in playlist.segments].count(True) == 1
        ranges = [d for s in playlist.segments for d in s.dateranges]
        assert len(ranges) == 2 and len({d.id for d in ranges}) == 1
        out_range = next(d for d in ranges if d.scte35_out)
        in_range = next(d for d in ranges if d.scte35_in)
        assert out_range.planned_duration == 15.0 and in_range.duration is not None
        cue = threefive.Cue(out_range.scte35_out)
        cue.decode()
        assert cue.command.out_of_network_indicator is True and cue.command.break_duration == 15.0

        data = b""
        for segment in playlist.segments:
            response = await pub.get(BASE + segment.uri)
            assert response.status_code == 200 and response.headers["content-type"] == TS_CONTENT_TYPE
            data += response.content

    video_pts, tags, decoded = demux_with_pyav(data)
    assert video_pts == list(range(video_pts[0], video_pts[0] + 3000 * len(video_pts), 3000))
    assert decoded == len(video_pts)
    (tag_packet,) = tags
    assert tag_packet.pts == (id3_ms - stream.created_ms) * 90
    tag = ID3(io.BytesIO(bytes(tag_packet)))
    assert str(tag["TXXX:adId"]) == "XYZ-123" and str(tag["TIT2"]) == "Hello"

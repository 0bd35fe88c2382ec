"""ID3 end to end: an id3v2 event sent to the real API lands, at the stream time it was accepted, in
the emsg of the LL-HLS part covering that time (both tracks for eventType event) and in an ID3 PES of
the HLS segment (found by PyAV with its PTS); mutagen reads the same frames from both. Nothing is
added to any playlist."""

from __future__ import annotations

import io
import struct

import av
import httpx
from conftest import api_client, running_simulator
from mutagen.id3 import ID3

from simulator.world.clock import ManualClock

EVENT = {"eventFormat": "id3v2", "eventType": "event", "events": [
    {"frameType": "TXXX", "info": "adId", "data": "XYZ-123"},
    {"frameType": "TIT2", "data": "Breaking"},
    {"frameType": "PRIV", "info": "com.example.owner", "data": "opaque"},
]}


def _emsg_tags(data: bytes) -> list[tuple[int, int, bytes]]:
    """(timescale, presentation_time, message) of every top-level emsg box."""
    found = []
    position = 0
    while position < len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"emsg":
            body = data[position + 12:position + size]
            timescale, presentation = struct.unpack(">IQ", body[:12])
            message = body[20:].split(b"\x00", 2)[2]
            found.append((timescale, presentation, message))
        position += size
    return found


def _frames(tag: bytes) -> dict[str, str]:
    parsed = ID3(io.BytesIO(tag))  # type: ignore[no-untyped-call]
    (private,) = parsed.getall("PRIV")
    assert parsed.version == (2, 4, 0) and private.owner == "com.example.owner"
    return {"adId": str(parsed["TXXX:adId"]), "TIT2": str(parsed["TIT2"]), "PRIV": private.data.decode()}


async def test_id3_event_reaches_fmp4_emsg_and_ts_pes() -> None:
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, api_client(sim) as api, httpx.AsyncClient(
            base_url=sim.publisher_url) as pub:
        clock.advance(7.25)
        response = await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", json=EVENT)
        assert response.status_code == 200
        clock.advance(13 - 7.25)
        master = (await pub.get("/app/stream/llhls.m3u8")).text
        key = master.splitlines()[-1].split("_")[3]
        expected = {"adId": "XYZ-123", "TIT2": "Breaking", "PRIV": "opaque"}
        for track, scale in (("video", 90_000), ("audio", 48_000)):
            carrying = []
            for index in range(12):
                part = (await pub.get(f"/app/stream/part_{0 if track == 'video' else 1}_1_{index}_{track}_{key}"
                                      "_llhls.m4s")).content
                carrying += [(index, tag) for tag in _emsg_tags(part)]
            assert [(index, t[0], t[1]) for index, t in carrying] == [(2, scale, 7_250 * scale // 1000)]
            assert _frames(carrying[0][1][2]) == expected
        ts = (await pub.get(f"/app/stream/seg_{key}_1_hls.ts")).content
        with av.open(io.BytesIO(ts), format="mpegts") as container:
            data = container.streams.data[0]
            packets = [p for p in container.demux(data) if p.size]
        assert [p.pts for p in packets] == [7_250 * 90]
        assert _frames(bytes(packets[0])) == expected
        for name in ("chunklist_0_video", "chunklist_1_audio"):
            playlist = (await pub.get(f"/app/stream/{name}_{key}_llhls.m3u8")).text
            assert "XYZ" not in playlist and "ID3" not in playlist
        medialist = (await pub.get(f"/app/stream/medialist_{key}_hls.m3u8")).text
        assert "XYZ" not in medialist

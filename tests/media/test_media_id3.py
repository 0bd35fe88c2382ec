"""ID3 end to end: an id3v2 event sent to the real API lands, at the stream time it was accepted, in
the emsg of the LL-HLS part covering that time (both tracks for eventType event) and in an ID3 PES of
the HLS segment (found by PyAV with its PTS); mutagen reads the same frames from both. Nothing is
added to any playlist."""

from __future__ import annotations

import io
import struct

import av
import httpx
from mutagen.id3 import ID3
from sim_support import api_client, running_simulator

from simulator.world.clock import ManualClock
from simulator.world.wire import Id3EventSet, Id3Frame

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
        for track in ("video", "audio"):
            carrying = []
            for index in range(12):
                part = (await pub.get(f"/app/stream/part_{0 if track == 'video' else 1}_1_{index}_{track}_{key}"
                                      "_llhls.m4s")).content
                carrying += [(index, tag) for tag in _emsg_tags(part)]
            assert [(index, t[0], t[1]) for index, t in carrying] == [(2, 1000, 7_250)]  # ms, as the real one
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


def _walk_frames(tag: bytes) -> list[tuple[str, bytes]]:
    """(frame id, payload) of every frame, walked by the ID3v2.4 layout (syncsafe sizes, no padding)."""
    def syncsafe(data: bytes) -> int:
        return (data[0] << 21) | (data[1] << 14) | (data[2] << 7) | data[3]

    assert tag[:5] == b"ID3\x04\x00" and syncsafe(tag[6:10]) == len(tag) - 10
    frames, at = [], 10
    while at < len(tag):
        size = syncsafe(tag[at + 4:at + 8])
        frames.append((tag[at:at + 4].decode("ascii"), tag[at + 10:at + 10 + size]))
        at += 10 + size
    return frames


async def _part_tags(pub: httpx.AsyncClient, key: str) -> list[bytes]:
    tags = []
    for index in range(12):
        part = (await pub.get(f"/app/stream/part_0_1_{index}_video_{key}_llhls.m4s")).content
        tags += [message for _, _, message in _emsg_tags(part)]
    return tags


async def test_every_frame_sent_reaches_the_tag_even_repeated_keys_and_empty_text() -> None:
    """As the real server writes them: two TIT2 and two TXXX with one description give four frames, and no
    text ends with a NUL (captures/ome-0.19.0 markers/id3_emsg_part.json: `AirenSoft\\0<probe>TIT2...`)."""
    clock = ManualClock()
    event = {"eventFormat": "id3v2", "eventType": "video", "events": [
        {"frameType": "TIT2", "data": "first"}, {"frameType": "TIT2", "data": "second"},
        {"frameType": "TXXX", "info": "adId", "data": "A"}, {"frameType": "TXXX", "info": "adId", "data": "B"},
        {"frameType": "TPE1"},
    ]}
    async with running_simulator(clock=clock) as sim, api_client(sim) as api, httpx.AsyncClient(
            base_url=sim.publisher_url) as pub:
        clock.advance(7.25)
        assert (await api.post("/v1/vhosts/default/apps/app/streams/stream:sendEvent", json=event)).status_code == 200
        clock.advance(13 - 7.25)
        key = (await pub.get("/app/stream/llhls.m3u8")).text.splitlines()[-1].split("_")[3]
        (tag,) = await _part_tags(pub, key)
    assert _walk_frames(tag) == [("TIT2", b"\x03first"), ("TIT2", b"\x03second"),
                                 ("TXXX", b"\x03adId\x00A"), ("TXXX", b"\x03adId\x00B"),
                                 ("TPE1", b"\x03")]
    parsed = ID3(io.BytesIO(tag))  # type: ignore[no-untyped-call]
    # mutagen reads every frame but the empty TPE1, which it drops on reading (an empty text list)
    assert parsed.version == (2, 4, 0) and {"TIT2", "TXXX:adId"} <= set(parsed)


async def test_an_accepted_event_that_cannot_be_encoded_never_breaks_the_stream() -> None:
    """Behind the API's 400: if such an event were accepted anyway, it is left out and the stream plays on."""
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        stream = sim.world.find_stream("default", "app", "stream")
        assert stream is not None
        clock.advance(7.25)
        bad = Id3EventSet(eventType="video", events=[Id3Frame(frameType="PRIV", info="owner-\u0100", data="x")])
        good = Id3EventSet(eventType="video", events=[Id3Frame(frameType="TIT2", data="still here")])
        sim.world.accept_events(stream, [(bad, {}), (good, {})])
        clock.advance(13 - 7.25)
        master = await pub.get("/app/stream/llhls.m3u8")
        assert master.status_code == 200
        key = master.text.splitlines()[-1].split("_")[3]
        chunklist = await pub.get(f"/app/stream/chunklist_0_video_{key}_llhls.m3u8")
        assert chunklist.status_code == 200 and "#EXT-X-PART:" in chunklist.text
        (tag,) = await _part_tags(pub, key)
    assert _walk_frames(tag) == [("TIT2", b"\x03still here")]

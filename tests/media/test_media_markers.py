"""Ad markers end to end: cue events sent to the real API show up in the LL-HLS and HLS playlists
served on the publisher port, exactly where DECISIONS.md says, checked with m3u8 and threefive;
rule-breaking markers answer 200 and leave the playlists untouched."""

from __future__ import annotations

import re

import httpx
import m3u8
import pytest
import threefive
from sim_support import api_client, running_simulator

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

STREAM = "/v1/vhosts/default/apps/app/streams/stream:sendEvent"


async def _cue(api: httpx.AsyncClient, cue_type: str, duration: int | None = None) -> None:
    event: dict[str, object] = {"cueType": cue_type}
    if duration is not None:
        event["duration"] = duration
    response = await api.post(STREAM, json={"eventFormat": "cue", "events": [event]})
    assert response.status_code == 200, response.text


async def _playlists(sim: RunningSimulator) -> tuple[str, str]:
    """(LL-HLS video chunklist, HLS media playlist) of app/stream."""
    async with httpx.AsyncClient(base_url=sim.publisher_url) as pub:
        master = (await pub.get("/app/stream/llhls.m3u8")).text
        video = next(line for line in master.splitlines() if line.startswith("chunklist_0_video"))
        ts_master = (await pub.get("/app/stream/ts:playlist.m3u8")).text
        medialist = ts_master.splitlines()[-1]
        return (await pub.get(f"/app/stream/{video}")).text, (await pub.get(f"/app/stream/{medialist}")).text


def _marker_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("#EXT-X-CUE", "#EXT-X-DATERANGE"))]


def _scte35(attribute: str, line: str) -> dict[str, object]:
    match = re.search(attribute + r"=(0x[0-9A-F]+)", line)
    assert match, line
    cue = threefive.Cue(match.group(1))
    cue.decode()
    command: dict[str, object] = cue.command.get()
    return command


async def test_cue_out_then_automatic_in_in_both_playlists() -> None:
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, api_client(sim) as api:
        clock.advance(13.2)
        await _cue(api, "out", 12_000)  # splice: first keyframe >= 14.2 s -> 15 s; auto in at 27 s
        llhls, hls = await _playlists(sim)
        # the DATERANGE is announced at once in LL-HLS, before the splice
        (announce,) = _marker_lines(llhls)
        assert announce.startswith('#EXT-X-DATERANGE:ID="splice-')
        assert 'START-DATE="2026-01-01T00:00:15.000+00:00"' in announce and "PLANNED-DURATION=12.000" in announce
        out = _scte35("SCTE35-OUT", announce)
        assert out["name"] == "Splice Insert" and out["out_of_network_indicator"] is True
        assert out["break_duration"] == 12.0 and out["pts_time"] == 15.0
        clock.advance(15 - 13.2)  # the splice: CUE-OUT is listed at once, before the break's first part
        llhls, _ = await _playlists(sim)
        lines = llhls.splitlines()
        cue_out = lines.index("#EXT-X-CUE-OUT:DURATION=12.000")
        assert lines[cue_out + 1] == "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:15.000+00:00"
        assert lines[cue_out + 2].startswith('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part_0_3_0_video')
        clock.advance(30 - 15)
        llhls, hls = await _playlists(sim)
        # identical marker lines in both protocols
        assert _marker_lines(llhls) == _marker_lines(hls)
        playlist = m3u8.loads(hls)
        by_start = {round((s.current_program_date_time.timestamp() - 1_767_225_600), 3): s for s in playlist.segments}
        assert sorted(by_start) == [0, 6, 12, 15, 18, 24, 27]  # segments cut at both splices
        assert by_start[15].cue_out_start and by_start[15].scte35_duration in ("12.000", 12.0, "12")
        assert by_start[18].cue_out and not by_start[18].cue_out_start
        assert by_start[27].cue_in
        assert "#EXT-X-CUE-OUT-CONT:ElapsedTime=3.000,Duration=12.000" in hls
        assert "#EXT-X-CUE-OUT-CONT:ElapsedTime=9.000,Duration=12.000" in hls
        lines = hls.splitlines()
        # the cue tag sits right before the segment's PROGRAM-DATE-TIME, the CUE-IN before the 27 s one
        assert lines[lines.index("#EXT-X-CUE-IN") + 1] == "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:27.000+00:00"
        out_line = next(line for line in lines if line.startswith("#EXT-X-CUE-OUT:"))
        assert lines[lines.index(out_line) + 1] == "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:15.000+00:00"
        ranges = [d for s in playlist.segments for d in s.dateranges]
        assert [d.id for d in ranges] == ["splice-1", "splice-1"]  # one pair, one id
        assert ranges[1].duration == 12.0 and ranges[1].scte35_in
        back = _scte35("SCTE35-IN", next(line for line in lines if "SCTE35-IN" in line))
        assert back["out_of_network_indicator"] is False and back["splice_event_id"] == out["splice_event_id"]
        assert back["pts_time"] == 27.0
        # in LL-HLS the cue tag comes before the first part of the segment
        lines = llhls.splitlines()
        cue_in = lines.index("#EXT-X-CUE-IN")
        assert lines[cue_in + 1].startswith("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:27.000")
        assert lines[cue_in + 2].startswith("#EXT-X-PART:") and "INDEPENDENT=YES" in lines[cue_in + 2]


async def test_early_in_replaces_the_automatic_in() -> None:
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, api_client(sim) as api:
        clock.advance(2.5)
        await _cue(api, "out", 30_000)  # splice at 4 s, planned end 34 s
        clock.advance(5.0)
        await _cue(api, "in")  # at 7.5 s: splice at the first keyframe >= 8.5 s -> 9 s
        clock.advance(12)
        _, hls = await _playlists(sim)
        markers = _marker_lines(hls)
        assert markers[0].startswith("#EXT-X-DATERANGE") and "PLANNED-DURATION=30.000" in markers[0]
        assert "#EXT-X-CUE-OUT:DURATION=30.000" in markers
        assert "#EXT-X-CUE-IN" in markers
        in_range = next(line for line in markers if "SCTE35-IN" in line)
        assert "DURATION=5.000" in in_range  # 4 s -> 9 s
        lines = hls.splitlines()
        assert lines[lines.index("#EXT-X-CUE-IN") + 1].endswith("T00:00:09.000+00:00")
        playlist = m3u8.loads(hls)
        assert len({d.id for s in playlist.segments for d in s.dateranges}) == 1


async def test_rule_breaking_markers_answer_200_and_change_nothing(caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()
    async with running_simulator(clock=clock) as sim, api_client(sim) as api:
        clock.advance(3)
        await _cue(api, "in")  # the first marker must be an out
        await _cue(api, "out", 9_000)  # must exceed 1.5 x 6 s
        clock.advance(20)
        llhls, hls = await _playlists(sim)
        assert _marker_lines(llhls) == [] and _marker_lines(hls) == []
        assert "first marker must be an out" in caplog.text and "1.5 x segment duration" in caplog.text
        await _cue(api, "out", 20_000)  # valid: splice at 24 s
        clock.advance(1)
        await _cue(api, "out", 20_000)  # an out inside a break
        clock.advance(12)
        llhls, hls = await _playlists(sim)
        assert len([line for line in _marker_lines(hls) if line.startswith("#EXT-X-DATERANGE")]) == 1
        assert _marker_lines(hls).count("#EXT-X-CUE-OUT:DURATION=20.000") == 1
        assert "an out inside a break is refused" in caplog.text

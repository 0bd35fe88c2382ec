"""The command line against the replayed OvenMediaEngine 0.19.0 (`ome_replay.py`): what an operator reads.

Each test runs `omeconsole ...` in this process on one FakeClock shared with the replay (`replay_support`).
Each asserts what an operator should read on the real server, issue 25's fixes included (a cut confirmed
without waiting for tags, no false warning, the keyframe interval with its units).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import aiohttp
import pytest
from fake_clock import FakeClock
from ome_replay import FIXTURES, STATS_PATH, OmeReplay
from replay_support import STREAM, captured_rates, replay_clock, replaying, run_command

from omeconsole.cli import exit_codes
from omeconsole.core.adops.splice_cut import KEYFRAME_INTERVAL_S, estimated_splice, hms

SERIES = json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())
NO_MARKERS = ("this server writes no ad markers into its playlists: players and ad insertion downstream see no "
              "break; it will cut a segment at the splice point")
CUT_SEEN = "splice seen (segment cut at 00:08:46.408), no marker written"
"""Segment 52 of the video chunklist is cut at 5.867 s after the captured cue-out: segment 53 starts at
00:08:46.408 (`markers/versions/video_001.21.m3u8`)."""


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def clock() -> FakeClock:
    return replay_clock()


def audit(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]


def captured_body(name: str) -> str:
    body = json.loads((FIXTURES / "api" / f"{name}.json").read_text())["request"]["body"]
    assert isinstance(body, str)
    return body


async def test_ls_lists_the_virtual_host_and_the_stream(clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        hosts = await run_command(clock, capsys, "ls")
        streams = await run_command(clock, capsys, "ls", "default/app")
        assert (hosts.status, hosts.out) == (0, "default\n")
        assert (streams.status, streams.out) == (0, "default/app/stream\n")
        assert replay.unmatched == []


async def test_info_shows_the_input_and_its_tracks_as_the_server_reports_them(clock, monkeypatch, tmp_path,
                                                                               capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path):
        ran = await run_command(clock, capsys, "info", STREAM)
    assert ran.status == 0
    lines = [" ".join(line.split()) for line in ran.out.splitlines()]
    assert "source Rtmp TCP://127.0.0.1:59428" in lines
    assert "created 2026-11-29 00:03:28.518+00:00" in lines
    assert any(line.startswith("track 0 Video H264 640x360 30 fps") and line.endswith("781.00 kb/s") for line in lines)
    assert "track 1 Audio AAC 44100 Hz 1 ch 93.00 kb/s" in lines
    assert "track 2 Data" in lines


async def test_info_gives_the_keyframe_interval_with_its_units(clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path):
        ran = await run_command(clock, capsys, "info", STREAM)
    # keyFrameInterval 29.869369506835938 frames at a framerate of 30.0: one keyframe every 0.996 s
    assert "keyframe every 1.0 s (29.87 frames)" in ran.out


async def test_stats_reads_the_v1_statistics_of_an_open_source_server(clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        ran = await run_command(clock, capsys, "stats", STREAM)
        assert replay.unmatched == []
    lines = [" ".join(line.split()) for line in ran.out.splitlines()]
    assert ran.status == 0
    assert lines[0] == "default/app/stream (oss, v1 statistics)"
    assert "last updated 2026-11-29 00:05:09.279+00:00" in lines  # the series' first reading
    assert "viewers 0 now (llhls + hlsv3 + webrtc + srt)" in lines and "not viewers none" in lines
    assert "connections 0 now (every publisher session), peak 0 at 2026-11-29 00:03:28.518+00:00" in lines
    assert "bytes in / out 10.85 MiB / 0 B" in lines  # 11,380,518 bytes
    assert "inbound not reported by this server" in lines


async def test_stats_watch_rates_follow_the_captured_byte_deltas(clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path):
        ran = await run_command(clock, capsys, "stats", STREAM, "--watch", "--count", "12", "--format", "json")
    readings = [json.loads(line) for line in ran.out.splitlines()]
    assert ran.status == 0 and len(readings) == 12
    pairs = captured_rates(readings, SERIES)
    for index, (shown, truth) in enumerate(pairs):
        assert shown == pytest.approx(truth, rel=0.02), index
    assert len(pairs) >= 8


async def test_a_missing_stream_and_a_refused_token_say_the_servers_own_words(clock, monkeypatch, tmp_path,
                                                                               capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path):
        missing = await run_command(clock, capsys, "stats", "default/app/nosuchstream")
        refused = await run_command(clock, capsys, "ls", "--token", "wrong")
    assert missing.status == exit_codes.REFUSED
    assert "[HTTP] Could not find the stream: [default/#default#app/nosuchstream] (404)" in missing.err
    assert refused.status == exit_codes.REFUSED
    assert "[HTTP] Invalid credential (401)" in refused.err


async def test_cue_out_is_sent_once_and_the_answer_said(clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        ran = await run_command(clock, capsys, "cue-out", STREAM, "--duration", "30")
        posts = [seen for seen in replay.requests if seen.method == "POST"]
    assert (ran.status, ran.out) == (0, "cue-out sent to default/app/stream: HTTP 200 OK\n"
                                        "accepted by the server; not yet seen in the playlist\n")
    assert NO_MARKERS in ran.err  # said before the send, as a note (nothing to confirm)
    assert [json.loads(seen.body) for seen in posts] == [json.loads(captured_body("30_sendEvent_cue_out"))]
    assert [record.get("outcome") for record in audit(tmp_path)] == [None, "accepted"]


async def test_cue_out_wait_confirm_confirms_the_segment_cut_on_a_server_that_writes_no_markers(
        clock, monkeypatch, tmp_path, capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path):
        ran = await run_command(clock, capsys, "cue-out", STREAM, "--duration", "30", "--wait-confirm")
    assert NO_MARKERS in ran.err
    assert CUT_SEEN in ran.out
    assert "not seen within" not in ran.err + ran.out
    assert ran.took < 5.0  # the cut is listed 1.21 s after the request; never the 15 s wait
    assert ran.status == exit_codes.SPLICE_NO_MARKER  # its own documented status


async def test_cue_in_during_an_accepted_break_is_sent_without_a_false_warning(clock, monkeypatch, tmp_path,
                                                                               capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        out = await run_command(clock, capsys, "cue-out", STREAM, "--duration", "30")
        assert out.status == 0
        clock.advance(17.0 - out.took)
        ran = await run_command(clock, capsys, "cue-in", STREAM)
        cue_in = json.loads(captured_body("31_sendEvent_cue_in"))
        cue_ins = [seen for seen in replay.requests if seen.method == "POST" and json.loads(seen.body) == cue_in]
    assert "no ad break is on air" not in ran.err
    assert (ran.status, ran.out) == (0, "cue-in sent to default/app/stream: HTTP 200 OK\n"
                                        "accepted by the server; not yet seen in the playlist\n")
    assert len(cue_ins) == 1


async def test_id3_wait_confirm_is_confirmed_from_the_emsg_of_the_captured_part(clock, monkeypatch, tmp_path,
                                                                                capsys) -> None:
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        ran = await run_command(clock, capsys, "id3", STREAM, "--event-type", "video",
                                "--frame", "TXXX", "--info", "AirenSoft", "--data", "realome-probe-1795910986",
                                "--frame", "TIT2", "--data", "OvenMediaEngine 123", "--wait-confirm")
        parts = [seen for seen in replay.requests if seen.path.endswith("_llhls.m4s")]
    assert ran.status == 0, ran
    lines = ran.out.splitlines()
    assert lines[:3] == ["id3 sent to default/app/stream: HTTP 200 OK", "  #0: HTTP 200 OK",  # one set, :sendEvents
                         "accepted by the server; not yet seen in the media"]
    seen = re.fullmatch(r"ID3 seen in the media after (\d+\.\d) s", lines[3])
    assert seen is not None and 0.6 <= float(seen[1]) <= 1.0, lines  # the part is listed 0.609 s after the request
    assert [part.path for part in parts] == ["/app/stream/part_0_65_0_video_7930408358254892257_llhls.m4s"]


async def test_send_events_says_which_set_the_server_refused_in_its_207(clock, monkeypatch, tmp_path,
                                                                        capsys) -> None:
    events = tmp_path / "mixed.json"
    events.write_text(captured_body("34_sendEvents_mixed"))
    async with replaying(clock, monkeypatch, tmp_path):
        ran = await run_command(clock, capsys, "send-events", STREAM, "--file", str(events))
    assert ran.status == exit_codes.REFUSED
    assert ran.out.splitlines() == [
        "send-events sent to default/app/stream: HTTP 207 1 of 2 event sets refused: #1: "
        "eventFormat is not supported: [foo]",
        "  #0: HTTP 200 OK",
        "  #1: HTTP 400 eventFormat is not supported: [foo]"]
    outcome = audit(tmp_path)[-1]
    assert (outcome["outcome"], outcome["status"]) == ("rejected", 207)


async def test_the_replay_was_asked_only_what_the_real_server_was(clock, monkeypatch, tmp_path, capsys) -> None:
    """Every API request the read commands make is one the captures answer (none fell through to a 501)."""
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        for argv in (["ls"], ["ls", "default"], ["ls", "default/app"], ["info", STREAM], ["stats", "default"],
                     ["stats", "default/app"], ["stats", STREAM]):
            assert (await run_command(clock, capsys, *argv)).status == 0, argv
        assert replay.unmatched == []
        assert any(seen.target == STATS_PATH for seen in replay.requests)



async def test_a_later_command_recalls_the_break_at_the_splice_the_first_one_saw(clock, monkeypatch, tmp_path,
                                                                                 capsys) -> None:
    """The first command saw the cut and wrote its time beside the confirmation; a second command (a new
    session, which learns of the break from the audit log alone: the server writes no marker) judges its
    cue-in from that splice, not from the estimate the server's rule gives (the next keyframe interval after
    the request: 0.17 s earlier here)."""
    async with replaying(clock, monkeypatch, tmp_path):
        out = await run_command(clock, capsys, "cue-out", STREAM, "--duration", "30", "--wait-confirm")
        assert CUT_SEEN in out.out
        clock.advance(2.0)
        ran = await run_command(clock, capsys, "cue-in", STREAM)
    intent, _, confirmation = audit(tmp_path)
    seen = datetime.fromisoformat(str(confirmation["splice"]))
    estimated = estimated_splice(datetime.fromisoformat(str(intent["time"])), KEYFRAME_INTERVAL_S)
    assert seen != estimated and confirmation["seen_after_s"] is not None
    assert ran.status == exit_codes.NEEDS_FORCE  # too soon after the splice: the server would drop it
    assert f"after the splice at {hms(seen)}: send it after {hms(seen + timedelta(seconds=8))}" in ran.err


async def _post_as_automation(replay: OmeReplay, body: str) -> int:
    """What automation does: the captured cue-out POSTed straight to the replayed API (not the console)."""
    async with aiohttp.ClientSession() as session, session.post(
            f"{replay.api_url}/v1/vhosts/default/apps/app/streams/stream:sendEvent", data=body,
            headers={"Authorization": replay.authorization, "Content-Type": "application/json"}) as reply:
        return reply.status


async def test_cue_in_after_a_break_sent_by_someone_else_says_the_check_cannot_run_there(clock, monkeypatch, tmp_path,
                                                                                           capsys) -> None:
    """0.19 cuts a segment at a cue-out and writes no marker: a break another sender started is not in its
    playlist. The CLI must not say "no ad break is on air" (one is): it says the check cannot be made on this
    server and refuses as for any check that could not run (exit 8, nothing POSTed); `--force` sends it once."""
    async with replaying(clock, monkeypatch, tmp_path) as replay:
        assert await _post_as_automation(replay, captured_body("30_sendEvent_cue_out")) == 200
        clock.advance(12.0)
        refused = await run_command(clock, capsys, "cue-in", STREAM)
        cue_in = json.loads(captured_body("31_sendEvent_cue_in"))

        def cue_ins() -> int:
            return len([seen for seen in replay.requests if seen.method == "POST" and json.loads(seen.body) == cue_in])

        assert cue_ins() == 0
        forced = await run_command(clock, capsys, "cue-in", STREAM, "--force")
        assert cue_ins() == 1
    assert refused.status == exit_codes.NEEDS_FORCE and refused.out == "", refused
    assert "no ad break is on air" not in refused.err, refused.err
    assert ("whether an ad break is on air cannot be read on this server: it writes no ad markers, so a break "
            "sent from elsewhere cannot be seen") in refused.err, refused.err
    assert (forced.status, forced.out) == (0, "cue-in sent to default/app/stream: HTTP 200 OK\n"
                                              "accepted by the server; not yet seen in the playlist\n")

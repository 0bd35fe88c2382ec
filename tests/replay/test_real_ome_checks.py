"""`make test-real-ome`'s checks (`tests/support/real_ome.py`), run here against the replayed 0.19.0 so their code is
exercised on every test run: the real `omeconsole` program, the replay on this test's loop and FakeClock."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import real_ome
from ome_replay import FIXTURES, OmeReplay, Seen
from real_ome import Checks, Target
from replay_support import replay_clock

ID3 = json.loads((FIXTURES / "markers" / "id3_emsg_part.json").read_text())


def test_without_a_server_every_check_is_skipped_and_the_reason_said(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OME_API_URL", raising=False)
    assert real_ome.main([]) == 0
    assert capsys.readouterr().out == (
        "test-real-ome: skipped: no OME_API_URL given (set OME_API_URL, OME_ACCESS_TOKEN and, if the publisher "
        "is not the API's host on port 3333, OME_PUBLISHER_URL)\n")


async def test_every_check_passes_against_the_replayed_server_sends_included(tmp_path) -> None:
    clock = replay_clock()
    async with OmeReplay(clock) as replay:
        frames = tuple((event["frameType"], event.get("info"), event["data"])
                       for event in json.loads(ID3["request_body"])["events"])
        target = Target(replay.api_url, replay.token, replay.publisher_url, None, True, frames,
                        str(tmp_path / "audit.jsonl"))

        async def next_request() -> None:  # the exporter has polled the replay once more
            count = len(replay.requests)
            await replay.received(lambda _seen: len(replay.requests) > count)

        async def media_moves_on_after_the_id3() -> None:
            def is_id3(seen: Seen) -> bool:
                return seen.method == "POST" and b'"id3v2"' in seen.body

            await replay.received(is_id3)
            clock.advance(1.0)  # the captured part is listed 0.609 s after the request

        mover = asyncio.ensure_future(media_moves_on_after_the_id3())
        try:
            results = await Checks(target, after_scrape=next_request).run()
        finally:
            mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await mover
    assert [(check.name, check.ok) for check in results] == [
        ("ls", True), ("detection", True), ("a stream", True), ("stats", True), ("info", True),
        ("exporter starts", True), ("exporter metrics", True), ("cue-out", True), ("cue-in", True),
        ("id3 confirmed", True)], results
    details = {check.name: check.detail for check in results}
    assert details["detection"] == "default  (oss, v1 statistics)"
    assert details["a stream"] == "default/app/stream"
    assert 'edition="oss"' in details["exporter metrics"] and 'version="0.19.0"' in details["exporter metrics"]
    assert "ID3 seen in the media after" in details["id3 confirmed"]
    assert replay.cue_out_at is not None and replay.id3_at is not None
    assert [seen for seen in replay.unmatched if seen.role == "api"] == []

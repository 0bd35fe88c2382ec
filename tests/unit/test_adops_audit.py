"""The audit log: each send's intent on disk before it leaves, outcomes and confirmations linked,
files private, no secret ever recorded, and reading that survives whatever is in the file."""

from __future__ import annotations

import json
import os
import stat
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fake_clock import FakeClock

from omeconsole.core.adops.audit import (
    AUDIT_ENV,
    OUTCOME_UNKNOWN,
    AuditLog,
    Intent,
    default_audit_path,
)
from omeconsole.core.config import Settings
from omeconsole.core.session import connector

FIXED = datetime(2026, 1, 1, 12, 0, 0, 123000, tzinfo=UTC)
BODY = b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'


def _log(tmp_path: Path, **kwargs: int) -> AuditLog:
    return AuditLog(tmp_path / "logs" / "audit.jsonl", now=lambda: FIXED, **kwargs)


def _intent(send_id: str = "id-1", stream: str = "stream", content: bytes = BODY) -> Intent:
    return Intent(send_id, "ome.example:8081", "prod", "default", "app", stream, "cue-out",
                  f"/v1/vhosts/default/apps/app/streams/{stream}:sendEvent", content)


def test_an_intent_is_on_disk_with_every_field_and_the_exact_bytes_before_anything_else(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_intent(_intent())
    raw = (tmp_path / "logs" / "audit.jsonl").read_bytes()  # a fresh handle: what another process would find
    assert raw.count(b"\n") == 1 and b'"body":' + BODY + b"}\n" in raw
    assert json.loads(raw) == {
        "type": "intent", "id": "id-1", "time": "2026-01-01T12:00:00.123+00:00", "server": "ome.example:8081",
        "profile": "prod", "vhost": "default", "app": "app", "stream": "stream", "action": "cue-out",
        "path": "/v1/vhosts/default/apps/app/streams/stream:sendEvent",
        "body": {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]},
    }
    [send] = log.read_all().sends
    assert (send.status, send.message, send.outcome_recorded) == ("unknown", OUTCOME_UNKNOWN, False)
    assert log.read_all().unknown == [send]


def test_the_log_is_private_and_a_loose_existing_one_is_tightened(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_intent(_intent())
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.path.parent.stat().st_mode) == 0o700
    os.chmod(log.path, 0o644)
    log.record_outcome("id-1", "accepted", 200, "OK")
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600


def test_outcome_and_confirmation_are_linked_to_the_intent_across_instances(tmp_path: Path) -> None:
    first = _log(tmp_path)
    first.record_intent(_intent("a"))
    first.record_outcome("a", "rejected", 207, "Multi-Status", [(200, "OK"), (400, "bad [x]")])
    second = _log(tmp_path)  # a later run reads what the first one wrote
    second.record_confirmation("a", 1.23456, "seen in playlist after 1.2 s")
    contents = second.read_all()
    assert contents.skipped_lines == 0 and contents.unknown == []
    [send] = contents.sends
    assert (send.status, send.message, send.profile, send.server) == (207, "Multi-Status", "prod", "ome.example:8081")
    assert send.stream_path == "default/app/stream" and send.api_path.endswith("stream:sendEvent")
    [confirmation] = send.confirmations
    assert confirmation.seen_after_s == 1.235 and confirmation.detail == "seen in playlist after 1.2 s"


def test_a_line_cut_by_a_crash_is_skipped_and_the_next_append_stays_readable(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_intent(_intent("a", "s"))
    with open(log.path, "ab") as f:
        f.write(b'{"type":"intent","id":"half')  # killed in the middle of a write
    assert log.read_all().skipped_lines == 1
    log.record_intent(_intent("b", "s2"))
    contents = log.read_all()
    assert [s.stream for s in contents.sends] == ["s", "s2"] and contents.skipped_lines == 1


def test_values_are_recorded_as_they_are_never_masked(tmp_path: Path) -> None:
    # With a one-character token, text replacement once wrote "status":2******; nothing is replaced now.
    log = _log(tmp_path)
    content = json.dumps([{"eventFormat": "id3v2", "events": [{"frameType": "TXXX", "info": "e", "data": "0 e"}]}],
                         separators=(",", ":")).encode()
    log.record_intent(_intent(content=content))
    log.record_outcome("id-1", "accepted", 200, "OK")
    text = log.path.read_text()
    assert '"status":200' in text and '"type":"outcome"' in text and '"data":"0 e"' in text
    [send] = log.read_all().sends
    assert send.status == 200 and send.body[0]["events"][0]["data"] == "0 e"


def test_sends_from_before_the_write_ahead_still_read_back(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.path.parent.mkdir(parents=True)
    log.path.write_text(json.dumps({"type": "send", "id": "old", "time": "t", "server": "http://h:1", "vhost": "v",
                                    "app": "a", "stream": "s", "action": "cue-in", "body": {}, "status": "unknown",
                                    "message": "timed out"}) + "\n")
    [send] = log.read_all().sends
    assert send.outcome_recorded and send.status == "unknown" and send.message == "timed out"


HOSTILE_LINES = [
    b"not json at all",
    b"[1, 2, 3]",
    b'"a string"',
    b'{"type": "intent", "id": ["unhashable"]}',
    b'{"type": "outcome", "id": {"x": 1}, "status": 200}',
    b'{"type": "confirmation", "send_id": 5}',
    b'{"type": "mystery", "id": "x"}',
    b"[" * 100_000 + b"]" * 100_000,
    b"\xff\xfe\x00 binary \x1b]52;c;AAAA\x07",
    b'{"type": "intent", "id": "x", "body": ' + b'"' + b"a" * 2_000_000 + b'"}',
]


def test_hostile_lines_are_counted_and_skipped_and_good_ones_survive(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_intent(_intent("good"))
    with open(log.path, "ab") as f:
        for line in HOSTILE_LINES:
            f.write(line + b"\n")
        f.write(b'{"type":"outcome","id":"good","outcome":"accepted","status":true,"message":7}\n')
    contents = log.read_all()
    assert contents.skipped_lines == len(HOSTILE_LINES)
    [send] = contents.sends
    assert send.send_id == "good" and send.status == "unknown" and send.message == "7"


def test_a_huge_log_is_read_in_bounded_memory_keeping_the_newest_sends(tmp_path: Path) -> None:
    log = _log(tmp_path, max_sends=100)
    log.path.parent.mkdir(parents=True)
    template = (b'{"type":"intent","id":"%d","server":"h:1","vhost":"v","app":"a","stream":"s","action":"cue-out",'
                b'"body":{"pad":"' + b"x" * 400 + b'"}}\n')
    with open(log.path, "wb") as f:
        for index in range(20_000):
            f.write(template % index)
    size = log.path.stat().st_size
    tracemalloc.start()
    try:
        contents = log.read_all()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size > 8_000_000 and peak < size / 8
    assert contents.dropped_sends == 19_900 and [s.send_id for s in contents.sends[:2]] == ["19900", "19901"]


def test_a_missing_file_reads_as_empty_the_env_moves_it_and_demo_sends_have_their_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert AuditLog(tmp_path / "none.jsonl").read_all().sends == []
    monkeypatch.setenv(AUDIT_ENV, str(tmp_path / "elsewhere.jsonl"))
    assert default_audit_path() == tmp_path / "elsewhere.jsonl"
    assert default_audit_path(demo=True) == tmp_path / "demo-audit.jsonl"
    monkeypatch.delenv(AUDIT_ENV)
    assert default_audit_path().name == "audit.jsonl"
    assert default_audit_path(demo=True) == default_audit_path().with_name("demo-audit.jsonl")


async def test_the_demo_session_writes_its_own_log_and_says_it_is_the_demo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUDIT_ENV, str(tmp_path / "audit.jsonl"))
    settings = Settings(api_url="http://user:pw@127.0.0.1:8081", profile="prod")
    demo = connector(FakeClock(), demo=True)(settings)
    production = connector(FakeClock())(settings)
    assert demo.audit.path == tmp_path / "demo-audit.jsonl" and production.audit.path == tmp_path / "audit.jsonl"
    assert demo.context.demo and not production.context.demo
    assert (production.context.host, production.context.profile) == ("127.0.0.1:8081", "prod")
    await demo.aclose()
    await production.aclose()

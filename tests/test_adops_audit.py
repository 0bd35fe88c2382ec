"""The audit log: every send durable on disk, confirmations linked, the token never written."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from omeconsole.core.adops.audit import AUDIT_ENV, AuditLog, default_audit_path

TOKEN = "s3cret-token-value"
FIXED = datetime(2026, 1, 1, 12, 0, 0, 123000, tzinfo=UTC)


def _log(tmp_path: Path) -> AuditLog:
    return AuditLog(tmp_path / "audit.jsonl", secrets=[TOKEN], now=lambda: FIXED)


def test_send_line_has_every_field_and_is_on_disk_at_once(tmp_path: Path) -> None:
    log = _log(tmp_path)
    body = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    send_id = log.record_send(server="http://admin:pw@ome.example:8081/", vhost="default", app="app",
                              stream="stream", action="cue-out", body=body, status=200, message="OK")
    # Read with a fresh file handle: what another process (or a crash) would find.
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record == {
        "type": "send", "id": send_id, "time": "2026-01-01T12:00:00.123+00:00",
        "server": "http://ome.example:8081/", "vhost": "default", "app": "app", "stream": "stream",
        "action": "cue-out", "body": body, "status": 200, "message": "OK",
    }


def test_confirmation_is_linked_to_its_send_across_instances(tmp_path: Path) -> None:
    first = _log(tmp_path)
    send_id = first.record_send(server="http://h:1", vhost="v", app="a", stream="s", action="cue-in",
                                body={"eventFormat": "cue", "events": [{"cueType": "in"}]}, status="unknown",
                                message="timed out")
    second = _log(tmp_path)  # a later run reads what the first one wrote
    second.record_confirmation(send_id, 1.23456, "seen in playlist after 1.2 s")
    contents = second.read_all()
    assert contents.skipped_lines == 0
    [send] = contents.sends
    assert send.status == "unknown" and send.action == "cue-in" and send.stream_path == "v/a/s"
    [confirmation] = send.confirmations
    assert confirmation.seen_after_s == 1.235 and confirmation.detail == "seen in playlist after 1.2 s"


def test_truncated_last_line_is_skipped_and_next_append_stays_readable(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_send(server="http://h:1", vhost="v", app="a", stream="s", action="cue-out",
                    body={"x": 1}, status=200, message="OK")
    with open(tmp_path / "audit.jsonl", "ab") as f:
        f.write(b'{"type":"send","id":"half')  # a crash in the middle of a write
    assert log.read_all().skipped_lines == 1
    log.record_send(server="http://h:1", vhost="v", app="a", stream="s2", action="cue-in",
                    body={"y": 2}, status=200, message="OK")
    contents = log.read_all()
    assert [s.stream for s in contents.sends] == ["s", "s2"]
    assert contents.skipped_lines == 1


def test_token_is_never_written_even_inside_a_body_or_url(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record_send(server=f"http://{TOKEN}@h:1/?access_token={TOKEN}", vhost="v", app="a", stream="s",
                    action="id3", body=[{"events": [{"frameType": "TXXX", "info": "k", "data": TOKEN}]}],
                    status=400, message=f"bad {TOKEN}")
    log.record_confirmation("x", None, f"detail {TOKEN}")
    text = (tmp_path / "audit.jsonl").read_text()
    assert TOKEN not in text
    assert "***" in text
    assert TOKEN not in repr(log)


def test_missing_file_reads_as_empty_and_env_moves_the_default(tmp_path: Path, monkeypatch) -> None:
    assert AuditLog(tmp_path / "none.jsonl").read_all().sends == []
    monkeypatch.setenv(AUDIT_ENV, str(tmp_path / "elsewhere.jsonl"))
    assert default_audit_path() == tmp_path / "elsewhere.jsonl"
    monkeypatch.delenv(AUDIT_ENV)
    assert default_audit_path().name == "audit.jsonl"

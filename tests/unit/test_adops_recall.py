"""A break recalled from the audit log: at the splice its sender saw when the log says so, else estimated."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fake_clock import FakeClock

from omeconsole.core.adops.ad_break import AdBreak, BreakState
from omeconsole.core.adops.audit import AuditLog, Intent
from omeconsole.core.adops.recall import recalled_break
from omeconsole.core.adops.splice_cut import KEYFRAME_INTERVAL_S, estimated_splice
from omeconsole.model.paths import NodePath

SERVER = "ome.example:8081"
STREAM = NodePath("default", "app", "stream")
SENT = datetime(2026, 11, 29, 0, 8, 45, 334000, tzinfo=UTC)
CUT = datetime(2026, 11, 29, 0, 8, 46, 408000, tzinfo=UTC)
"""The cut the sender saw (1.07 s after the request; the rule's estimate says 1.0 s)."""


def _sent(tmp_path: Path, *, seen: datetime | None) -> AuditLog:
    clock = FakeClock(wall_start=SENT)
    log = AuditLog(tmp_path / "audit.jsonl", now=clock.wall)
    body = json.dumps({"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}).encode()
    log.record_intent(Intent("one", SERVER, None, "default", "app", "stream", "cue-out", "/v1/x", body))
    log.record_outcome("one", "accepted", 200, "OK")
    clock.advance(1.3)
    log.record_confirmation("one", 1.3 if seen else None, "splice seen" if seen else "not seen", seen)
    return log


def test_a_recalled_break_takes_the_splice_its_sender_saw(tmp_path: Path) -> None:
    sends = _sent(tmp_path, seen=CUT).read_all().sends
    recalled = recalled_break(sends, SERVER, STREAM, SENT + timedelta(seconds=5))
    assert recalled is not None and recalled.splice == CUT
    clock = FakeClock(wall_start=SENT + timedelta(seconds=5))
    model = AdBreak(clock)
    model.on_record(recalled)
    view = model.view()
    assert (view.state, view.splice_wall, view.splice_source) == (BreakState.ON_AIR, CUT, "cut")
    assert view.ends_wall == CUT + timedelta(seconds=30)
    # It ends 30 s after the cut it was seen at, not after the estimate.
    assert recalled_break(sends, SERVER, STREAM, CUT + timedelta(seconds=29.9)) is not None
    assert recalled_break(sends, SERVER, STREAM, CUT + timedelta(seconds=30)) is None


def test_a_break_whose_splice_was_never_seen_stays_estimated(tmp_path: Path) -> None:
    sends = _sent(tmp_path, seen=None).read_all().sends
    recalled = recalled_break(sends, SERVER, STREAM, SENT + timedelta(seconds=5))
    assert recalled is not None and recalled.splice is None
    model = AdBreak(FakeClock(wall_start=SENT + timedelta(seconds=5)))
    model.on_record(recalled)
    view = model.view()
    assert view.splice_wall == estimated_splice(SENT, KEYFRAME_INTERVAL_S)
    assert view.splice_source == "estimated"


def test_a_splice_that_is_not_a_date_is_ignored(tmp_path: Path) -> None:
    log = _sent(tmp_path, seen=CUT)
    lines = log.path.read_text().splitlines()
    lines[-1] = lines[-1].replace(CUT.isoformat(timespec="milliseconds"), "<b>soon</b>")
    log.path.write_text("\n".join(lines) + "\n")
    recalled = recalled_break(log.read_all().sends, SERVER, STREAM, SENT + timedelta(seconds=5))
    assert recalled is not None and recalled.splice is None

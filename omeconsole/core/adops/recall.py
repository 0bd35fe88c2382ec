"""A break this console sent in an earlier run, recalled from the audit log.

On a server that writes no marker (open source 0.18 to 0.20) the playlist cannot show a break: a
command-line `cue-in` 17 s after a `cue-out` of another process would otherwise be judged "no break on
air" and refused while the server holds one. The audit log knows better: the stream's newest accepted
cue-out to this server, still within its planned length, and the accepted cue-in after it, if any —
each at the splice the run that sent it saw in the playlist (its confirmation records it), or, when it saw
none, with no splice (the break's model then estimates it from the server's rule, and says so).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from omeconsole.core.adops.audit import AuditedSend
from omeconsole.model.paths import NodePath


@dataclass(frozen=True)
class RecalledBreak:
    requested: datetime
    """When the accepted cue-out was sent."""
    planned_s: float
    cue_in_requested: datetime | None
    """When an accepted cue-in after it was sent, if one was."""
    splice: datetime | None = None
    """The cue-out's splice as the playlist showed it to the run that sent it (None: not seen)."""
    cue_in_splice: datetime | None = None
    """The cue-in's, likewise."""


def recalled_break(sends: Sequence[AuditedSend], server: str, path: NodePath, now: datetime) -> RecalledBreak | None:
    """The newest accepted cue-out to `server` for `path` that may still be on air at `now`, or None."""
    cue_out: RecalledBreak | None = None
    for send in sends:
        if send.server != server or send.stream_path != str(path) or not _accepted(send):
            continue
        sent = _time(send.time)
        if sent is None:
            continue
        cue = _cue(send.body)
        if cue is not None and cue[0] == "out" and cue[1] is not None:
            cue_out = RecalledBreak(sent, cue[1], None, _seen_splice(send))
        elif cue is not None and cue[0] == "in" and cue_out is not None and sent >= cue_out.requested:
            cue_out = dataclasses.replace(cue_out, cue_in_requested=sent, cue_in_splice=_seen_splice(send))
    if cue_out is None or now >= (cue_out.splice or cue_out.requested) + timedelta(seconds=cue_out.planned_s):
        return None
    return cue_out


def _seen_splice(send: AuditedSend) -> datetime | None:
    """The splice the first confirmation that saw one recorded (outside text: a date, or nothing)."""
    for confirmation in send.confirmations:
        if confirmation.seen_after_s is not None and confirmation.splice is not None:
            return _time(confirmation.splice)
    return None


def _accepted(send: AuditedSend) -> bool:
    return isinstance(send.status, int) and 200 <= send.status < 300


def _time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _cue(body: object) -> tuple[str, float | None] | None:
    """(`out` with its duration in seconds, or `in`) of a single-cue body; None for anything else."""
    if not isinstance(body, dict) or body.get("eventFormat") != "cue" or not isinstance(body.get("events"), list):
        return None
    events = [e for e in body["events"] if isinstance(e, dict)]
    if len(events) != 1:
        return None
    kind, duration = events[0].get("cueType"), events[0].get("duration")
    if kind == "in":
        return "in", None
    if kind == "out" and isinstance(duration, int | float) and not isinstance(duration, bool) and duration > 0:
        return "out", duration / 1000
    return None

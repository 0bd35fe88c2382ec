"""The audit log as the alerts and the exporter read it: sends to one server, re-read only when it changed.

The log is written by other processes (the TUI, the command line) and is data from outside: it is
read through `AuditLog.read_all()` (tolerant of broken lines), and only when its size or modification
time moved, so reading it costs nothing on the passes where nothing was sent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from omeconsole.core.adops.audit import AuditContents, AuditedSend
from omeconsole.core.context import host_port
from omeconsole.model.paths import NodePath

EventFormat = Literal["cue", "id3v2", "other"]
Outcome = Literal["accepted", "rejected", "failed", "unknown", "not_sent"]


class AuditReader(Protocol):
    """What is used of `AuditLog`: where it is, and reading it back."""

    path: Path

    def read_all(self) -> AuditContents: ...


@dataclass(frozen=True, slots=True)
class CueSend:
    """A cue (out or in) that may have reached the server, with what the playlist showed of it."""

    path: NodePath
    send_id: str
    sent_at: datetime
    cue_type: Literal["out", "in"]
    duration_s: float | None
    """The planned break length of a cue-out."""
    accepted: bool
    """The server answered 2xx (False: the answer never came, the cue may or may not be on air)."""
    seen_after_s: float | None
    """Seconds after the send the playlist showed it; None if no confirmation says it was seen."""
    gave_up: bool
    """A confirmation line says it was not seen within the watcher's wait."""


def event_format(send: AuditedSend) -> EventFormat:
    """`cue` or `id3v2` from the body's eventFormat (the action when the body does not say)."""
    bodies = send.body if isinstance(send.body, list) else [send.body]
    formats = {b.get("eventFormat") for b in bodies if isinstance(b, dict)}
    if formats == {"cue"} or (not formats and send.action in ("cue-out", "cue-in")):
        return "cue"
    if formats == {"id3v2"} or (not formats and send.action == "id3"):
        return "id3v2"
    return "other"


def outcome(send: AuditedSend) -> Outcome:
    """The audit log's own outcome first: a 207 whose sets were partly refused is "rejected", as the send said."""
    status = send.status
    if send.outcome == "rejected" and isinstance(status, int) and status < 500:
        return "rejected"
    if status == "unknown":
        return "unknown"
    if status == "not-sent":
        return "not_sent"
    if 200 <= status < 300:
        return "accepted"
    return "rejected" if 400 <= status < 500 else "failed"


def _parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _cue_events(send: AuditedSend) -> list[dict[str, object]]:
    bodies = send.body if isinstance(send.body, list) else [send.body]
    events: list[dict[str, object]] = []
    for body in bodies:
        if isinstance(body, dict) and body.get("eventFormat") == "cue" and isinstance(body.get("events"), list):
            events.extend(e for e in body["events"] if isinstance(e, dict))
    return events


def _cue_send(send: AuditedSend) -> CueSend | None:
    if event_format(send) != "cue" or outcome(send) not in ("accepted", "unknown"):
        return None
    sent_at = _parse_time(send.time)
    events = _cue_events(send)
    if sent_at is None or not events or not (send.vhost and send.app and send.stream):
        return None
    last = events[-1]
    cue_type = last.get("cueType")
    if cue_type not in ("out", "in"):
        return None
    duration = last.get("duration")
    duration_s = duration / 1000 if isinstance(duration, int | float) and not isinstance(duration, bool) else None
    seen = [c.seen_after_s for c in send.confirmations if c.seen_after_s is not None]
    return CueSend(NodePath(send.vhost, send.app, send.stream), send.send_id, sent_at,
                   "out" if cue_type == "out" else "in", duration_s if cue_type == "out" else None,
                   outcome(send) == "accepted", min(seen) if seen else None,
                   any(c.seen_after_s is None for c in send.confirmations))


class AuditFeed:
    """Sends to one server from an audit log, kept up to date by `refresh()`."""

    def __init__(self, reader: AuditReader, server_url: str) -> None:
        self._reader = reader
        self._server = host_port(server_url)
        self._stamp: tuple[int, int] | None = None
        self.sends: Sequence[AuditedSend] = ()
        self.counts: Mapping[tuple[EventFormat, Outcome], int] = {}
        self.latest_cues: Mapping[NodePath, CueSend] = {}
        """Each stream's newest cue that may have reached the server."""
        self.latest_cue_outs: Mapping[NodePath, CueSend] = {}
        self.skipped_lines = 0

    def refresh(self) -> bool:
        """Re-read the log if it changed on disk; returns whether anything was re-read."""
        try:
            info = self._reader.path.stat()
            stamp = (info.st_size, info.st_mtime_ns)
        except OSError:
            stamp = (0, 0)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        contents = self._reader.read_all() if stamp != (0, 0) else AuditContents([], 0)
        self.skipped_lines = contents.skipped_lines
        self.sends = [s for s in contents.sends if s.server == self._server]
        self.counts = Counter((event_format(s), outcome(s)) for s in self.sends)
        latest: dict[NodePath, CueSend] = {}
        outs: dict[NodePath, CueSend] = {}
        for send in self.sends:
            cue = _cue_send(send)
            if cue is None:
                continue
            if cue.path not in latest or cue.sent_at >= latest[cue.path].sent_at:
                latest[cue.path] = cue
            if cue.cue_type == "out" and (cue.path not in outs or cue.sent_at >= outs[cue.path].sent_at):
                outs[cue.path] = cue
        self.latest_cues, self.latest_cue_outs = latest, outs
        return True

    def ad_break_active(self, path: NodePath, now: datetime) -> bool:
        """A cue-out accepted, within its planned length, and no cue-in since (as far as this log knows)."""
        out = self.latest_cue_outs.get(path)
        if out is None or not out.accepted or out.duration_s is None:
            return False
        newest = self.latest_cues.get(path)
        if newest is not None and newest.cue_type == "in" and newest.accepted and newest.sent_at >= out.sent_at:
            return False
        return (now - out.sent_at).total_seconds() < out.duration_s

"""The audit log of every event the console sent: JSON Lines, written ahead of the wire.

An operator who pressed a key on a live channel must be able to prove later what went out, even if
the console was killed while the request was in flight. So each send is three kinds of line, linked
by the send's id and never rewritten: the **intent** (server, profile, target, the exact bytes of the
body) is flushed and fsynced *before* the request leaves; the **outcome** (the HTTP status and the
server's message, or why it is unknown) follows; **confirmations** (what the playlist showed) come
later. An intent with no outcome reads back as "outcome unknown — check the playlist".

No secret is ever put into a record: the server is `host:port`, the body is what was sent, the
messages come from the client (which keeps the token out of them). The file is created 0600 in a
0700 directory; demo sends have their own file. Reading treats the file as hostile input: lines are
bounded, bad lines are counted and skipped, and a huge file is read in bounded memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import platformdirs

AUDIT_ENV = "OMECONSOLE_AUDIT_LOG"
"""Environment variable that moves the log (tests and operators who keep logs elsewhere)."""
DEMO_AUDIT_NAME = "demo-audit.jsonl"
OUTCOME_UNKNOWN = "outcome unknown — check the playlist"
MAX_LINE_BYTES = 1 << 20
"""A longer line is not one this console wrote (bodies are far smaller): skipped and counted."""
MAX_SENDS = 10_000
"""Sends kept when reading (the newest); older ones are counted in `dropped_sends`."""
MAX_CONFIRMATIONS = 16

Status = int | Literal["unknown", "not-sent"]
"""HTTP status; "unknown" when the answer never came; "not-sent" when no connection was made."""
OutcomeKind = Literal["accepted", "rejected", "not-sent", "unknown"]


def default_audit_path(*, demo: bool = False) -> Path:
    """`$OMECONSOLE_AUDIT_LOG`, else `audit.jsonl` in the user data directory; demo sends beside it."""
    override = os.environ.get(AUDIT_ENV)
    base = Path(override).expanduser() if override else platformdirs.user_data_path("omeconsole") / "audit.jsonl"
    return base.with_name(DEMO_AUDIT_NAME) if demo else base


def _now_iso(now: Callable[[], datetime]) -> str:
    return now().astimezone(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Confirmation:
    time: str
    seen_after_s: float | None
    """None: not seen in the playlist within the wait."""
    detail: str
    splice: str | None = None
    """The splice the playlist showed (ISO 8601 with its offset: the cut or the marker's date), when it showed
    one: a later run recalls the break from it, not from an estimate."""


@dataclass(frozen=True)
class AuditedSend:
    """One send as read back from the log, with its outcome (if recorded) and confirmations."""

    send_id: str
    time: str
    server: str
    vhost: str
    app: str
    stream: str
    action: str
    body: Any
    status: Status
    message: str
    profile: str | None = None
    api_path: str = ""
    outcome_recorded: bool = True
    """False for an intent with no outcome: the console stopped (or was killed) before the answer."""
    confirmations: tuple[Confirmation, ...] = field(default=())
    outcome: OutcomeKind | None = None
    """The outcome as the console judged it ("rejected" for a 207 with a refused set); None in old logs."""
    origin: str | None = None
    """`schedule:NAME` for a scheduled break; None for an operator's send."""

    @property
    def stream_path(self) -> str:
        return f"{self.vhost}/{self.app}/{self.stream}"


@dataclass(frozen=True)
class AuditContents:
    sends: list[AuditedSend]
    skipped_lines: int
    """Lines that were not valid records (cut short by a crash, too long, or foreign text)."""
    dropped_sends: int = 0
    """Older sends not kept in memory (more than MAX_SENDS in the file)."""

    @property
    def unknown(self) -> list[AuditedSend]:
        """Intents whose outcome was never recorded: check the playlist before sending again."""
        return [s for s in self.sends if not s.outcome_recorded]


@dataclass(frozen=True)
class Intent:
    """What is about to be sent: everything but the answer."""

    send_id: str
    server: str
    profile: str | None
    vhost: str
    app: str
    stream: str
    action: str
    api_path: str
    content: bytes
    """The body's bytes exactly as they go on the wire (valid JSON)."""
    origin: str | None = None
    """Who sent it when not an operator's key or command (`schedule:NAME`); recorded only when set."""


class AuditLog:
    """Appends intents, outcomes and confirmations to a JSON Lines file; reads them back tolerantly."""

    def __init__(self, path: Path | str | None = None, *, now: Callable[[], datetime] | None = None,
                 max_line_bytes: int = MAX_LINE_BYTES, max_sends: int = MAX_SENDS) -> None:
        self.path = Path(path) if path is not None else default_audit_path()
        self._now = now or (lambda: datetime.now(UTC))
        self._max_line = max_line_bytes
        self._max_sends = max_sends

    def __repr__(self) -> str:
        return f"AuditLog(path={str(self.path)!r})"

    def record_intent(self, intent: Intent) -> None:
        """Durable before the request leaves; an OSError here means nothing may be sent."""
        head = _dumps({
            "type": "intent", "id": intent.send_id, "time": _now_iso(self._now), "server": intent.server,
            "profile": intent.profile, "vhost": intent.vhost, "app": intent.app, "stream": intent.stream,
            "action": intent.action, "path": intent.api_path,
            **({"origin": intent.origin} if intent.origin is not None else {}),
        })
        # The body goes in as the very bytes sent, not a re-serialisation of them.
        self._append(head[:-1] + b',"body":' + intent.content + b"}")

    def record_outcome(self, send_id: str, kind: OutcomeKind, status: Status, message: str,
                       items: Sequence[tuple[int, str]] = ()) -> None:
        self._append(_dumps({
            "type": "outcome", "id": send_id, "time": _now_iso(self._now), "outcome": kind, "status": status,
            "message": message, "items": [{"status": s, "message": m} for s, m in items],
        }))

    def record_confirmation(self, send_id: str, seen_after_s: float | None, detail: str,
                            splice: datetime | None = None) -> None:
        """What the playlist showed for an earlier send (None: not seen in time), and the splice it showed."""
        self._append(_dumps({
            "type": "confirmation", "send_id": send_id, "time": _now_iso(self._now),
            "seen_after_s": None if seen_after_s is None else round(seen_after_s, 3), "detail": detail,
            **({"splice": splice.astimezone(UTC).isoformat(timespec="milliseconds")} if splice is not None else {}),
        }))

    def read_all(self) -> AuditContents:
        """Every send in file order with its outcome and confirmations; broken lines are counted, not fatal."""
        sends: OrderedDict[str, dict[str, Any]] = OrderedDict()
        skipped = dropped = 0
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return AuditContents([], 0)
        with handle:
            for line in _bounded_lines(handle, self._max_line):
                if line is not None and not line.strip():
                    continue
                record = _parse_line(line) if line is not None else None
                if record is None or not _apply(record, sends):
                    skipped += 1
                if len(sends) > self._max_sends:
                    sends.popitem(last=False)
                    dropped += 1
        return AuditContents([_to_send(r) for r in sends.values()], skipped, dropped)

    def _append(self, line: bytes) -> None:
        directory = self.path.parent
        if not directory.exists():
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            info = os.fstat(fd)
            if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                os.fchmod(fd, 0o600)  # our log: others have no business reading what was sent
            # A crash may have left half a line: start on a fresh line so this one stays readable.
            if info.st_size > 0 and os.pread(fd, 1, info.st_size - 1) != b"\n":
                line = b"\n" + line
            _write_all(fd, line + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_directory(directory)


def _dumps(record: dict[str, Any]) -> bytes:
    """Compact JSON as UTF-8; a lone surrogate (from a server's `\\ud800` escape) is written as that escape."""
    return json_bytes(record)


def json_bytes(value: Any) -> bytes:
    """`value` as compact JSON in UTF-8, never failing on text that is not valid Unicode: a lone surrogate
    (a server's `\\ud800` escape, a non-UTF-8 command-line argument) becomes its JSON escape."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fsync_directory(directory: Path) -> None:
    """Make a new file's name durable too (a crash right after must not lose the file itself)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _bounded_lines(handle: Any, limit: int) -> Iterator[bytes | None]:
    """Lines of at most `limit` bytes; None for each longer one (its rest is read and dropped)."""
    while True:
        line: bytes = handle.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest: bytes = handle.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _apply(record: dict[str, Any], sends: OrderedDict[str, dict[str, Any]]) -> bool:
    """Fold one record into the sends; False if it is not a record this log writes."""
    kind = record.get("type")
    if kind in ("intent", "send") and isinstance(record.get("id"), str):
        # "send": an intent and its outcome in one line, as logs before the write-ahead wrote them.
        sends[record["id"]] = {**record, "_outcome": record if kind == "send" else None, "_confirmations": []}
        return True
    key = record.get("id" if kind == "outcome" else "send_id")
    target = sends.get(key) if isinstance(key, str) else None
    if kind == "outcome" and isinstance(record.get("id"), str):
        if target is not None:
            target["_outcome"] = record
        return True
    if kind == "confirmation" and isinstance(record.get("send_id"), str):
        if target is not None and len(target["_confirmations"]) < MAX_CONFIRMATIONS:
            seen = record.get("seen_after_s")
            target["_confirmations"].append(Confirmation(
                time=str(record.get("time", "")),
                seen_after_s=float(seen) if isinstance(seen, int | float) and not isinstance(seen, bool) else None,
                detail=str(record.get("detail", "")),
                splice=record["splice"] if isinstance(record.get("splice"), str) else None))
        return True
    return False


def _status(value: object) -> Status:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return "not-sent" if value == "not-sent" else "unknown"


def _to_send(record: dict[str, Any]) -> AuditedSend:
    outcome = record["_outcome"]
    profile = record.get("profile")
    return AuditedSend(
        send_id=record["id"],
        time=str(record.get("time", "")),
        server=str(record.get("server", "")),
        vhost=str(record.get("vhost", "")),
        app=str(record.get("app", "")),
        stream=str(record.get("stream", "")),
        action=str(record.get("action", "")),
        body=record.get("body"),
        status=_status(outcome.get("status")) if outcome is not None else "unknown",
        message=str(outcome.get("message", "")) if outcome is not None else OUTCOME_UNKNOWN,
        profile=profile if isinstance(profile, str) else None,
        api_path=str(record.get("path", "")),
        outcome_recorded=outcome is not None,
        confirmations=tuple(record["_confirmations"]),
        outcome=_outcome_kind(outcome.get("outcome")) if outcome is not None else None,
        origin=record["origin"] if isinstance(record.get("origin"), str) else None,
    )


def _outcome_kind(value: object) -> OutcomeKind | None:
    return value if value in ("accepted", "rejected", "not-sent", "unknown") else None

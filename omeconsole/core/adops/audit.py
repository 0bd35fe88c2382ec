"""The audit log of every event the console sent: one JSON object per line, appended and synced.

An operator who pressed a key on a live channel must be able to prove later what went out, even
if the console crashed right after: each line is flushed and fsynced before the caller shows the
result. Confirmations (the playlist showed the cue) are separate lines linked by the send's id, so
nothing is ever rewritten. The access token is never written: server URLs lose their user info and
any secret the caller names is masked wherever it would appear.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import platformdirs

AUDIT_ENV = "OMECONSOLE_AUDIT_LOG"
"""Environment variable that moves the log (tests and operators who keep logs elsewhere)."""

MASK = "***"
Status = int | Literal["unknown", "not-sent"]
"""HTTP status; "unknown" when the answer never came; "not-sent" when no connection was made."""


def default_audit_path() -> Path:
    """`$OMECONSOLE_AUDIT_LOG`, else `audit.jsonl` in the platform's user data directory."""
    override = os.environ.get(AUDIT_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_data_path("omeconsole") / "audit.jsonl"


def clean_server_url(url: str) -> str:
    """The server URL without user info, query or fragment (where credentials could hide)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def new_send_id() -> str:
    return uuid.uuid4().hex


def _now_iso(now: Callable[[], datetime]) -> str:
    return now().astimezone(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Confirmation:
    time: str
    seen_after_s: float | None
    """None: not seen in the playlist within the wait."""
    detail: str


@dataclass(frozen=True)
class AuditedSend:
    """One send as read back from the log, with its confirmations (this run or an earlier one)."""

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
    confirmations: tuple[Confirmation, ...] = field(default=())

    @property
    def stream_path(self) -> str:
        return f"{self.vhost}/{self.app}/{self.stream}"


@dataclass(frozen=True)
class AuditContents:
    sends: list[AuditedSend]
    skipped_lines: int
    """Lines that were not valid records (a line cut short by a crash, or foreign text)."""


class AuditLog:
    """Appends sends and confirmations to a JSON Lines file; reads them back tolerantly."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        secrets: Iterable[str] = (),
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else default_audit_path()
        self._secrets = tuple(s for s in secrets if s)
        self._now = now or (lambda: datetime.now(UTC))

    def __repr__(self) -> str:
        return f"AuditLog(path={str(self.path)!r})"

    def record_send(
        self,
        *,
        server: str,
        vhost: str,
        app: str,
        stream: str,
        action: str,
        body: Any,
        status: Status,
        message: str,
        send_id: str | None = None,
    ) -> str:
        """Append one send and make it durable; returns the id later confirmations refer to."""
        send_id = send_id or new_send_id()
        self._append({
            "type": "send",
            "id": send_id,
            "time": _now_iso(self._now),
            "server": clean_server_url(server),
            "vhost": vhost,
            "app": app,
            "stream": stream,
            "action": action,
            "body": body,
            "status": status,
            "message": message,
        })
        return send_id

    def record_confirmation(self, send_id: str, seen_after_s: float | None, detail: str) -> None:
        """Append what the playlist showed for an earlier send (None: not seen in time)."""
        self._append({
            "type": "confirmation",
            "send_id": send_id,
            "time": _now_iso(self._now),
            "seen_after_s": None if seen_after_s is None else round(seen_after_s, 3),
            "detail": detail,
        })

    def read_all(self) -> AuditContents:
        """Every send in file order with its confirmations; broken lines are counted, not fatal."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return AuditContents([], 0)
        sends: dict[str, dict[str, Any]] = {}
        confirmations: dict[str, list[Confirmation]] = {}
        skipped = 0
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            record = _parse_line(line)
            if record is None:
                skipped += 1
            elif record.get("type") == "send" and isinstance(record.get("id"), str):
                sends[record["id"]] = record
            elif record.get("type") == "confirmation" and isinstance(record.get("send_id"), str):
                seen = record.get("seen_after_s")
                confirmations.setdefault(record["send_id"], []).append(Confirmation(
                    time=str(record.get("time", "")),
                    seen_after_s=float(seen) if isinstance(seen, int | float) else None,
                    detail=str(record.get("detail", "")),
                ))
            else:
                skipped += 1
        return AuditContents([_to_send(r, confirmations.get(r["id"], ())) for r in sends.values()], skipped)

    def _append(self, record: dict[str, Any]) -> None:
        line = self._mask(json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab+") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                # A crash may have left half a line: start on a fresh line so this one stays readable.
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")
            f.write(line.encode("utf-8") + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def _mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
            text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], MASK)
        return text


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _to_send(record: dict[str, Any], confirmations: Sequence[Confirmation]) -> AuditedSend:
    status = record.get("status")
    return AuditedSend(
        send_id=record["id"],
        time=str(record.get("time", "")),
        server=str(record.get("server", "")),
        vhost=str(record.get("vhost", "")),
        app=str(record.get("app", "")),
        stream=str(record.get("stream", "")),
        action=str(record.get("action", "")),
        body=record.get("body"),
        status=status if isinstance(status, int) or status == "not-sent" else "unknown",
        message=str(record.get("message", "")),
        confirmations=tuple(confirmations),
    )

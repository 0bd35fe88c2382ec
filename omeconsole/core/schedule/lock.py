"""The runner's lock: one process runs the schedules of one audit log, whichever process or machine.

A file beside the audit log (`<audit>.scheduler.lock`) is locked with `flock` for as long as the runner
lives: the kernel drops it when the process dies, however it dies, so a killed runner never leaves a
stale lock. The file also says who holds it (host, pid, since, last alive) — a second runner is refused
with those words — and when the last one was last alive, which is how a runner that starts knows the
runs missed while nothing ran.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from omeconsole.core.config import ensure_private_directory
from omeconsole.core.text import visible

MAX_HOLDER_BYTES = 4096


class LockHeld(Exception):
    """Another runner holds the lock; the message names it."""

    def __init__(self, path: Path, holder: str) -> None:
        self.path = path
        self.holder = holder
        super().__init__(f"the schedules are already run by {holder} (lock {path}); nothing started")


@dataclass(frozen=True)
class Previous:
    """What the last holder wrote: when it was last alive, and whether it stopped cleanly."""

    alive: datetime
    stopped: bool


def lock_path(audit_path: Path) -> Path:
    return audit_path.with_name(f"{audit_path.stem}.scheduler.lock")


class RunnerLock:
    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.kind = kind
        self._fd: int | None = None
        self._since: str = ""
        self.previous: Previous | None = None

    def __repr__(self) -> str:
        return f"RunnerLock({str(self.path)!r}, held={self.held})"

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, now: datetime) -> None:
        """Take the lock or raise LockHeld naming the holder; remembers what the last holder left."""
        ensure_private_directory(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(_read(fd))
            os.close(fd)
            raise LockHeld(self.path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self.previous = _previous(_read(fd))
        self._since = now.isoformat(timespec="seconds")
        self.heartbeat(now)

    def heartbeat(self, now: datetime, *, stopped: bool = False) -> None:
        """Record that the holder is alive at `now` (it is what the next runner counts missed runs from)."""
        if self._fd is None:
            return
        body = json.dumps({"kind": self.kind, "host": socket.gethostname(), "pid": os.getpid(), "since": self._since,
                           "alive": now.isoformat(timespec="seconds"), "stopped": stopped}).encode()
        # Not fsynced: it only says which runs to report as missed after a crash; what was sent is decided by
        # the audit log. A full disk must not stop the sends either.
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, body, 0)

    def release(self, now: datetime) -> None:
        if self._fd is None:
            return
        self.heartbeat(now, stopped=True)
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def holder_of(path: Path) -> str | None:
    """Who holds the lock now, or None when nobody does (the console asks before running schedules)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _describe(_read(fd))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read(fd: int) -> dict[str, Any]:
    try:
        raw = os.pread(fd, MAX_HOLDER_BYTES, 0)
        value = json.loads(raw) if raw else {}
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _describe(holder: dict[str, Any]) -> str:
    if not holder:
        return "another process (it has not said who it is)"
    kind = visible(str(holder.get("kind", "a runner")), 40)
    return (f"{kind} pid {visible(str(holder.get('pid', '?')), 20)} on {visible(str(holder.get('host', '?')), 100)} "
            f"since {visible(str(holder.get('since', '?')), 40)}")


def _previous(holder: dict[str, Any]) -> Previous | None:
    alive = holder.get("alive")
    try:
        moment = datetime.fromisoformat(alive) if isinstance(alive, str) else None
    except ValueError:
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return Previous(moment, holder.get("stopped") is True)

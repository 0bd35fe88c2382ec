"""The console's own publisher reads shared between its processes on one machine: one file per server.

A TUI follows playlists while an exporter, a `stats --watch` or a `cue-out --wait-confirm` runs beside it:
each is a process of its own with a ledger of its own (api/own_reads.py), and the server counts all their
reads alike. So each ledger writes its reads to this journal — one line when a read opens (its stream and
the most bytes it can take), one when it closes (the bytes it took) — and reads the lines the others wrote,
each time it marks a moment. A line is one `write` on a file opened for appending, so lines of several
writers never interleave.

The file is outside text to every reader: lines longer than `MAX_LINE_BYTES`, lines that are not the
shape below, and the reader's own lines are skipped; at most `MAX_READ_BYTES` are read at one mark. When
the file passes `ROTATE_BYTES` the writer that notices moves it aside (`<name>.old`, replacing the older
one) and starts a new one; a reader finishes the file it has open, then goes on with the new one. A
reader that starts late reads the current file from its start: the bytes of reads older than the last
rotation are no longer known to it.

    {"w": writer, "t": ticket, "s": [vhost, app, stream], "b": most bytes}   a read opened
                                                             ("n": 0 added: bytes only, no connection)
    {"w": writer, "t": ticket, "c": bytes}                                   that read closed
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

MAX_LINE_BYTES = 4000
"""Longer lines are not written (an append this short is one write) and not read."""
MAX_READ_BYTES = 1024 * 1024
"""The most read at one mark (about 9,000 reads, ~0.1 s of CPU: a reader that starts on a full file takes
it in over a few marks)."""
ROTATE_BYTES = 2 * 1024 * 1024
"""The file is moved aside past this (about 19,000 reads: some 20 minutes of following ten streams)."""


def journal_path(directory: Path, api_url: str) -> Path:
    """The journal of the server at `api_url` in `directory` (the name hides the URL: it may be private)."""
    return directory / "own-reads" / f"{hashlib.sha256(api_url.encode()).hexdigest()[:16]}.jsonl"


@dataclass(frozen=True, slots=True)
class Opened:
    writer: str
    ticket: int
    stream: tuple[str, str, str]
    bound: int
    connection: bool = True


@dataclass(frozen=True, slots=True)
class Closed:
    writer: str
    ticket: int
    wire_bytes: int


Entry = Opened | Closed


class Journal:
    """One process's end of a server's journal: it appends its own reads and reads the others'."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer = secrets.token_hex(6)
        self._reading: tuple[int, int, int] | None = None
        """(fd, its inode, the offset read up to) of the file being read."""
        self._rest = b""
        self.problem: str | None = None
        """Why the journal could not be written or read, last time it could not (the figures then leave out
        only this process's own reads)."""

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    def opened(self, ticket: int, stream: tuple[str, str, str], bound: int, *, connection: bool = True) -> None:
        record: dict[str, object] = {"w": self.writer, "t": ticket, "s": list(stream), "b": bound}
        if not connection:
            record["n"] = 0  # bytes only: the server counts no connection for this reader
        self._append(record)

    def closed(self, ticket: int, wire_bytes: int) -> None:
        self._append({"w": self.writer, "t": ticket, "c": wire_bytes})

    def others(self) -> list[Entry]:
        """The other processes' entries written since the last call, in file order."""
        entries: list[Entry] = []
        try:
            budget = MAX_READ_BYTES
            while budget > 0:
                fd = self._open_for_reading()
                if fd is None:
                    break
                chunk = os.read(fd, min(budget, 1 << 20))
                if chunk:
                    budget -= len(chunk)
                    self._advance(len(chunk))
                    entries += self._parse(chunk)
                    continue
                if not self._moved_on():
                    break
        except OSError as error:
            self.problem = f"the journal of the console's own reads cannot be read: {error.strerror or error}"
        return entries

    def close(self) -> None:
        if self._reading is not None:
            with contextlib.suppress(OSError):
                os.close(self._reading[0])
            self._reading = None

    # -- writing --------------------------------------------------------------------------------------

    def _append(self, record: dict[str, object]) -> None:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"
        if len(line) > MAX_LINE_BYTES:
            return  # names this long: this read is left out of what other processes know
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, line)
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > ROTATE_BYTES:
                os.replace(self.path, self.path.with_name(self.path.name + ".old"))
        except OSError as error:
            self.problem = f"the journal of the console's own reads cannot be written: {error.strerror or error}"

    # -- reading --------------------------------------------------------------------------------------

    def _open_for_reading(self) -> int | None:
        if self._reading is not None:
            return self._reading[0]
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        self._reading = (fd, os.fstat(fd).st_ino, 0)
        self._rest = b""
        return fd

    def _advance(self, count: int) -> None:
        assert self._reading is not None
        fd, inode, offset = self._reading
        self._reading = (fd, inode, offset + count)

    def _moved_on(self) -> bool:
        """At the end of the file being read: True (and the new file next) if it was moved aside."""
        assert self._reading is not None
        try:
            current = os.stat(self.path).st_ino
        except FileNotFoundError:
            current = None
        if current == self._reading[1]:
            return False
        self.close()
        return current is not None

    def _parse(self, chunk: bytes) -> list[Entry]:
        lines = (self._rest + chunk).split(b"\n")
        self._rest = lines.pop()
        if len(self._rest) > MAX_LINE_BYTES:
            self._rest = b""  # not a line of ours: dropped as it comes
        return [entry for line in lines if (entry := self._entry(line)) is not None]

    def _entry(self, line: bytes) -> Entry | None:
        if not line or len(line) > MAX_LINE_BYTES:
            return None
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        writer, ticket = record.get("w"), record.get("t")
        if not isinstance(writer, str) or writer == self.writer or not _count(ticket):
            return None
        stream, bound, wire_bytes = record.get("s"), record.get("b"), record.get("c")
        if (isinstance(stream, list) and len(stream) == 3 and all(isinstance(name, str) for name in stream)
                and _count(bound)):
            return Opened(writer, ticket, (stream[0], stream[1], stream[2]), bound, connection=record.get("n") != 0)
        if _count(wire_bytes):
            return Closed(writer, ticket, wire_bytes)
        return None


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53

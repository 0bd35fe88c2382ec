"""The ids of every send in the audit log, read as it grows: the runner's check before each send.

Before each scheduled send the runner asks whether the audit log already has that run's id (written by
this process, an earlier one, or another sharing the directory). Reading the whole log each time costs
what the log weighs (12 ms of CPU at 500 sends, linear), so only what was appended since the last look
is read: whole lines, each bounded like the audit log's own reader, hostile lines skipped. A file that
shrank or was replaced is read again from the start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from omeconsole.core.adops.audit import MAX_LINE_BYTES


class SentIds:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._ids: set[str] = set()
        self._offset = 0
        self._inode: int | None = None

    def __repr__(self) -> str:
        return f"SentIds({str(self.path)!r}, {len(self._ids)} ids)"

    def __contains__(self, send_id: object) -> bool:
        return send_id in self.current()

    def current(self) -> set[str]:
        """Every send id in the file now (the set is the reader's own: do not change it)."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            self._ids, self._offset, self._inode = set(), 0, None
            return self._ids
        if info.st_ino != self._inode or info.st_size < self._offset:
            self._ids, self._offset, self._inode = set(), 0, info.st_ino
        if info.st_size > self._offset:
            self._read_from_offset()
        return self._ids

    def _read_from_offset(self) -> None:
        with self.path.open("rb") as handle:
            handle.seek(self._offset)
            while True:
                line = handle.readline(MAX_LINE_BYTES + 1)
                if not line.endswith(b"\n"):
                    if len(line) <= MAX_LINE_BYTES:
                        return  # a line still being written: read it next time, whole
                    while line and not line.endswith(b"\n"):  # too long to be ours: skipped
                        line = handle.readline(MAX_LINE_BYTES)
                    self._offset = handle.tell()
                    continue
                self._offset = handle.tell()
                self._take(line)

    def _take(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return
        if isinstance(record, dict) and record.get("type") in ("intent", "send") and isinstance(record.get("id"), str):
            self._ids.add(record["id"])

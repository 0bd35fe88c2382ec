"""Ad breaks and alerts in the store: the spans the console's charts drew, kept so a replay and `history`
show them as the live console did.

A span is written when it begins and again each time it changes (a splice corrected from the estimate to the
playlist's, the return, an alert resolving): one row per span, updated in place (`span` is its name within its
server). A span the recording stopped before it ended keeps no end (`ended` NULL). A new span that is the same as one
still open in the store (same kind, node and label, beginning within `SAME_SPAN_S`: a break on air while the console
reconnected, told again by its new session) takes over that row instead of adding a second one.

Labels, severities and origins come from servers and config (an alert's rule name, a break's origin): they are
stored as data, cut to `TEXT_LIMIT` characters, and shown only through `core.text.visible`. Retention treats a
span as the readings of its last moment (its end, or its start while it has none).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omeconsole.core.history.observations import ObservedSpan
from omeconsole.model.paths import NodePath

TEXT_LIMIT = 200
"""Characters kept of a label, severity, origin or span name."""
KINDS = ("ad break", "alert")
SAME_SPAN_S = 1.0
"""Two spans' starts closer than this are one span's (a break's splice is the break model's own wall time)."""
READ_LIMIT = 20_000
"""Spans read at most by one question (the latest kept when there are more)."""

_SERVER_DEPTH = -1
_DEPTHS = {"vhost": 0, "app": 1, "stream": 2}

_UPSERT = """
INSERT INTO events (server_id, span, kind, depth, vhost, app, stream, began, ended, label, severity, origin)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (server_id, span) DO UPDATE SET
    began = excluded.began, ended = excluded.ended, label = excluded.label, severity = excluded.severity,
    origin = excluded.origin
"""

_TAKE_OVER = """
UPDATE events SET span = ? WHERE id = (
    SELECT id FROM events WHERE server_id = ? AND kind = ? AND depth = ? AND vhost = ? AND app = ? AND stream = ?
    AND label = ? AND ended IS NULL AND began BETWEEN ? AND ? ORDER BY began DESC LIMIT 1)
AND NOT EXISTS (SELECT 1 FROM events WHERE server_id = ? AND span = ?)
"""


@dataclass(frozen=True, slots=True)
class RecordedSpan:
    """One stored span, its times in epoch seconds."""

    kind: str
    path: NodePath | None
    """None: the whole server."""
    began: float
    ended: float | None
    label: str
    severity: str
    origin: str


def _node(path: NodePath | None) -> tuple[int, str, str, str]:
    if path is None:
        return (_SERVER_DEPTH, "", "", "")
    return (_DEPTHS[path.level], path.vhost, path.app or "", path.stream or "")


def _path(depth: int, vhost: str, app: str, stream: str) -> NodePath | None:
    if depth == _SERVER_DEPTH:
        return None
    return NodePath(vhost, app if depth >= 1 else None, stream if depth >= 2 else None)


def write_span(db: sqlite3.Connection, server_id: int, item: ObservedSpan) -> bool:
    """Stores or updates `item`'s row (in the caller's transaction); False for a kind the store does not keep."""
    if item.kind not in KINDS:
        return False
    name, node, label = item.span[:TEXT_LIMIT], _node(item.path), item.label[:TEXT_LIMIT]
    db.execute(_TAKE_OVER, (name, server_id, item.kind, *node, label, item.began - SAME_SPAN_S,
                            item.began + SAME_SPAN_S, server_id, name))
    db.execute(_UPSERT, (server_id, name, item.kind, *node, item.began, item.ended, label, item.severity[:TEXT_LIMIT],
                         item.origin[:TEXT_LIMIT]))
    return True


def read_spans(db: sqlite3.Connection, server: str, start: float, end: float,
               path: NodePath | None = None) -> list[RecordedSpan]:
    """The spans of `server` (host:port) that overlap [start, end], oldest first: all of them, or those of `path`
    and the nodes below it (with the server's own alerts) when `path` is given."""
    where = ["s.key = ?", "e.began <= ?", "coalesce(e.ended, e.began) >= ? OR e.ended IS NULL"]
    values: list[Any] = [server, end, start]
    if path is not None:
        depth, vhost, app, stream = _node(path)
        below = ["e.vhost = ?"] + (["e.app = ?"] if depth >= 1 else []) + (["e.stream = ?"] if depth >= 2 else [])
        where.append(f"(e.depth = {_SERVER_DEPTH} OR (e.depth >= ? AND {' AND '.join(below)}))")
        values += [depth, vhost, *([app] if depth >= 1 else []), *([stream] if depth >= 2 else [])]
    rows = db.execute(
        "SELECT * FROM (SELECT e.kind, e.depth, e.vhost, e.app, e.stream, e.began, e.ended, e.label, e.severity, "
        "e.origin FROM events e JOIN servers s ON s.id = e.server_id WHERE "
        + " AND ".join(f"({clause})" for clause in where)
        + f" ORDER BY e.began DESC LIMIT {READ_LIMIT}) ORDER BY began", values).fetchall()
    return [_span(row) for row in rows]


def _span(row: Sequence[Any]) -> RecordedSpan:
    kind, depth, vhost, app, stream, began, ended, label, severity, origin = row
    return RecordedSpan(str(kind), _path(int(depth), vhost, app, stream), float(began),
                        None if ended is None else float(ended), str(label), str(severity), str(origin))


def prune_spans(db: sqlite3.Connection, before: float) -> int:
    """Deletes the spans whose last moment (end, or start while open) is before `before`; how many went."""
    return db.execute("DELETE FROM events WHERE coalesce(ended, began) < ?", (before,)).rowcount

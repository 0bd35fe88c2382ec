"""A node's history as CSV and JSON files (the `e` key), with units in the column names.

Pure file writing, no Textual: the screen only shows the paths this returns. Values the server did
not report stay empty (CSV) or null (JSON), never 0. The files are the operator's alone: 0600 in a
0700 directory.
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import platformdirs

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.core.config import ensure_private_directory
from omeconsole.model import audience
from omeconsole.model.nodes import NodeView
from omeconsole.model.readings import Sample


def export_directory() -> Path:
    """`$XDG_DATA_HOME/omeconsole/exports` on Linux."""
    return Path(platformdirs.user_data_dir("omeconsole")) / "exports"


def _row(sample: Sample, wall_now: datetime, mono_now: float) -> dict[str, Any]:
    stats = sample.stats
    received = wall_now - timedelta(seconds=mono_now - sample.at)
    row: dict[str, Any] = {
        "received_at": received.isoformat(timespec="milliseconds"),
        "server_last_updated": (None if stats.last_updated is None
                                else stats.last_updated.isoformat(timespec="milliseconds")),
        "rate_in_bps": None if sample.rate_in_bps is None else round(sample.rate_in_bps),
        "rate_out_bps": None if sample.rate_out_bps is None else round(sample.rate_out_bps),
        "viewers": sample.viewers,
        **audience.others_counts(stats.connections_out),
        "total_bytes_in": stats.total_bytes_in,
        "total_bytes_out": stats.total_bytes_out,
        "total_connections": stats.total_connections,
        "max_total_connections": stats.max_total_connections,
    }
    for protocol in PROVIDER_PROTOCOLS:
        row[f"connections_in_{protocol}"] = (None if stats.connections_in is None
                                             else stats.connections_in.get(protocol, 0))
    for protocol in PUBLISHER_PROTOCOLS:
        row[f"connections_out_{protocol}"] = (None if stats.connections_out is None
                                              else stats.connections_out.get(protocol, 0))
    return row


def _file_stem(view: NodeView, wall_now: datetime) -> str:
    """`vhost_app_stream-<time>`; names are the server's: anything a file name cannot hold or a terminal
    would act on (NUL, separators, control and bidi characters) becomes `_`, and each part is capped."""
    parts = [p for p in (view.path.vhost, view.path.app, view.path.stream) if p is not None]
    safe = ["".join(c if c.isprintable() and c not in "/\\" else "_" for c in part)[:64] for part in parts]
    return "_".join(safe) + "-" + wall_now.strftime("%Y%m%dT%H%M%S")


def write_history(view: NodeView, directory: Path, wall_now: datetime, mono_now: float) -> list[Path]:
    """Writes `<path>-<time>.csv` and `.json`; returns both paths. OSError propagates to the caller."""
    ensure_private_directory(directory)
    rows = [_row(s, wall_now, mono_now) for s in view.history]
    stem = _file_stem(view, wall_now)
    csv_path = directory / f"{stem}.csv"
    json_path = directory / f"{stem}.json"
    columns = list(_row(view.history[0], wall_now, mono_now)) if rows else ["received_at"]
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=columns)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    _write_private(csv_path, table.getvalue())
    document = {
        "path": str(view.path),
        "level": view.path.level,
        "state": view.state.value,
        "exported_at": wall_now.isoformat(timespec="milliseconds"),
        "units": {"rate_*": "bits per second, computed by the console from byte totals",
                  "total_bytes_*": "bytes", "connections_*": "current connections"},
        "samples": rows,
    }
    _write_private(json_path, json.dumps(document, indent=2) + "\n")
    return [csv_path, json_path]


def _write_private(path: Path, text: str) -> None:
    """Create (or replace) `path` readable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(text)

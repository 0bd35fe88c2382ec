"""Human-readable and JSON renderings for the command line.

Units are labelled as the server defines them (reference §1.3): the server's throughput fields are
bits per second, `lastThroughput*` is a byte count, and rates the console computes itself say so.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo
from omeconsole.model.sends import SendResult
from omeconsole.model.server import ServerInfo


def human_bytes(count: float | None) -> str:
    if count is None:
        return "-"
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(count) < 1000 or unit == "TB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.2f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")


def human_bits(bps: float | None) -> str:
    if bps is None:
        return "-"
    for unit in ("bit/s", "kbit/s", "Mbit/s", "Gbit/s"):
        if abs(bps) < 1000 or unit == "Gbit/s":
            return f"{bps:.0f} {unit}" if unit == "bit/s" else f"{bps:.2f} {unit}"
        bps /= 1000
    raise AssertionError("unreachable")


def _time(value: datetime | None) -> str:
    return "-" if value is None else value.isoformat(sep=" ", timespec="milliseconds")


def _counts(counts: Mapping[str, int] | None) -> str:
    if counts is None:
        return "not reported by this server"
    shown = [f"{name} {n}" for name, n in counts.items() if n]
    return "  ".join(shown) if shown else "none"


def jsonable(value: Any) -> Any:
    """Dataclasses, datetimes and paths as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat(timespec="milliseconds")
    if isinstance(value, NodePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(jsonable(v) for v in value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def dumps(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)


def stats_text(path: NodePath, stats: NodeStats, server: ServerInfo | None, sample: Sample | None = None) -> str:
    source = f"  ({server.edition}, {server.stats_api} statistics)" if server else ""
    lines = [
        f"{path}{source}",
        f"  created           {_time(stats.created)}",
        f"  last updated      {_time(stats.last_updated)}",
        f"  viewers           {stats.total_connections} now, peak {stats.max_total_connections} "
        f"at {_time(stats.max_total_connection_time)}",
        f"  inbound           {_counts(stats.connections_in)}",
        f"  outbound          {_counts(stats.connections_out)}",
        f"  bytes in / out    {human_bytes(stats.total_bytes_in)} / {human_bytes(stats.total_bytes_out)}",
        f"  server in         avg {human_bits(stats.avg_throughput_in_bps)}, "
        f"max {human_bits(stats.max_throughput_in_bps)}, last window {human_bytes(stats.last_throughput_in_bytes)}",
        f"  server out        avg {human_bits(stats.avg_throughput_out_bps)}, "
        f"max {human_bits(stats.max_throughput_out_bps)}, last window {human_bytes(stats.last_throughput_out_bytes)}",
    ]
    if sample is not None:
        lines.append(f"  rate in / out     {human_bits(sample.rate_in_bps)} / {human_bits(sample.rate_out_bps)}"
                     "  (from byte totals)")
    return "\n".join(lines)


def sample_json(path: NodePath, sample: Sample) -> str:
    return dumps({"path": path, "rate_in_bps": sample.rate_in_bps, "rate_out_bps": sample.rate_out_bps,
                  "stats": sample.stats})


def info_text(info: StreamInfo) -> str:
    lines = [
        f"{info.name}",
        f"  source            {info.source_type or '-'}" + (f"  {info.source_url}" if info.source_url else ""),
        f"  created           {_time(info.created)}",
    ]
    for track in info.tracks:
        detail = [track.codec or ""]
        if track.width and track.height:
            detail.append(f"{track.width}x{track.height}")
        if track.framerate:
            detail.append(f"{track.framerate:g} fps")
        if track.keyframe_interval:
            detail.append(f"keyframe every {track.keyframe_interval:g}")
        if track.samplerate:
            detail.append(f"{track.samplerate} Hz")
        if track.channels:
            detail.append(f"{track.channels} ch")
        if track.bitrate:
            detail.append(human_bits(track.bitrate))
        lines.append(f"  track {track.id:<3} {track.type:<6} {'  '.join(d for d in detail if d)}")
    if info.outputs:
        lines.append(f"  outputs           {', '.join(info.outputs)}")
    return "\n".join(lines)


def send_text(action: str, path: NodePath, result: SendResult) -> str:
    text = f"{action} sent to {path}: HTTP {result.status} {result.message}"
    for index, item in enumerate(result.items):
        text += f"\n  #{index}: HTTP {item.status} {item.message}"
    return text

"""A reading's details and a stream's description as compact JSON in the store, and back.

The byte totals and viewers have columns of their own (they are summed and compared); everything else
a `NodeStats` holds goes into one JSON text per full-resolution sample, so a replay shows the numbers
the live console showed (connections per protocol, the server's own throughput and peaks). Reading
back is forgiving: the file is data, and a value that is not what it should be becomes None.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

from omeconsole.api.convert import MAX_PLAYLISTS
from omeconsole.model.readings import NodeStats, PlaylistInfo, StreamInfo, TrackInfo

MAX_JSON_CHARS = 64 * 1024
"""Longer texts are not decoded (a store edited by hand must not cost the console its memory)."""

_TIMES = ("created", "last_updated", "max_total_connection_time", "last_recv", "last_sent")
_NUMBERS = ("max_total_connections", "avg_throughput_in_bps", "avg_throughput_out_bps", "max_throughput_in_bps",
            "max_throughput_out_bps", "last_throughput_in_bytes", "last_throughput_out_bytes")


def epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _moment(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _counts(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}


def _load(text: str | None) -> dict[str, Any]:
    if not text or len(text) > MAX_JSON_CHARS:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def stats_detail(stats: NodeStats) -> str:
    """Everything of a reading but its totals and viewers, as compact JSON."""
    detail: dict[str, Any] = {name: epoch(getattr(stats, name)) for name in _TIMES}
    detail.update({name: getattr(stats, name) for name in _NUMBERS})
    detail["total_connections"] = stats.total_connections
    detail["connections_in"] = None if stats.connections_in is None else dict(stats.connections_in)
    detail["connections_out"] = None if stats.connections_out is None else dict(stats.connections_out)
    if stats.invalid:
        detail["invalid"] = sorted(stats.invalid)
    return json.dumps({k: v for k, v in detail.items() if v is not None}, separators=(",", ":"))


def stats_from_row(total_in: int | None, total_out: int | None, viewers: int | None, detail: str | None) -> NodeStats:
    """The reading a full-resolution row (or, with no detail, a tier bucket) stands for. The viewers column
    is playback sessions; every publisher connection (`total_connections`) is in the detail (a store written
    before the two were told apart has it in the viewers column)."""
    data = _load(detail)
    invalid = data.get("invalid")
    return NodeStats(
        created=_moment(data.get("created")),
        last_updated=_moment(data.get("last_updated")),
        total_bytes_in=total_in,
        total_bytes_out=total_out,
        connections_in=_counts(data.get("connections_in")),
        connections_out=_counts(data.get("connections_out")),
        total_connections=_integer(data["total_connections"]) if "total_connections" in data else viewers,
        max_total_connections=_integer(data.get("max_total_connections")),
        max_total_connection_time=_moment(data.get("max_total_connection_time")),
        avg_throughput_in_bps=_integer(data.get("avg_throughput_in_bps")),
        avg_throughput_out_bps=_integer(data.get("avg_throughput_out_bps")),
        max_throughput_in_bps=_integer(data.get("max_throughput_in_bps")),
        max_throughput_out_bps=_integer(data.get("max_throughput_out_bps")),
        last_throughput_in_bytes=_integer(data.get("last_throughput_in_bytes")),
        last_throughput_out_bytes=_integer(data.get("last_throughput_out_bytes")),
        last_recv=_moment(data.get("last_recv")),
        last_sent=_moment(data.get("last_sent")),
        invalid=frozenset(str(x) for x in invalid) if isinstance(invalid, list) else frozenset(),
    )


def info_json(info: StreamInfo) -> str:
    tracks = [{k: v for k, v in dataclasses.asdict(track).items() if v is not None} for track in info.tracks]
    data = {"name": info.name, "source_type": info.source_type, "source_url": info.source_url,
            "created": epoch(info.created), "tracks": tracks, "outputs": list(info.outputs),
            "playlists": [dataclasses.asdict(playlist) for playlist in info.playlists]}
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _track(data: Any) -> TrackInfo | None:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return None
    return TrackInfo(id=_integer(data.get("id")), type=data["type"], name=_text(data.get("name")),
                     codec=_text(data.get("codec")), width=_integer(data.get("width")),
                     height=_integer(data.get("height")), framerate=_number(data.get("framerate")),
                     bitrate=_integer(data.get("bitrate")), keyframe_interval=_number(data.get("keyframe_interval")),
                     samplerate=_integer(data.get("samplerate")), channels=_integer(data.get("channels")))


def _playlist(data: Any) -> PlaylistInfo | None:
    if not isinstance(data, dict):
        return None
    output, name, file_name = (_text(data.get(key)) for key in ("output", "name", "file_name"))
    if output is None or name is None or file_name is None:
        return None
    return PlaylistInfo(output=output, name=name, file_name=file_name, ts=data.get("ts") is True)


def info_from_json(text: str | None) -> StreamInfo | None:
    data = _load(text)
    if not isinstance(data.get("name"), str):
        return None
    tracks = data.get("tracks")
    outputs, playlists = data.get("outputs"), data.get("playlists")
    return StreamInfo(
        name=data["name"], source_type=_text(data.get("source_type")), source_url=_text(data.get("source_url")),
        created=_moment(data.get("created")),
        tracks=tuple(t for t in (_track(x) for x in (tracks if isinstance(tracks, list) else [])) if t is not None),
        outputs=tuple(x for x in (outputs if isinstance(outputs, list) else []) if isinstance(x, str)),
        playlists=tuple(p for p in (_playlist(x) for x in (playlists if isinstance(playlists, list) else [])[
            :MAX_PLAYLISTS]) if p is not None))

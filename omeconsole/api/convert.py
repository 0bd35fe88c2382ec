"""Wire replies to the console's model: v2 and v1 statistics, stream info, timestamps.

Every value is the server's and may be anything. Field by field: a value that is missing, of the wrong
type or out of range (negative, past 2**63, NaN, infinite, a timestamp that leaves the calendar once in
UTC) becomes None and its field is named in `NodeStats.invalid`, so one bad number shows as "invalid"
beside that field and never crashes a screen nor poisons a total. Only a reply that is not a statistics
record at all (not an object, or not one usable field) is a ProtocolError.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from omeconsole.api.errors import ProtocolError
from omeconsole.model.readings import NodeStats, StreamInfo, TrackInfo

MAX_COUNT = 2**63 - 1
"""The largest counter the server's 64-bit fields can hold; anything above is not a real reading."""
_MAX_TIME_CHARS = 64
_MAX_DIGITS = 19


def count(value: object) -> int | None:
    """A non-negative counter: an int, an integral finite float, or a decimal string; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and 0 <= value <= MAX_COUNT else None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= _MAX_DIGITS:
        return count(int(value))
    return None


def timestamp(value: object) -> datetime | None:
    """An ISO 8601 timestamp with a UTC offset that stays in the calendar in UTC; else None."""
    if not isinstance(value, str) or len(value) > _MAX_TIME_CHARS:
        return None
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            return None
        parsed.astimezone(UTC)  # 9999-12-31T23:59:59-23:59 parses, then overflows in any arithmetic
    except (ValueError, OverflowError):
        return None
    return parsed


def _connections(value: object) -> Mapping[str, int] | None:
    if not isinstance(value, dict):
        return None
    counts = {key: count(number) for key, number in value.items()}
    if not all(isinstance(key, str) and number is not None for key, number in counts.items()):
        return None
    return counts  # type: ignore[return-value]  # checked just above: no None left


class _Fields:
    """Reads one record's fields, collecting the names of those that were unusable."""

    def __init__(self) -> None:
        self.invalid: set[str] = set()
        self.valid = 0

    def _keep(self, field: str, value: Any) -> Any:
        if value is None:
            self.invalid.add(field)
        else:
            self.valid += 1
        return value

    def count(self, source: Mapping[str, object], key: str, field: str) -> int | None:
        return self._keep(field, count(source.get(key)))  # type: ignore[no-any-return]

    def time(self, source: Mapping[str, object], key: str, field: str) -> datetime | None:
        return self._keep(field, timestamp(source.get(key)))  # type: ignore[no-any-return]

    def connections(self, source: Mapping[str, object], key: str, field: str) -> Mapping[str, int] | None:
        return self._keep(field, _connections(source.get(key)))  # type: ignore[no-any-return]

    def stats(self, what: str, **values: Any) -> NodeStats:
        if self.valid == 0:
            raise ProtocolError(f"{what}: the reply is not a statistics record (no usable field)")
        return NodeStats(**values, invalid=frozenset(self.invalid))


def _record(raw: object, what: str) -> Mapping[str, object]:
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what}: the statistics record is not a JSON object")
    return raw


def _part(record: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def stats_from_v2(raw: object, what: str) -> NodeStats:
    record = _record(raw, what)
    providers, publishers = _part(record, "providers"), _part(record, "publishers")
    f = _Fields()
    return f.stats(
        what,
        created=f.time(record, "createdTime", "created"),
        last_updated=f.time(record, "lastUpdatedTime", "last_updated"),
        total_bytes_in=f.count(providers, "totalBytesIn", "total_bytes_in"),
        total_bytes_out=f.count(publishers, "totalBytesOut", "total_bytes_out"),
        connections_in=f.connections(providers, "connections", "connections_in"),
        connections_out=f.connections(publishers, "connections", "connections_out"),
        total_connections=f.count(publishers, "totalConnections", "total_connections"),
        max_total_connections=f.count(publishers, "maxTotalConnections", "max_total_connections"),
        max_total_connection_time=f.time(publishers, "maxTotalConnectionTime", "max_total_connection_time"),
        avg_throughput_in_bps=f.count(providers, "avgThroughputIn", "avg_throughput_in_bps"),
        avg_throughput_out_bps=f.count(publishers, "avgThroughputOut", "avg_throughput_out_bps"),
        max_throughput_in_bps=f.count(providers, "maxThroughputIn", "max_throughput_in_bps"),
        max_throughput_out_bps=f.count(publishers, "maxThroughputOut", "max_throughput_out_bps"),
        last_throughput_in_bytes=f.count(providers, "lastThroughputIn", "last_throughput_in_bytes"),
        last_throughput_out_bytes=f.count(publishers, "lastThroughputOut", "last_throughput_out_bytes"),
        last_recv=f.time(providers, "lastRecvTime", "last_recv"),
        last_sent=f.time(publishers, "lastSentTime", "last_sent"),
    )


def stats_from_v1(raw: object, what: str) -> NodeStats:
    """The open source record: no inbound connection counts, so connections_in is None (unknown, not
    invalid)."""
    record = _record(raw, what)
    f = _Fields()
    return f.stats(
        what,
        created=f.time(record, "createdTime", "created"),
        last_updated=f.time(record, "lastUpdatedTime", "last_updated"),
        total_bytes_in=f.count(record, "totalBytesIn", "total_bytes_in"),
        total_bytes_out=f.count(record, "totalBytesOut", "total_bytes_out"),
        connections_in=None,
        connections_out=f.connections(record, "connections", "connections_out"),
        total_connections=f.count(record, "totalConnections", "total_connections"),
        max_total_connections=f.count(record, "maxTotalConnections", "max_total_connections"),
        max_total_connection_time=f.time(record, "maxTotalConnectionTime", "max_total_connection_time"),
        avg_throughput_in_bps=f.count(record, "avgThroughputIn", "avg_throughput_in_bps"),
        avg_throughput_out_bps=f.count(record, "avgThroughputOut", "avg_throughput_out_bps"),
        max_throughput_in_bps=f.count(record, "maxThroughputIn", "max_throughput_in_bps"),
        max_throughput_out_bps=f.count(record, "maxThroughputOut", "max_throughput_out_bps"),
        last_throughput_in_bytes=f.count(record, "lastThroughputIn", "last_throughput_in_bytes"),
        last_throughput_out_bytes=f.count(record, "lastThroughputOut", "last_throughput_out_bytes"),
        last_recv=f.time(record, "lastRecvTime", "last_recv"),
        last_sent=f.time(record, "lastSentTime", "last_sent"),
    )


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    """Old servers send some numbers as strings ("2500000"); anything unreadable or absurd is unknown."""
    if isinstance(value, bool) or value is None:
        return None
    if kind is int:
        return count(value)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and 0 <= number <= MAX_COUNT else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _track(raw: Any, what: str) -> TrackInfo:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise ProtocolError(f"{what}: a track has no type")
    video: dict[str, Any] = raw["video"] if isinstance(raw.get("video"), dict) else {}
    audio: dict[str, Any] = raw["audio"] if isinstance(raw.get("audio"), dict) else {}
    media = video or audio
    return TrackInfo(
        id=_number(raw.get("id"), int),
        type=raw["type"],
        name=_text(raw.get("name")),
        codec=_text(media.get("codec")),
        width=_number(video.get("width"), int),
        height=_number(video.get("height"), int),
        framerate=_number(video.get("framerate"), float),
        bitrate=_number(media.get("bitrate"), int),
        keyframe_interval=_number(video.get("keyFrameInterval"), float),
        samplerate=_number(audio.get("samplerate"), int),
        channels=_number(audio.get("channel"), int),
    )


def stream_info_from_wire(raw: object, what: str) -> StreamInfo:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ProtocolError(f"{what}: the stream info has no name")
    source = raw.get("input")
    if not isinstance(source, dict):
        raise ProtocolError(f"{what}: the stream info has no input")
    tracks = source.get("tracks", [])
    if not isinstance(tracks, list):
        raise ProtocolError(f"{what}: input.tracks is not a list")
    outputs = raw.get("outputs", [])
    return StreamInfo(
        name=raw["name"],
        source_type=_text(source.get("sourceType")),
        source_url=_text(source.get("sourceUrl")),
        created=timestamp(source.get("createdTime")),
        tracks=tuple(_track(t, what) for t in tracks),
        outputs=tuple(o["name"] for o in outputs if isinstance(o, dict) and isinstance(o.get("name"), str))
        if isinstance(outputs, list) else (),
    )

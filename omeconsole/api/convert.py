"""Wire replies to the console's model: v2 and v1 statistics, stream info, timestamps.

Anything that does not fit (a missing field, a mistyped value, an unreadable timestamp) becomes a
ProtocolError naming the field, so a half-compatible server is reported, not crashed on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ValidationError

from omeconsole.api.errors import ProtocolError
from omeconsole.api.wire import StatsRecord, StatsRecordV1
from omeconsole.model.readings import NodeStats, StreamInfo, TrackInfo


def _fields(error: ValidationError) -> str:
    names = sorted({".".join(str(p) for p in item["loc"]) or "(the record)" for item in error.errors()})
    return ", ".join(names[:6]) + (" ..." if len(names) > 6 else "")


def parse_time(text: str, what: str) -> datetime:
    """An ISO 8601 timestamp with an offset (the server's format); ProtocolError otherwise."""
    try:
        value = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ProtocolError(f"{what}: {text!r} is not an ISO 8601 timestamp") from None
    if value.tzinfo is None:
        raise ProtocolError(f"{what}: timestamp {text!r} has no UTC offset")
    return value


def stats_from_v2(raw: object, what: str) -> NodeStats:
    try:
        record = StatsRecord.model_validate(raw)
    except ValidationError as error:
        raise ProtocolError(f"{what}: the statistics record has missing or mistyped fields: "
                            f"{_fields(error)}") from None
    providers, publishers = record.providers, record.publishers
    return NodeStats(
        created=parse_time(record.createdTime, what),
        last_updated=parse_time(record.lastUpdatedTime, what),
        total_bytes_in=providers.totalBytesIn,
        total_bytes_out=publishers.totalBytesOut,
        connections_in=dict(providers.connections),
        connections_out=dict(publishers.connections),
        total_connections=publishers.totalConnections,
        max_total_connections=publishers.maxTotalConnections,
        max_total_connection_time=parse_time(publishers.maxTotalConnectionTime, what),
        avg_throughput_in_bps=providers.avgThroughputIn,
        avg_throughput_out_bps=publishers.avgThroughputOut,
        max_throughput_in_bps=providers.maxThroughputIn,
        max_throughput_out_bps=publishers.maxThroughputOut,
        last_throughput_in_bytes=providers.lastThroughputIn,
        last_throughput_out_bytes=publishers.lastThroughputOut,
        last_recv=parse_time(providers.lastRecvTime, what),
        last_sent=parse_time(publishers.lastSentTime, what),
    )


def stats_from_v1(raw: object, what: str) -> NodeStats:
    """The open source record: no inbound connection counts, so connections_in is None (unknown)."""
    try:
        record = StatsRecordV1.model_validate(raw)
    except ValidationError as error:
        raise ProtocolError(f"{what}: the statistics record has missing or mistyped fields: "
                            f"{_fields(error)}") from None
    return NodeStats(
        created=parse_time(record.createdTime, what),
        last_updated=parse_time(record.lastUpdatedTime, what),
        total_bytes_in=record.totalBytesIn,
        total_bytes_out=record.totalBytesOut,
        connections_in=None,
        connections_out=dict(record.connections),
        total_connections=record.totalConnections,
        max_total_connections=record.maxTotalConnections,
        max_total_connection_time=parse_time(record.maxTotalConnectionTime, what),
        avg_throughput_in_bps=record.avgThroughputIn,
        avg_throughput_out_bps=record.avgThroughputOut,
        max_throughput_in_bps=record.maxThroughputIn,
        max_throughput_out_bps=record.maxThroughputOut,
        last_throughput_in_bytes=record.lastThroughputIn,
        last_throughput_out_bytes=record.lastThroughputOut,
        last_recv=parse_time(record.lastRecvTime, what),
        last_sent=parse_time(record.lastSentTime, what),
    )


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    """Old servers send some numbers as strings ("2500000"); anything unreadable is unknown."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return kind(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _track(raw: Any, what: str) -> TrackInfo:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise ProtocolError(f"{what}: a track has no type")
    video: dict[str, Any] = raw["video"] if isinstance(raw.get("video"), dict) else {}
    audio: dict[str, Any] = raw["audio"] if isinstance(raw.get("audio"), dict) else {}
    media = video or audio
    return TrackInfo(
        id=_number(raw.get("id"), int) or 0,
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
    created = source.get("createdTime")
    outputs = raw.get("outputs", [])
    return StreamInfo(
        name=raw["name"],
        source_type=_text(source.get("sourceType")),
        source_url=_text(source.get("sourceUrl")),
        created=parse_time(created, what) if isinstance(created, str) else None,
        tracks=tuple(_track(t, what) for t in tracks),
        outputs=tuple(o["name"] for o in outputs if isinstance(o, dict) and isinstance(o.get("name"), str))
        if isinstance(outputs, list) else (),
    )

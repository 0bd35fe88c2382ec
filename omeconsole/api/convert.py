"""Wire replies to the console's model: v2 and v1 statistics, stream info, timestamps.

Every value is the server's and may be anything. Field by field: a value that is missing, of the wrong
type or out of range (negative, past 2**63, NaN, infinite, a timestamp that leaves the calendar once in
UTC) becomes None and its field is named in `NodeStats.invalid`, so one bad number shows as "invalid"
beside that field and never crashes a screen nor poisons a total. Only a reply that is not a statistics
record at all (not an object, or not one usable field) is a ProtocolError.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from omeconsole.api.errors import ProtocolError
from omeconsole.model.readings import NodeStats, PlaylistInfo, StreamInfo, TrackInfo

MAX_COUNT = 2**63 - 1
"""The largest counter the server's 64-bit fields can hold; anything above is not a real reading."""
_MAX_TIME_CHARS = 64
_MAX_DIGITS = 19
SHARED_VALUES = 1024
"""Distinct timestamps and connection maps kept for sharing between readings (the least recently read go)."""


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
    return _parsed_time(value)


@functools.lru_cache(maxsize=SHARED_VALUES)
def _parsed_time(value: str) -> datetime | None:
    """One datetime per distinct string: a stream's creation and peak times, read every second for as long as
    the console keeps its readings, are the same object in each of them (datetimes are immutable)."""
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            return None
        parsed.astimezone(UTC)  # 9999-12-31T23:59:59-23:59 parses, then overflows in any arithmetic
    except (ValueError, OverflowError):
        return None
    return parsed


_shared_maps: OrderedDict[tuple[object, ...], Mapping[str, int]] = OrderedDict()
"""Keyed by the map's names and counts in one flat tuple (a tuple per pair would double an entry's size)."""


@functools.lru_cache(maxsize=64)
def _protocol(name: str) -> str:
    """One string per protocol name: a server names a dozen, in every reply, in each of the shared maps."""
    return name


def _connections(value: object) -> Mapping[str, int] | None:
    """Counts per protocol, one map (never changed once made) per distinct set of counts: a node's readings
    keep the same counts for seconds or hours, and the engine keeps ten minutes of readings per node on
    screen, so equal maps (and their protocol names, fresh strings in each JSON reply) are held once, not
    600 times."""
    if not isinstance(value, dict):
        return None
    counts: dict[str, int] = {}
    for name, number in value.items():
        parsed = count(number)
        if not isinstance(name, str) or parsed is None:
            return None
        counts[_protocol(name)] = parsed
    key = tuple(itertools.chain.from_iterable(counts.items()))
    shared = _shared_maps.get(key)
    if shared is None:
        shared = _shared_maps[key] = counts
        if len(_shared_maps) > SHARED_VALUES:
            _shared_maps.popitem(last=False)
    else:
        _shared_maps.move_to_end(key)
    return shared


Reader = Callable[[object], object]
Layout = tuple[tuple[str, str | None, str, Reader], ...]
"""Per NodeStats field: the record's section holding it (None: the top level), its wire key, its reader."""

V2_LAYOUT: Layout = (
    ("created", None, "createdTime", timestamp),
    ("last_updated", None, "lastUpdatedTime", timestamp),
    ("total_bytes_in", "providers", "totalBytesIn", count),
    ("total_bytes_out", "publishers", "totalBytesOut", count),
    ("connections_in", "providers", "connections", _connections),
    ("connections_out", "publishers", "connections", _connections),
    ("total_connections", "publishers", "totalConnections", count),
    ("max_total_connections", "publishers", "maxTotalConnections", count),
    ("max_total_connection_time", "publishers", "maxTotalConnectionTime", timestamp),
    ("avg_throughput_in_bps", "providers", "avgThroughputIn", count),
    ("avg_throughput_out_bps", "publishers", "avgThroughputOut", count),
    ("max_throughput_in_bps", "providers", "maxThroughputIn", count),
    ("max_throughput_out_bps", "publishers", "maxThroughputOut", count),
    ("last_throughput_in_bytes", "providers", "lastThroughputIn", count),
    ("last_throughput_out_bytes", "publishers", "lastThroughputOut", count),
    ("last_recv", "providers", "lastRecvTime", timestamp),
    ("last_sent", "publishers", "lastSentTime", timestamp),
)
V1_LAYOUT: Layout = tuple((field, None, key, read) for field, _, key, read in V2_LAYOUT if field != "connections_in")
"""The open source record: the same keys in one flat object, and no inbound connections."""


def _stats(raw: object, what: str, layout: Layout, **known: Any) -> NodeStats:
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what}: the statistics record is not a JSON object")
    values: dict[str, Any] = dict(known)
    invalid: set[str] = set()
    for field, section, key, read in layout:
        source = raw if section is None else raw.get(section)
        value = read(source.get(key)) if isinstance(source, dict) else None
        if value is None:
            invalid.add(field)
        values[field] = value
    if len(invalid) == len(layout):
        raise ProtocolError(f"{what}: the reply is not a statistics record (no usable field)")
    return NodeStats(**values, invalid=_field_names(frozenset(invalid)))


@functools.lru_cache(maxsize=SHARED_VALUES)
def _field_names(names: frozenset[str]) -> frozenset[str]:
    """One set per distinct set of invalid fields (almost always the empty one): even an empty frozenset is a
    new 216-byte object each time it is made, and the engine keeps ten minutes of readings."""
    return names


def stats_from_v2(raw: object, what: str) -> NodeStats:
    return _stats(raw, what, V2_LAYOUT)


def stats_from_v1(raw: object, what: str) -> NodeStats:
    """No inbound connection counts on v1: connections_in is None (unknown, not invalid)."""
    return _stats(raw, what, V1_LAYOUT, connections_in=None)


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
        playlists=_playlists(outputs),
    )


MAX_PLAYLISTS = 32
"""Playlists kept of one stream's info (a server lists a handful; a hostile one is not followed further)."""


def _playlists(outputs: object) -> tuple[PlaylistInfo, ...]:
    """Each output's playlists as the server lists them; an entry without a name or file name is left out."""
    found: list[PlaylistInfo] = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict) or not isinstance(output.get("name"), str):
            continue
        playlists = output.get("playlists")
        for raw in playlists if isinstance(playlists, list) else []:
            if len(found) >= MAX_PLAYLISTS:
                return tuple(found)
            if not isinstance(raw, dict) or not _text(raw.get("fileName")) or not isinstance(raw.get("name"), str):
                continue
            options = raw.get("options")
            ts = isinstance(options, dict) and options.get("enableTsPackaging") is True
            found.append(PlaylistInfo(output["name"], raw["name"], raw["fileName"], ts))
    return tuple(found)

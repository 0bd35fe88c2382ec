"""Reads the parts of an (LL-)HLS playlist the ad-ops confirmation needs, from the text alone.

Deliberately small and lenient: the watcher must understand a real server's playlist as well as
the simulator's, so it looks only at the tags it needs (sequence numbers, parts, server control,
program date-times, cue tags, date ranges) and ignores everything else. It keeps what general
parsers drop: a date range or cue line after the last complete segment (the LL-HLS live edge).

Playlists come from servers and are hostile until read: every step is linear in the text's length
(no regular expression that backtracks over a line), a tag line longer than `MAX_LINE_CHARS` is not
interpreted, a playlist of more than `MAX_LINES` lines is refused, and `parsed_off_loop` moves the
parse of a large text to a worker thread so that the event loop (the TUI) never waits on it.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar

MarkerKind = Literal["out", "cont", "in"]
MarkerSource = Literal["cue", "daterange"]

_ATTRIBUTE_NAME = re.compile(r"[A-Z0-9-]+")
TAIL_LINES = 40
MAX_LINE_CHARS = 16 * 1024
"""A tag line longer than this is kept as text but not interpreted (real ones are under 1 kB)."""
MAX_LINES = 200_000
"""About 40 MB of typical lines; a playlist with more is refused."""
OFF_LOOP_CHARS = 64 * 1024
"""Texts at least this long are parsed in a worker thread by `parsed_off_loop`."""
_T = TypeVar("_T")


class PlaylistError(ValueError):
    """The text is not an HLS playlist."""


@dataclass(frozen=True)
class Marker:
    """One ad-marker line, tied to the media segment it precedes."""

    kind: MarkerKind
    source: MarkerSource
    line: str
    msn: int
    """The segment the tag precedes (for a date range: the segment it is listed before)."""
    wall: datetime | None
    """The splice time: START-DATE of a date range, else PROGRAM-DATE-TIME of the segment."""
    planned_s: float | None = None
    """CUE-OUT DURATION / PLANNED-DURATION: how long the break was asked to be."""
    daterange_id: str | None = None

    @property
    def key(self) -> tuple[str, ...]:
        """Identity across reloads: the same tag in a later playlist has the same key."""
        if self.daterange_id is not None:
            return ("daterange", self.daterange_id, self.kind)
        return ("cue", self.kind, str(self.msn))


@dataclass(frozen=True)
class PartRef:
    msn: int
    index: int
    uri: str
    duration: float | None = None
    wall: datetime | None = None
    """When the part starts: its segment's PROGRAM-DATE-TIME plus the parts before it."""


@dataclass(frozen=True)
class SegmentTime:
    """One complete media segment's place in time: where a server that writes no marker shows a splice."""

    msn: int
    duration: float | None
    """Its EXTINF, in seconds."""
    wall: datetime | None
    """Its PROGRAM-DATE-TIME (when it starts)."""


@dataclass(frozen=True)
class MediaPlaylist:
    media_sequence: int
    target_duration: float | None
    part_target: float | None
    can_block_reload: bool
    ended: bool
    markers: tuple[Marker, ...]
    parts: tuple[PartRef, ...]
    segment_uris: tuple[tuple[int, str], ...]
    lines: tuple[str, ...] = field(repr=False)
    segment_times: tuple[SegmentTime, ...] = field(default=(), repr=False)
    """Every complete segment's duration and start, in playlist order."""

    @property
    def last_part(self) -> PartRef | None:
        return self.parts[-1] if self.parts else None

    @property
    def next_msn(self) -> int:
        """The sequence number the next complete segment will have."""
        return self.media_sequence + len(self.segment_uris)

    def tail(self, count: int = TAIL_LINES) -> tuple[str, ...]:
        return self.lines[-count:]


@dataclass(frozen=True)
class Variant:
    uri: str
    bandwidth: int | None
    has_video: bool


def is_multivariant(text: str) -> bool:
    return "#EXT-X-STREAM-INF" in text


def parse_attributes(text: str) -> dict[str, str]:
    """An attribute list (`NAME=value,NAME="quoted, value"`) as raw values, quotes removed.

    One left-to-right pass: each character is looked at a bounded number of times, whatever the input.
    Text that is not `NAME=` before a value (lower case, stray words) is skipped up to the next comma.
    """
    attributes: dict[str, str] = {}
    position, end = 0, len(text)
    while position < end:
        equals = text.find("=", position)
        if equals < 0:
            break
        name = text[position:equals].rpartition(",")[2].strip()
        start = equals + 1
        if start < end and text[start] == '"':
            close = text.find('"', start + 1)
            value = text[start + 1:close] if close >= 0 else text[start + 1:]
            after = end if close < 0 else close + 1
            comma = text.find(",", after)
        else:
            comma = text.find(",", start)
            value = text[start:comma if comma >= 0 else end]
        if _ATTRIBUTE_NAME.fullmatch(name):
            attributes[name] = value
        position = end if comma < 0 else comma + 1
    return attributes


async def parsed_off_loop(parse: Callable[[str], _T], text: str) -> _T:
    """`parse(text)`, in a worker thread when the text is long, so the event loop keeps running."""
    if len(text) < OFF_LOOP_CHARS:
        return parse(text)
    return await asyncio.to_thread(parse, text)


def _lines(text: str) -> list[str]:
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise PlaylistError(f"the playlist has {len(lines)} lines, more than the {MAX_LINES} read")
    return lines


def _tag_value(line: str) -> str:
    """What follows the tag's colon, or nothing for a line too long to interpret."""
    return line.partition(":")[2] if len(line) <= MAX_LINE_CHARS else ""


def parse_multivariant(text: str) -> list[Variant]:
    """The STREAM-INF entries in order (the URI line that follows each)."""
    _check_header(text)
    variants: list[Variant] = []
    pending: dict[str, str] | None = None
    for raw in _lines(text):
        line = raw.strip()
        if line.startswith("#EXT-X-STREAM-INF:"):
            pending = parse_attributes(_tag_value(line))
        elif pending is not None and line and not line.startswith("#"):
            bandwidth = pending.get("BANDWIDTH")
            codecs = pending.get("CODECS", "")
            has_video = "RESOLUTION" in pending or any(c.strip().startswith(("avc", "hvc", "hev", "av01", "vp"))
                                                       for c in codecs.split(","))
            variants.append(Variant(line, int(bandwidth) if bandwidth and bandwidth.isdigit() else None, has_video))
            pending = None
    return variants


def audio_rendition_uri(text: str) -> str | None:
    """The URI of the first audio rendition (`#EXT-X-MEDIA:TYPE=AUDIO`), where audio-only ID3 goes."""
    for raw in _lines(text):
        if raw.startswith("#EXT-X-MEDIA:"):
            attributes = parse_attributes(_tag_value(raw))
            if attributes.get("TYPE") == "AUDIO" and attributes.get("URI"):
                return attributes["URI"]
    return None


def choose_video_variant(variants: list[Variant]) -> Variant:
    """The first variant with video (the one an ad break is seen in), else the first at all."""
    if not variants:
        raise PlaylistError("the multivariant playlist lists no variants")
    return next((v for v in variants if v.has_video), variants[0])


def parse_media_playlist(text: str) -> MediaPlaylist:
    _check_header(text)
    lines = tuple(_lines(text))
    media_sequence = 0
    target: float | None = None
    part_target: float | None = None
    can_block = False
    ended = False
    pdt: dict[int, datetime] = {}
    raw_markers: list[tuple[MarkerKind, MarkerSource, str, int, datetime | None, float | None, str | None]] = []
    parts: list[PartRef] = []
    segments: list[tuple[int, str]] = []
    times: list[SegmentTime] = []
    extinf: float | None = None
    msn: int | None = None
    part_index = 0
    part_offset = 0.0
    expecting_uri = False
    for line in lines:
        if msn is None and line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            media_sequence = _int(line, media_sequence)
            continue
        current = media_sequence if msn is None else msn
        if line.startswith("#EXT-X-TARGETDURATION:"):
            target = _float(_tag_value(line))
        elif line.startswith("#EXT-X-PART-INF:"):
            part_target = _float(parse_attributes(_tag_value(line)).get("PART-TARGET", ""))
        elif line.startswith("#EXT-X-SERVER-CONTROL:"):
            can_block = parse_attributes(_tag_value(line)).get("CAN-BLOCK-RELOAD") == "YES"
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            when = date_time(_tag_value(line))
            if when is not None:
                pdt[current] = when
        elif line.startswith("#EXT-X-CUE-OUT-CONT"):
            raw_markers.append(("cont", "cue", line, current, None, _cue_duration(line), None))
        elif line.startswith("#EXT-X-CUE-OUT"):
            raw_markers.append(("out", "cue", line, current, None, _cue_duration(line), None))
        elif line.startswith("#EXT-X-CUE-IN"):
            raw_markers.append(("in", "cue", line, current, None, None, None))
        elif line.startswith("#EXT-X-DATERANGE:"):
            attributes = parse_attributes(_tag_value(line))
            kind: MarkerKind | None = (
                "out" if "SCTE35-OUT" in attributes else "in" if "SCTE35-IN" in attributes else None
            )
            if kind is not None:
                planned = _float(attributes.get("PLANNED-DURATION", attributes.get("DURATION", "")))
                raw_markers.append((kind, "daterange", line, current, date_time(attributes.get("START-DATE", "")),
                                    planned, attributes.get("ID")))
        elif line.startswith("#EXT-X-PART:"):
            attributes = parse_attributes(_tag_value(line))
            uri = attributes.get("URI")
            duration = _float(attributes.get("DURATION", ""))
            if part_index == 0:
                part_offset = 0.0
            if uri:
                wall = _shifted(pdt.get(current), part_offset)
                parts.append(PartRef(current, part_index, uri, duration, wall))
            part_offset += duration or 0.0
            msn = current
            part_index += 1
        elif line.startswith("#EXTINF"):
            msn = current
            extinf = _float(_tag_value(line).partition(",")[0])
            expecting_uri = True
        elif line.startswith("#EXT-X-ENDLIST"):
            ended = True
        elif expecting_uri and line and not line.startswith("#"):
            segments.append((current, line))
            times.append(SegmentTime(current, extinf, pdt.get(current)))
            extinf = None
            msn = current + 1
            part_index = 0
            expecting_uri = False
    markers = tuple(
        Marker(kind, source, line, at, wall if wall is not None else pdt.get(at), planned, ident)
        for kind, source, line, at, wall, planned, ident in raw_markers
    )
    return MediaPlaylist(media_sequence, target, part_target, can_block, ended, markers, tuple(parts),
                         tuple(segments), lines, tuple(times))


def _check_header(text: str) -> None:
    if not text.lstrip("\ufeff").startswith("#EXTM3U"):
        raise PlaylistError("not an HLS playlist (no #EXTM3U at the start)")


def _cue_duration(line: str) -> float | None:
    """DURATION= of CUE-OUT, Duration= of CUE-OUT-CONT, or the Elemental `CUE-OUT:30.000` form."""
    value = _tag_value(line)
    if not value:
        return None
    for name in ("DURATION", "Duration"):
        match = re.search(rf"(?:^|,){name}=([^,]*)", value)  # the whole value: `1e400` is not 1 s
        if match:
            return _float(match[1])
    if "/" in value:
        return _float(value.partition("/")[2])
    return _float(value)


def _int(line: str, default: int) -> int:
    """A decimal-integer tag value (at most 18 digits, as the specification bounds it below 2**64)."""
    value = _tag_value(line).strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else default


def _float(value: str) -> float | None:
    """A finite number of at most 64 characters; anything else (NaN, inf, 10^400, words) is unknown."""
    if len(value) > 64:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and abs(number) < 1e12 else None


def _shifted(start: datetime | None, seconds: float) -> datetime | None:
    """`start` plus `seconds`, or None when there is no start or the sum leaves the calendar."""
    if start is None:
        return None
    try:
        return start + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return None


def date_time(value: str) -> datetime | None:
    """An ISO 8601 date-time in UTC; None when unreadable or outside the calendar once in UTC."""
    if len(value) > 64:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        # The specification reads a date-time without a zone as UTC.
        return parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None

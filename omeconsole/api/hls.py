"""Reads the parts of an (LL-)HLS playlist the ad-ops confirmation needs, from the text alone.

Deliberately small and lenient: the watcher must understand a real server's playlist as well as
the simulator's, so it looks only at the tags it needs (sequence numbers, parts, server control,
program date-times, cue tags, date ranges) and ignores everything else. It keeps what general
parsers drop: a date range or cue line after the last complete segment (the LL-HLS live edge).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

MarkerKind = Literal["out", "cont", "in"]
MarkerSource = Literal["cue", "daterange"]

_ATTRIBUTE = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')
TAIL_LINES = 40


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
    """An attribute list as raw values, quotes removed from quoted strings."""
    return {name: value[1:-1] if value.startswith('"') else value for name, value in _ATTRIBUTE.findall(text)}


def parse_multivariant(text: str) -> list[Variant]:
    """The STREAM-INF entries in order (the URI line that follows each)."""
    _check_header(text)
    variants: list[Variant] = []
    pending: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#EXT-X-STREAM-INF:"):
            pending = parse_attributes(line.partition(":")[2])
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
    for raw in text.splitlines():
        if raw.startswith("#EXT-X-MEDIA:"):
            attributes = parse_attributes(raw.partition(":")[2])
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
    lines = tuple(raw.rstrip("\r") for raw in text.splitlines())
    media_sequence = 0
    target: float | None = None
    part_target: float | None = None
    can_block = False
    ended = False
    pdt: dict[int, datetime] = {}
    raw_markers: list[tuple[MarkerKind, MarkerSource, str, int, datetime | None, float | None, str | None]] = []
    parts: list[PartRef] = []
    segments: list[tuple[int, str]] = []
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
            target = _float(line.partition(":")[2])
        elif line.startswith("#EXT-X-PART-INF:"):
            part_target = _float(parse_attributes(line.partition(":")[2]).get("PART-TARGET", ""))
        elif line.startswith("#EXT-X-SERVER-CONTROL:"):
            can_block = parse_attributes(line.partition(":")[2]).get("CAN-BLOCK-RELOAD") == "YES"
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            when = _datetime(line.partition(":")[2])
            if when is not None:
                pdt[current] = when
        elif line.startswith("#EXT-X-CUE-OUT-CONT"):
            raw_markers.append(("cont", "cue", line, current, None, _cue_duration(line), None))
        elif line.startswith("#EXT-X-CUE-OUT"):
            raw_markers.append(("out", "cue", line, current, None, _cue_duration(line), None))
        elif line.startswith("#EXT-X-CUE-IN"):
            raw_markers.append(("in", "cue", line, current, None, None, None))
        elif line.startswith("#EXT-X-DATERANGE:"):
            attributes = parse_attributes(line.partition(":")[2])
            kind: MarkerKind | None = (
                "out" if "SCTE35-OUT" in attributes else "in" if "SCTE35-IN" in attributes else None
            )
            if kind is not None:
                planned = _float(attributes.get("PLANNED-DURATION", attributes.get("DURATION", "")))
                raw_markers.append((kind, "daterange", line, current, _datetime(attributes.get("START-DATE", "")),
                                    planned, attributes.get("ID")))
        elif line.startswith("#EXT-X-PART:"):
            attributes = parse_attributes(line.partition(":")[2])
            uri = attributes.get("URI")
            duration = _float(attributes.get("DURATION", ""))
            if part_index == 0:
                part_offset = 0.0
            if uri:
                start = pdt.get(current)
                wall = start + timedelta(seconds=part_offset) if start is not None else None
                parts.append(PartRef(current, part_index, uri, duration, wall))
            part_offset += duration or 0.0
            msn = current
            part_index += 1
        elif line.startswith("#EXTINF"):
            msn = current
            expecting_uri = True
        elif line.startswith("#EXT-X-ENDLIST"):
            ended = True
        elif expecting_uri and line and not line.startswith("#"):
            segments.append((current, line))
            msn = current + 1
            part_index = 0
            expecting_uri = False
    markers = tuple(
        Marker(kind, source, line, at, wall if wall is not None else pdt.get(at), planned, ident)
        for kind, source, line, at, wall, planned, ident in raw_markers
    )
    return MediaPlaylist(media_sequence, target, part_target, can_block, ended, markers, tuple(parts),
                         tuple(segments), lines)


def _check_header(text: str) -> None:
    if not text.lstrip("\ufeff").startswith("#EXTM3U"):
        raise PlaylistError("not an HLS playlist (no #EXTM3U at the start)")


def _cue_duration(line: str) -> float | None:
    """DURATION= of CUE-OUT, Duration= of CUE-OUT-CONT, or the Elemental `CUE-OUT:30.000` form."""
    value = line.partition(":")[2]
    if not value:
        return None
    for name in ("DURATION", "Duration"):
        match = re.search(rf"(?:^|,){name}=([0-9.]+)", value)
        if match:
            return _float(match[1])
    if "/" in value:
        return _float(value.partition("/")[2])
    return _float(value)


def _int(line: str, default: int) -> int:
    value = line.partition(":")[2].strip()
    return int(value) if value.isdigit() else default


def _float(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _datetime(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    # The specification reads a date-time without a zone as UTC.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)

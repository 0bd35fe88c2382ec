"""HLS version 3 (MPEG-TS) playlists in the real server's layout, with the ad markers of DECISIONS.md.

The cue and date-range lines are built here once (`cue_tag_line`, `daterange_line`) so that LL-HLS
writes byte-identical tags: the specification wants every rendition to carry the same date ranges.
Everything is a pure function of the Segments the timeline computed; nothing here keeps state.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.media.model import CueTag, DateRange, Segment
from simulator.world.timefmt import iso8601_ms

PLAYLIST_CONTENT_TYPE = "application/vnd.apple.mpegurl"
_SEGMENT_NAME = re.compile(r"^seg_(?P<variant>[A-Za-z0-9_-]+)_(?P<msn>0|[1-9][0-9]{0,17})_hls\.ts$")
_PLAYLIST_NAME = re.compile(r"^medialist_(?P<variant>[A-Za-z0-9_-]+)_hls\.m3u8$")
_VARIANT = re.compile(r"^[A-Za-z0-9_-]+$")
_SCTE35_HEX = re.compile(r"^0x(?:[0-9A-F]{2})+$")


def media_playlist_name(variant: str) -> str:
    """`medialist_<variant>_hls.m3u8`, the real server's HLSv3 media playlist name."""
    _check_variant(variant)
    return f"medialist_{variant}_hls.m3u8"


def segment_file_name(variant: str, msn: int) -> str:
    """`seg_<variant>_<msn>_hls.ts`, the real server's HLSv3 segment name."""
    _check_variant(variant)
    if msn < 0:
        raise ValueError(f"media sequence number must be >= 0, got {msn}")
    return f"seg_{variant}_{msn}_hls.ts"


def parse_segment_file_name(name: str) -> tuple[str, int] | None:
    """(variant, msn) of a `seg_<variant>_<msn>_hls.ts` name; None for anything else (answer 404)."""
    match = _SEGMENT_NAME.match(name)
    if match is None:
        return None
    return match["variant"], int(match["msn"])


def parse_media_playlist_name(name: str) -> str | None:
    """The variant of a `medialist_<variant>_hls.m3u8` name; None for anything else."""
    match = _PLAYLIST_NAME.match(name)
    return None if match is None else match["variant"]


def cue_tag_line(cue: CueTag) -> str:
    """The ad-marker line of DECISIONS.md for one CueTag (no newline); seconds with 3 decimals."""
    if cue.kind == "out":
        return f"#EXT-X-CUE-OUT:DURATION={_seconds(cue.planned_ms)}"
    if cue.kind == "cont":
        elapsed, planned = _seconds(cue.elapsed_ms), _seconds(cue.planned_ms)
        return f"#EXT-X-CUE-OUT-CONT:ElapsedTime={elapsed},Duration={planned}"
    return "#EXT-X-CUE-IN"


def daterange_line(daterange: DateRange) -> str:
    """One `#EXT-X-DATERANGE` line (no newline): ID, START-DATE, then whichever of PLANNED-DURATION,
    DURATION, SCTE35-OUT, SCTE35-IN the DateRange has, in that order.

    Raises ValueError for an ID the quoted-string grammar forbids or an SCTE-35 payload that is not
    `0x` + uppercase hex, because a malformed tag would make players drop the whole range.
    """
    if not daterange.id or any(ch in daterange.id for ch in '"\r\n'):
        raise ValueError(f"invalid EXT-X-DATERANGE ID {daterange.id!r}")
    attributes = [f'ID="{daterange.id}"', f'START-DATE="{iso8601_ms(daterange.start_wall_ms)}"']
    if daterange.planned_ms is not None:
        attributes.append(f"PLANNED-DURATION={_seconds(daterange.planned_ms)}")
    if daterange.duration_ms is not None:
        attributes.append(f"DURATION={_seconds(daterange.duration_ms)}")
    for name, payload in (("SCTE35-OUT", daterange.scte35_out), ("SCTE35-IN", daterange.scte35_in)):
        if payload is None:
            continue
        if not _SCTE35_HEX.match(payload):
            raise ValueError(f"{name} must be 0x followed by uppercase hex, got {payload[:16]!r}")
        attributes.append(f"{name}={payload}")
    return "#EXT-X-DATERANGE:" + ",".join(attributes)


def render_media_playlist(
    segments: Sequence[Segment],
    *,
    variant: str,
    segment_count: int,
    target_duration: int,
    ended: bool = False,
    uri_query: str = "",
) -> str:
    """The HLSv3 media playlist (`medialist_<variant>_hls.m3u8`) for a sliding window.

    `segments` are in msn order. Incomplete ones (the segment still being produced) are skipped: a TS
    playlist lists only finished segments. The window is the last `segment_count` complete segments;
    older segments may be passed too, and their date ranges are kept (at the top) while the range
    still covers part of the window, as the specification requires. A range's end is START-DATE plus
    the DURATION of any tag with its ID; without one it is still open and kept.

    Per segment: DATERANGE lines announced with it, its cue tag, `#EXT-X-PROGRAM-DATE-TIME`,
    `#EXTINF:%.3f,`, the URI `seg_<variant>_<msn>_hls.ts` (plus `?<uri_query>` if given). Date
    ranges announced with the segment in progress follow the last segment (a date range is not bound
    to a segment), so a TS player learns of a break as soon as an LL-HLS player does, not a segment
    later; once that segment is complete they move in front of it.
    TARGETDURATION is `target_duration`, raised to the longest rounded EXTINF if a segment is longer
    (a playlist that breaks the EXTINF <= TARGETDURATION rule is rejected by strict players).
    `ended` appends `#EXT-X-ENDLIST`.
    """
    _check_variant(variant)
    if segment_count < 1:
        raise ValueError(f"segment_count must be >= 1, got {segment_count}")
    complete = [segment for segment in segments if segment.complete]
    window = complete[-segment_count:]
    older = complete[: len(complete) - len(window)]
    longest = max((math.floor(segment.duration_s + 0.5) for segment in window), default=0)
    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        f"#EXT-X-TARGETDURATION:{max(target_duration, longest)}",
        f"#EXT-X-MEDIA-SEQUENCE:{window[0].msn if window else _next_msn(segments)}",
    ]
    if window:
        lines.extend(daterange_line(d) for d in _still_covering(older, window[0].start_wall_ms))
    suffix = f"?{uri_query}" if uri_query else ""
    for segment in window:
        lines.extend(daterange_line(d) for d in segment.dateranges)
        lines.extend(cue_tag_line(cue) for cue in segment.cues)
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{iso8601_ms(segment.start_wall_ms)}")
        lines.append(f"#EXTINF:{segment.duration_s:.3f},")
        lines.append(segment_file_name(variant, segment.msn) + suffix)
    lines.extend(daterange_line(d) for segment in segments if not segment.complete for d in segment.dateranges)
    if ended:
        lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class TsVariant:
    """One `#EXT-X-STREAM-INF` entry of `ts:playlist.m3u8`."""

    name: str
    """The `<variant>` of its media playlist and segment names."""
    bandwidth: int
    """Peak bits per second."""
    codecs: str
    """RFC 6381 list, e.g. from `codecs_attribute`."""
    resolution: tuple[int, int] | None = None
    frame_rate: float | None = None
    average_bandwidth: int | None = None
    """AVERAGE-BANDWIDTH, written after BANDWIDTH when known (the captured 0.19.0 writes the input's rate)."""


def render_multivariant_playlist(variants: Sequence[TsVariant], *, uri_query: str = "") -> str:
    """`ts:playlist.m3u8` (also served as `playlist.m3u8?format=ts`): one STREAM-INF per variant,
    pointing at `medialist_<variant>_hls.m3u8` (plus `?<uri_query>` if given)."""
    if not variants:
        raise ValueError("a multivariant playlist needs at least one variant")
    suffix = f"?{uri_query}" if uri_query else ""
    lines = ["#EXTM3U", "#EXT-X-VERSION:3"]
    for variant in variants:
        if variant.bandwidth <= 0:
            raise ValueError(f"bandwidth must be > 0, got {variant.bandwidth}")
        attributes = [f"BANDWIDTH={variant.bandwidth}"]
        if variant.average_bandwidth is not None:
            attributes.append(f"AVERAGE-BANDWIDTH={variant.average_bandwidth}")
        if variant.resolution is not None:
            attributes.append(f"RESOLUTION={variant.resolution[0]}x{variant.resolution[1]}")
        if variant.frame_rate is not None:
            attributes.append(f"FRAME-RATE={variant.frame_rate:.3f}")
        attributes.append(f'CODECS="{variant.codecs}"')
        lines.append("#EXT-X-STREAM-INF:" + ",".join(attributes))
        lines.append(media_playlist_name(variant.name) + suffix)
    return "\n".join(lines) + "\n"


def codecs_attribute(sps: bytes, audio_specific_config: bytes | None) -> str:
    """The CODECS value for H.264 (`avc1.PPCCLL` from the SPS) and, with audio, AAC (`mp4a.40.<aot>`)."""
    if len(sps) < 4 or sps[0] & 0x1F != 7:
        raise ValueError("not an H.264 sequence parameter set (SPS) NAL unit")
    codecs = f"avc1.{sps[1]:02x}{sps[2]:02x}{sps[3]:02x}"
    if audio_specific_config is not None:
        if not audio_specific_config:
            raise ValueError("empty AudioSpecificConfig")
        codecs += f",mp4a.40.{audio_specific_config[0] >> 3}"
    return codecs


def _still_covering(older: Sequence[Segment], window_start_ms: int) -> list[DateRange]:
    """Date ranges announced before the window whose range has not ended before the window starts."""
    announced = [d for segment in older for d in segment.dateranges]
    ends: dict[str, int] = {}
    for daterange in announced:
        if daterange.duration_ms is not None:
            ends[daterange.id] = daterange.start_wall_ms + daterange.duration_ms
    return [d for d in announced if ends.get(d.id, math.inf) > window_start_ms]


def _next_msn(segments: Sequence[Segment]) -> int:
    return segments[0].msn if segments else 0


def _seconds(milliseconds: int) -> str:
    if milliseconds < 0:
        raise ValueError(f"negative duration {milliseconds} ms")
    return f"{milliseconds // 1000}.{milliseconds % 1000:03d}"


def _check_variant(variant: str) -> None:
    if not _VARIANT.match(variant):
        raise ValueError(f"variant names are letters, digits, '-' and '_', got {variant!r}")

"""LL-HLS playlists in the real server's layout (reference §6): `llhls.m3u8` (multivariant) and one
chunklist per track, with the file names OME uses. Cue and date-range lines come from the HLS writer
so that both protocols carry byte-identical markers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from simulator.media.hls_playlist import cue_tag_line, daterange_line
from simulator.media.layout import Layout
from simulator.media.model import VIDEO_TIMESCALE, DateRange, Segment, TrackKind
from simulator.media.timeline import Snapshot
from simulator.world.timefmt import iso8601_ms

TRACK_IDS: dict[TrackKind, int] = {"video": 0, "audio": 1}
PARTS_LISTED_SEGMENTS = 3
"""Parts are listed for the newest segments only, as the real server does."""

_TRACK = r"(?P<tid>[01])_(?P<track>video|audio)"
_NAMES = {
    "chunklist": re.compile(rf"^chunklist_{_TRACK}_(?P<key>[a-z0-9]{{8}})_llhls\.m3u8$"),
    "init": re.compile(rf"^init_{_TRACK}_(?P<key>[a-z0-9]{{8}})_llhls\.m4s$"),
    "seg": re.compile(r"^seg_(?P<tid>[01])_(?P<msn>[0-9]{1,12})_(?P<track>video|audio)_"
                      r"(?P<key>[a-z0-9]{8})_llhls\.m4s$"),
    "part": re.compile(r"^part_(?P<tid>[01])_(?P<msn>[0-9]{1,12})_(?P<index>[0-9]{1,6})_(?P<track>video|audio)_"
                       r"(?P<key>[a-z0-9]{8})_llhls\.m4s$"),
}


@dataclass(frozen=True)
class FileRef:
    """What an LL-HLS file name points at."""

    kind: str
    """chunklist, init, seg or part."""
    track: TrackKind
    key: str
    msn: int = -1
    index: int = -1


def chunklist_name(track: TrackKind, key: str) -> str:
    return f"chunklist_{TRACK_IDS[track]}_{track}_{key}_llhls.m3u8"


def init_name(track: TrackKind, key: str) -> str:
    return f"init_{TRACK_IDS[track]}_{track}_{key}_llhls.m4s"


def segment_name(track: TrackKind, key: str, msn: int) -> str:
    return f"seg_{TRACK_IDS[track]}_{msn}_{track}_{key}_llhls.m4s"


def part_name(track: TrackKind, key: str, msn: int, index: int) -> str:
    return f"part_{TRACK_IDS[track]}_{msn}_{index}_{track}_{key}_llhls.m4s"


def parse_name(name: str) -> FileRef | None:
    """The file an LL-HLS name refers to, or None (answer 404). Names are matched in full."""
    for kind, pattern in _NAMES.items():
        match = pattern.match(name)
        if match is None:
            continue
        track: TrackKind = "video" if match["track"] == "video" else "audio"
        if TRACK_IDS[track] != int(match["tid"]):
            return None
        groups = match.groupdict()
        return FileRef(kind, track, match["key"], int(groups.get("msn") or -1), int(groups.get("index") or -1))
    return None


def multivariant(key: str, *, codecs: tuple[str, str], resolution: tuple[int, int], bandwidth: int) -> str:
    """`llhls.m3u8`: the video chunklist as the variant, the audio chunklist as its audio rendition."""
    video_codec, audio_codec = codecs
    return "\n".join([
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio_0",NAME="audio_0",DEFAULT=YES,AUTOSELECT=YES,'
        f'URI="{chunklist_name("audio", key)}"',
        f"#EXT-X-STREAM-INF:BANDWIDTH={bandwidth},RESOLUTION={resolution[0]}x{resolution[1]},"
        f'FRAME-RATE=30.000,CODECS="{video_codec},{audio_codec}",AUDIO="audio_0"',
        chunklist_name("video", key),
    ]) + "\n"


def captured_multivariant(path: str, key: str, *, codecs: tuple[str, str], resolution: tuple[int, int],
                          bandwidth: int, channels: int) -> str:
    """`llhls.m3u8` as the captured 0.19.0 writes it: chunklist URIs absolute (`path` is `/{app}/{stream}/`),
    the audio rendition `bypass_audio` / `Audio_1` with its CHANNELS, two empty lines before the variant,
    whose BANDWIDTH is the input's bitrate."""
    video_codec, audio_codec = codecs
    return "\n".join([
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="bypass_audio",NAME="Audio_1",DEFAULT=YES,AUTOSELECT=YES,'
        f'CHANNELS="{channels}",URI="{path}{chunklist_name("audio", key)}"',
        "",
        "",
        f"#EXT-X-STREAM-INF:BANDWIDTH={bandwidth},RESOLUTION={resolution[0]}x{resolution[1]},"
        f'FRAME-RATE=30.000,CODECS="{video_codec},{audio_codec}",AUDIO="bypass_audio"',
        path + chunklist_name("video", key),
    ]) + "\n"


def chunklist(snapshot: Snapshot, layout: Layout, track: TrackKind, key: str, *, captured: bool = False) -> str:
    """One track's media playlist at its snapshot (OME tag order; the other track as rendition report).
    Every part and segment states its own duration, which is the media's: audio parts of whole AAC
    frames are a little shorter than video parts, and an audio segment a little shorter or longer.

    `captured`: as the captured 0.19.0 writes it: each track's PART-TARGET its own longest part, PART-HOLD-BACK
    three times the longest of either track (the same in both chunklists), and no RENDITION-REPORT."""
    window = snapshot.window
    hold_back = 3 * layout.part_target
    part_target = layout.part_target
    if captured:
        part_target = layout.grid(track).part_ticks / VIDEO_TIMESCALE
        hold_back = 3 * max(layout.video.part_ticks, layout.audio.part_ticks) / VIDEO_TIMESCALE
    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        f"#EXT-X-TARGETDURATION:{layout.target_duration}",
        f"#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK={hold_back:.6f}",
        f"#EXT-X-PART-INF:PART-TARGET={part_target:.6f}",
        f"#EXT-X-MEDIA-SEQUENCE:{window[0].msn if window else snapshot.hint[0]}",
        f'#EXT-X-MAP:URI="{init_name(track, key)}"',
    ]
    if window:
        lines.extend(daterange_line(d) for d in _still_covering(snapshot, window[0].start_wall_ms))
    with_parts = {segment.msn for segment in window[-PARTS_LISTED_SEGMENTS:]}
    for segment in window:
        lines.extend(_segment_lines(segment, track, key, segment.msn in with_parts))
    lines.append(f'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="{part_name(track, key, *snapshot.hint)}"')
    other: TrackKind = "audio" if track == "video" else "video"
    if snapshot.report[0] >= 0 and not captured:
        lines.append(f'#EXT-X-RENDITION-REPORT:URI="{chunklist_name(other, key)}",'
                     f"LAST-MSN={snapshot.report[0]},LAST-PART={snapshot.report[1]}")
    return "\n".join(lines) + "\n"


def _segment_lines(segment: Segment, track: TrackKind, key: str, with_parts: bool) -> list[str]:
    lines = [daterange_line(d) for d in segment.dateranges]
    lines.extend(cue_tag_line(cue) for cue in segment.cues)
    lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{iso8601_ms(segment.start_wall_ms)}")
    if with_parts:
        for part in segment.parts:
            independent = ",INDEPENDENT=YES" if part.independent else ""
            lines.append(f'#EXT-X-PART:DURATION={part.duration_s:.6f},'
                         f'URI="{part_name(track, key, part.msn, part.index)}"{independent}')
    if segment.complete:
        lines.append(f"#EXTINF:{segment.duration_s:.6f},")
        lines.append(segment_name(track, key, segment.msn))
    return lines


def _still_covering(snapshot: Snapshot, window_start_ms: int) -> list[DateRange]:
    """Date ranges announced before the window that still cover part of it (the spec forbids
    removing them earlier); a range without a known end is kept."""
    announced = [d for segment in snapshot.segments[:snapshot.window_start] for d in segment.dateranges]
    ends = {d.id: d.start_wall_ms + d.duration_ms for d in announced if d.duration_ms is not None}
    return [d for d in announced if ends.get(d.id, math.inf) > window_start_ms]

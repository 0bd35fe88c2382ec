"""The pure confirmation matcher: fed playlists and part bytes, it decides seen / not yet / not seen in time.

No I/O and no clock: each test builds the playlists a server would serve (parsed by the api's parser)
and the parts (an `emsg` box written here by hand around an ID3 tag written by mutagen).
"""

from __future__ import annotations

import io
import struct
from datetime import UTC, datetime, timedelta

from mutagen.id3 import ID3, PRIV, TIT2, TXXX

from omeconsole.api.emsg import DecodedFrame
from omeconsole.api.hls import parse_media_playlist
from omeconsole.core.adops.matcher import ConfirmationMatcher, Expectation, expected_frames, playlist_break

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
SCHEME = "https://aomedia.org/emsg/ID3"


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds")


def chunklist(first_msn: int, segments: int, *, markers: dict[int, list[str]] | None = None,
              parts_of_last: int = 2) -> str:
    """A live LL-HLS chunklist: 6 s segments from T0 + 6 s x msn, marker lines before given segments."""
    lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:6", "#EXT-X-PART-INF:PART-TARGET=0.5",
             "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5", f"#EXT-X-MEDIA-SEQUENCE:{first_msn}"]
    for msn in range(first_msn, first_msn + segments + 1):
        lines += (markers or {}).get(msn, [])
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{_iso(T0 + timedelta(seconds=6 * msn))}")
        if msn == first_msn + segments:  # the live edge: parts only
            lines += [f'#EXT-X-PART:DURATION=0.5,URI="part_{msn}_{i}.m4s"' for i in range(parts_of_last)]
        else:
            lines += ["#EXTINF:6.0,", f"seg_{msn}.m4s"]
    return "\n".join(lines) + "\n"


def cue_out(msn: int, duration: float = 30.0) -> list[str]:
    start = _iso(T0 + timedelta(seconds=6 * msn))
    return [f'#EXT-X-DATERANGE:ID="{msn}",START-DATE="{start}",PLANNED-DURATION={duration:.3f},SCTE35-OUT=0xFC',
            f"#EXT-X-CUE-OUT:DURATION={duration:.3f}"]


def part_with_id3(*frames: object) -> bytes:
    tag = ID3()
    for frame in frames:
        tag.add(frame)  # type: ignore[arg-type]
    buffer = io.BytesIO()
    tag.save(buffer, v2_version=4)
    message = buffer.getvalue()
    payload = (b"\x01\x00\x00\x00" + struct.pack(">IQII", 1000, 123_000, 0, 7) + SCHEME.encode() + b"\x00"
               + b"\x00" + message)
    emsg = struct.pack(">I4s", 8 + len(payload), b"emsg") + payload
    moof = struct.pack(">I4s", 8, b"moof")
    return emsg + moof


def expectation(kind: str, *, at: float = 100.0, wall: datetime, baseline: bool, timeout: float = 10.0,
                frames: tuple[DecodedFrame, ...] = (), send_id: str = "s1") -> Expectation:
    return Expectation(send_id, kind, at, wall, at + timeout, baseline, frames)  # type: ignore[arg-type]


def test_a_new_marker_after_the_baseline_is_seen_with_its_delay_and_line() -> None:
    matcher = ConfirmationMatcher()
    assert matcher.on_playlist(parse_media_playlist(chunklist(10, 3, markers={11: cue_out(11)})), 99.0) == []
    matcher.expect(expectation("cue-out", wall=T0 + timedelta(seconds=80), baseline=True))
    # The old break is still listed: it is not this send's.
    assert matcher.on_playlist(parse_media_playlist(chunklist(10, 3, markers={11: cue_out(11)})), 100.5) == []
    later = chunklist(11, 3, markers={11: cue_out(11), 14: cue_out(14, 60)})
    [sighting] = matcher.on_playlist(parse_media_playlist(later), 102.25)
    assert sighting.seen and sighting.seen_after_s == 2.25 and sighting.detail == "seen in playlist after 2.2 s"
    assert sighting.line is not None and sighting.line.startswith("#EXT-X-DATERANGE:ID=\"14\"")
    assert sighting.splice_wall == T0 + timedelta(seconds=84)
    assert matcher.pending == () and matcher.next_deadline() is None


def test_without_a_baseline_only_a_marker_splicing_after_the_send_counts() -> None:
    matcher = ConfirmationMatcher()
    sent = T0 + timedelta(seconds=70)
    matcher.expect(expectation("cue-out", wall=sent, baseline=False))
    old = chunklist(10, 3, markers={11: cue_out(11)})  # spliced at 66 s, 4 s before the send
    assert matcher.on_playlist(parse_media_playlist(old), 101.0) == []
    assert len(matcher.pending) == 1
    new = chunklist(10, 3, markers={11: cue_out(11), 12: cue_out(12)})  # 72 s: after the send
    [sighting] = matcher.on_playlist(parse_media_playlist(new), 101.5)
    assert sighting.seen and sighting.splice_wall == T0 + timedelta(seconds=72)


def test_a_cue_in_is_matched_only_by_a_cue_in() -> None:
    matcher = ConfirmationMatcher()
    matcher.on_playlist(parse_media_playlist(chunklist(10, 2)), 99.0)
    matcher.expect(expectation("cue-in", wall=T0, baseline=True))
    assert matcher.on_playlist(parse_media_playlist(chunklist(10, 3, markers={12: cue_out(12)})), 100.2) == []
    with_in = chunklist(10, 3, markers={12: cue_out(12), 13: ["#EXT-X-CUE-IN"]})
    [sighting] = matcher.on_playlist(parse_media_playlist(with_in), 100.7)
    assert sighting.kind == "cue-in" and sighting.line == "#EXT-X-CUE-IN"


def test_deadlines_give_not_seen_with_the_reason_and_nothing_early() -> None:
    matcher = ConfirmationMatcher()
    matcher.expect(expectation("cue-out", wall=T0, baseline=True, timeout=4, send_id="a"))
    matcher.expect(expectation("id3", at=101.0, wall=T0, baseline=True, timeout=4, send_id="b"))
    assert matcher.next_deadline() == 104.0
    assert matcher.expire(103.99) == []
    [first] = matcher.expire(104.0, "publisher unreachable")
    assert (first.send_id, first.seen) == ("a", False)
    assert first.detail == "cue-out in the playlist not seen within 4 s (publisher unreachable)"
    assert matcher.next_deadline() == 105.0
    [second] = matcher.expire(105.0)
    assert second.detail == "ID3 in the media not seen within 4 s" and matcher.next_deadline() is None


def test_id3_is_matched_from_part_bytes_in_any_frame_order_and_only_new_parts_are_asked_for() -> None:
    matcher = ConfirmationMatcher()
    first = parse_media_playlist(chunklist(10, 2, parts_of_last=2))
    matcher.on_playlist(first, 99.0)
    assert matcher.parts_to_scan(first) == []  # nothing waits: parts are only remembered
    sent = expected_frames([("txxx", "adId", "spot-42 ünïcode"), ("TIT2", None, "Song"), ("PRIV", "com.x", "p")])
    matcher.expect(expectation("id3", wall=T0, baseline=True, frames=sent))
    later = parse_media_playlist(chunklist(10, 2, parts_of_last=4))
    assert [p.uri for p in matcher.parts_to_scan(later)] == ["part_12_2.m4s", "part_12_3.m4s"]
    assert matcher.parts_to_scan(later) == []  # asked for once
    other = part_with_id3(TIT2(encoding=3, text=["Other song"]))
    tags, sightings = matcher.on_part("part_12_2.m4s", other, 100.5)
    assert [t.frames for t in tags] == [(DecodedFrame("TIT2", None, "Other song"),)] and sightings == []
    ours = part_with_id3(PRIV(owner="com.x", data=b"p"), TIT2(encoding=3, text=["Song"]),
                         TXXX(encoding=3, desc="adId", text=["spot-42 ünïcode"]))
    tags, [sighting] = matcher.on_part("part_12_3.m4s", ours, 101.0)
    assert sighting.seen and sighting.seen_after_s == 1.0 and tags[0].part_uri == "part_12_3.m4s"
    assert matcher.on_part("bad.m4s", b"\x00\x00\x00\x30emsg-truncated", 101.5) == ([], [])


def test_without_a_baseline_parts_that_ended_before_the_send_are_not_scanned() -> None:
    matcher = ConfirmationMatcher()
    sent_wall = T0 + timedelta(seconds=6 * 12 + 0.6)
    matcher.expect(expectation("id3", wall=sent_wall - timedelta(seconds=3), baseline=False,
                               frames=expected_frames([("TIT2", None, "x")])))
    playlist = parse_media_playlist(chunklist(10, 2, parts_of_last=4))
    # Parts of segment 12 start at 72.0, 72.5, 73.0, 73.5 s; the send was at 69.6 s, less 2 s of slack.
    assert [p.uri for p in matcher.parts_to_scan(playlist)] == [f"part_12_{i}.m4s" for i in range(4)]
    matcher2 = ConfirmationMatcher()
    matcher2.expect(expectation("id3", wall=T0 + timedelta(seconds=80), baseline=False,
                                frames=expected_frames([("TIT2", None, "x")])))
    assert matcher2.parts_to_scan(playlist) == []  # every listed part ended before 78 s


def test_the_latest_break_in_a_playlist_and_whether_it_ended() -> None:
    assert playlist_break(parse_media_playlist(chunklist(10, 3))) is None
    on_air = playlist_break(parse_media_playlist(chunklist(10, 3, markers={11: cue_out(11, 45)})))
    assert on_air is not None and not on_air.ended and on_air.planned_s == 45.0
    assert on_air.splice_wall == T0 + timedelta(seconds=66)
    over = playlist_break(parse_media_playlist(
        chunklist(10, 3, markers={11: cue_out(11), 12: ["#EXT-X-CUE-IN"]})))
    assert over is not None and over.ended

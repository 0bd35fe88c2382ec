"""Reading LL-HLS playlist text: markers with their splice time, parts, server control, variants."""

from __future__ import annotations

from datetime import UTC, datetime

import m3u8
import pytest

from omeconsole.api.hls import (
    PlaylistError,
    choose_video_variant,
    parse_media_playlist,
    parse_multivariant,
)
from omeconsole.api.publisher import default_publisher_url, playlist_url
from omeconsole.core.config import Settings

LLHLS = """#EXTM3U
#EXT-X-VERSION:6
#EXT-X-TARGETDURATION:6
#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.500
#EXT-X-PART-INF:PART-TARGET=0.500
#EXT-X-MEDIA-SEQUENCE:10
#EXT-X-MAP:URI="init_0_llhls.m4s"
#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:00.000+00:00
#EXTINF:6.000,
seg_0_10_llhls.m4s
#EXT-X-DATERANGE:ID="break-1",START-DATE="2026-01-01T00:01:06.000+00:00",PLANNED-DURATION=30.000,SCTE35-OUT=0xFC30
#EXT-X-CUE-OUT:DURATION=30.000
#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:06.000+00:00
#EXT-X-PART:DURATION=0.500,URI="part_0_11_0_llhls.m4s",INDEPENDENT=YES
#EXT-X-PART:DURATION=0.500,URI="part_0_11_1_llhls.m4s"
#EXTINF:1.000,
seg_0_11_llhls.m4s
#EXT-X-CUE-OUT-CONT:ElapsedTime=1.000,Duration=30.000
#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:07.000+00:00
#EXT-X-PART:DURATION=0.500,URI="part_0_12_0_llhls.m4s",INDEPENDENT=YES
#EXT-X-DATERANGE:ID="break-1",START-DATE="2026-01-01T00:01:06.000+00:00",DURATION=1.500,SCTE35-IN=0xFC31
#EXT-X-CUE-IN
#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part_0_12_1_llhls.m4s"
"""


def test_markers_carry_their_segment_and_splice_time() -> None:
    playlist = parse_media_playlist(LLHLS)
    assert (playlist.media_sequence, playlist.target_duration, playlist.part_target) == (10, 6.0, 0.5)
    assert playlist.can_block_reload and not playlist.ended
    kinds = [(m.kind, m.source, m.msn) for m in playlist.markers]
    assert kinds == [("out", "daterange", 11), ("out", "cue", 11), ("cont", "cue", 12),
                     ("in", "daterange", 12), ("in", "cue", 12)]
    out_cue = playlist.markers[1]
    assert out_cue.wall == datetime(2026, 1, 1, 0, 1, 6, tzinfo=UTC)
    assert out_cue.planned_s == 30.0
    assert playlist.markers[0].daterange_id == "break-1" and playlist.markers[0].planned_s == 30.0
    # The CUE-IN after the last listed part (the live edge) is kept; it belongs to segment 12.
    assert playlist.markers[-1].line == "#EXT-X-CUE-IN"
    assert playlist.markers[2].planned_s == 30.0


def test_parts_and_segments_agree_with_an_independent_parser() -> None:
    playlist = parse_media_playlist(LLHLS)
    oracle = m3u8.loads(LLHLS)
    assert playlist.media_sequence == oracle.media_sequence
    # m3u8 lists the partial segment at the live edge with uri None; we list complete ones only.
    assert [uri for _, uri in playlist.segment_uris] == [s.uri for s in oracle.segments if s.uri]
    oracle_parts = [p.uri for s in oracle.segments for p in s.parts]
    assert [p.uri for p in playlist.parts][: len(oracle_parts)] == oracle_parts
    last = playlist.last_part
    assert last is not None and (last.msn, last.index, last.uri) == (12, 0, "part_0_12_0_llhls.m4s")
    assert playlist.next_msn == 12
    assert playlist.tail(2) == ("#EXT-X-CUE-IN", '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part_0_12_1_llhls.m4s"')


def test_elemental_and_bare_cue_forms_are_read() -> None:
    text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-CUE-OUT:30.000\n#EXTINF:6,\na.ts\n#EXT-X-CUE-OUT-CONT:6/30\n"
    text += "#EXTINF:6,\nb.ts\n#EXT-X-CUE-OUT\n#EXTINF:6,\nc.ts\n#EXT-X-ENDLIST\n"
    playlist = parse_media_playlist(text)
    assert [(m.kind, m.msn, m.planned_s) for m in playlist.markers] == [
        ("out", 0, 30.0), ("cont", 1, 30.0), ("out", 2, None)]
    assert playlist.ended and not playlist.can_block_reload and playlist.markers[0].wall is None


def test_multivariant_leads_to_the_video_chunklist() -> None:
    text = ('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a.40.2"\nchunklist_1_audio_llhls.m3u8\n'
            '#EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"\n'
            'chunklist_0_video_llhls.m3u8\n')
    variants = parse_multivariant(text)
    assert [v.uri for v in variants] == ["chunklist_1_audio_llhls.m3u8", "chunklist_0_video_llhls.m3u8"]
    assert choose_video_variant(variants).uri == "chunklist_0_video_llhls.m3u8"


@pytest.mark.parametrize("text", ["", "<html>404</html>", "not a playlist"])
def test_non_playlists_are_refused_plainly(text: str) -> None:
    with pytest.raises(PlaylistError, match="not an HLS playlist"):
        parse_media_playlist(text)


def test_publisher_url_defaults_to_the_api_host_on_3333() -> None:
    assert default_publisher_url("http://ome.example:8081/") == "http://ome.example:3333"
    assert default_publisher_url("https://[::1]:8081") == "https://[::1]:3333"
    assert Settings(api_url="http://h:8081").publisher_base() == "http://h:3333"
    assert Settings(api_url="http://h:8081", publisher_url="http://cdn.example/live/").publisher_base() == \
        "http://cdn.example/live"
    assert playlist_url("http://h:3333", "app", "my stream") == "http://h:3333/app/my%20stream/llhls.m3u8"

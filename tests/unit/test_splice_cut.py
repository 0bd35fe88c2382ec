"""A server that writes no marker shows a cue as the segment it cuts: found in the real 0.19.0 chunklists.

The playlists are the ones captured around a cue-out (POST at 00:08:45.331, cut at 00:08:46.408) and a
manual cue-in (POST at 00:09:00.633, cut at 00:09:01.674) on OvenMediaEngine 0.19.0
(tests/support/fixtures/ome-0.19.0/markers, named by seconds after the cue-out).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from omeconsole.api.hls import MediaPlaylist, parse_media_playlist
from omeconsole.core.adops.matcher import ConfirmationMatcher, Expectation
from omeconsole.core.adops.splice_cut import segment_cut

VERSIONS = Path(__file__).parents[1] / "support" / "fixtures" / "ome-0.19.0" / "markers" / "versions"
CUE_OUT_POSTED = datetime(2026, 11, 29, 0, 8, 45, 331000, tzinfo=UTC)
CUE_OUT_CUT = datetime(2026, 11, 29, 0, 8, 46, 408000, tzinfo=UTC)
CUE_IN_POSTED = datetime(2026, 11, 29, 0, 9, 0, 633000, tzinfo=UTC)
CUE_IN_CUT = datetime(2026, 11, 29, 0, 9, 1, 674000, tzinfo=UTC)


def _version(name: str) -> MediaPlaylist:
    return parse_media_playlist((VERSIONS / f"{name}.m3u8").read_text())


def test_no_cut_before_the_segment_is_complete_then_the_cut_at_the_splice() -> None:
    assert segment_cut(_version("video_000.00"), CUE_OUT_POSTED) is None  # the playlist when the 200 came
    assert segment_cut(_version("video_001.21"), CUE_OUT_POSTED) == CUE_OUT_CUT  # 1.2 s later: 5.867 s
    assert segment_cut(_version("video_002.02"), CUE_OUT_POSTED) == CUE_OUT_CUT  # and the 0.133 s after it


def test_the_cue_in_finds_its_own_cut_not_the_cue_outs() -> None:
    playlist = _version("video_016.92")
    assert segment_cut(playlist, CUE_IN_POSTED) == CUE_IN_CUT
    assert segment_cut(_version("video_016.51"), CUE_IN_POSTED) is None  # segment 56 not complete yet


def test_a_cut_far_from_the_request_is_not_taken() -> None:
    """A short segment ten seconds after the request is not this cue's splice."""
    assert segment_cut(_version("video_002.02"), CUE_OUT_POSTED.replace(second=35)) is None


def test_the_matcher_confirms_each_cue_by_its_cut_once() -> None:
    matcher = ConfirmationMatcher()
    matcher.expect(Expectation("out", "cue-out", 0.0, CUE_OUT_POSTED, 8.0, baseline=True, by_cut=True))
    assert matcher.on_playlist(_version("video_000.00"), 0.005) == []
    [seen] = matcher.on_playlist(_version("video_001.21"), 1.215)
    assert seen.seen and seen.by_cut and seen.splice_wall == CUE_OUT_CUT and seen.line is None
    assert seen.detail == "splice seen (segment cut at 00:08:46.408), no marker written"
    matcher.expect(Expectation("in", "cue-in", 15.3, CUE_IN_POSTED, 23.3, baseline=True, by_cut=True))
    assert matcher.on_playlist(_version("video_016.51"), 16.5) == []
    [seen_in] = matcher.on_playlist(_version("video_016.92"), 16.92)
    assert seen_in.kind == "cue-in" and seen_in.splice_wall == CUE_IN_CUT
    assert seen_in.seen_after_s is not None and abs(seen_in.seen_after_s - 1.62) < 1e-6


def test_no_cut_in_time_is_not_seen_without_waiting_for_a_tag() -> None:
    matcher = ConfirmationMatcher()
    matcher.expect(Expectation("out", "cue-out", 0.0, CUE_OUT_POSTED, 8.0, baseline=True, by_cut=True))
    assert matcher.on_playlist(_version("video_000.00"), 0.005) == []
    [verdict] = matcher.expire(8.0)
    assert not verdict.seen and verdict.by_cut
    assert verdict.detail == ("splice not seen: no segment cut within 8 s of the request (this server writes "
                              "no marker)")

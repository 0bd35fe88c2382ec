"""Breaks from anyone, judged from the playlist alone: hostile, malformed and truncated tags never make a
break that is not there, never hide one that is; a stream that flaps does not make a break flicker.

Pure: playlists as a server would serve them (or as an attacker would), parsed by the api's parser,
judged by `seen_break` and fed into the one break model (`AdBreak.on_playlist`) on a manual clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fake_clock import FakeClock

from omeconsole.api.hls import MAX_LINE_CHARS, PlaylistError, parse_media_playlist
from omeconsole.core.adops.ad_break import AdBreak, BreakState
from omeconsole.core.adops.seen_break import AHEAD_LIMIT_S, seen_break

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
HEX = "0xFC302500000000000000FFF01405000000017FEFFE0029328000000000000000"


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds")


def chunklist(first_msn: int, segments: int, markers: dict[int, list[str]] | None = None) -> str:
    """A live LL-HLS chunklist of 6 s segments from T0 + 6 s x msn, marker lines before given segments."""
    lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:6", "#EXT-X-PART-INF:PART-TARGET=0.5",
             f"#EXT-X-MEDIA-SEQUENCE:{first_msn}"]
    for msn in range(first_msn, first_msn + segments + 1):
        lines += (markers or {}).get(msn, [])
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{_iso(T0 + timedelta(seconds=6 * msn))}")
        if msn == first_msn + segments:
            lines += [f'#EXT-X-PART:DURATION=0.5,URI="part_{msn}_{i}.m4s"' for i in range(2)]
        else:
            lines += ["#EXTINF:6.0,", f"seg_{msn}.m4s"]
    return "\n".join(lines) + "\n"


def out(msn: int, duration: float = 30.0, *, ident: str | None = None) -> list[str]:
    start = _iso(T0 + timedelta(seconds=6 * msn))
    return [f'#EXT-X-DATERANGE:ID="{ident or msn}",START-DATE="{start}",PLANNED-DURATION={duration:.3f},'
            f"SCTE35-OUT={HEX}", f"#EXT-X-CUE-OUT:DURATION={duration:.3f}"]


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def judge(text: str, now: datetime):  # type: ignore[no-untyped-def]
    return seen_break(parse_media_playlist(text), now)


def test_the_servers_break_is_seen_with_its_splice_and_planned_length() -> None:
    seen = judge(chunklist(10, 4, {12: out(12, 30)}), at(75))
    assert seen.current is not None and not seen.current.ended
    assert seen.current.splice_wall == at(72) and seen.current.planned_s == 30
    assert seen.ignored == ()


def test_a_date_range_alone_and_a_cue_out_alone_each_count() -> None:
    daterange, cue = out(12, 40)
    assert judge(chunklist(10, 4, {12: [daterange]}), at(75)).current.planned_s == 40  # type: ignore[union-attr]
    only_cue = judge(chunklist(10, 4, {12: [cue]}), at(75)).current
    assert only_cue is not None and only_cue.splice_wall == at(72)


def test_a_cue_in_or_an_in_date_range_ends_it() -> None:
    ended = judge(chunklist(10, 4, {12: out(12), 13: ["#EXT-X-CUE-IN"]}), at(80)).current
    assert ended is not None and ended.ended
    closing = f'#EXT-X-DATERANGE:ID="12",DURATION=8.000,SCTE35-IN={HEX}'
    assert judge(chunklist(10, 4, {12: out(12)[:1], 13: [closing]}), at(80)).current.ended  # type: ignore[union-attr]


def test_a_break_whose_out_scrolled_away_is_placed_by_its_continuation() -> None:
    conts = {msn: [f"#EXT-X-CUE-OUT-CONT:ElapsedTime={6 * (msn - 12)}.000,Duration=60.000"] for msn in (15, 16)}
    seen = judge(chunklist(15, 2, conts), at(97)).current
    assert seen is not None and seen.splice_wall == at(72) and seen.planned_s == 60 and not seen.ended


@pytest.mark.parametrize(("line", "reason"), [
    ('#EXT-X-DATERANGE:START-DATE="2026-03-01T12:01:12.000Z",PLANNED-DURATION=30,SCTE35-OUT=0xFC00',
     "no ID"),
    ('#EXT-X-DATERANGE:ID="x",START-DATE="yesterday",PLANNED-DURATION=30,SCTE35-OUT=0xFC00',
     "no readable START-DATE"),
    ('#EXT-X-DATERANGE:ID="x",START-DATE="2026-03-01T12:01:12.000Z",PLANNED-DURATION=30,SCTE35-OUT=[@click=quit]',
     "not a hexadecimal sequence"),
    ('#EXT-X-DATERANGE:ID="x",START-DATE="9999-12-31T23:59:59.000Z",PLANNED-DURATION=30,SCTE35-OUT=0xFC00',
     f"more than {AHEAD_LIMIT_S:g} s after"),
    ("#EXT-X-CUE-OUT:DURATION=1e400", "planned length"),
])
def test_a_malformed_or_hostile_out_is_no_break_and_says_why(line: str, reason: str) -> None:
    seen = judge(chunklist(10, 4, {12: [line]}), at(75))
    if "1e400" in line:  # a cue-out without a usable length is still a break, of unknown length
        assert seen.current is not None and seen.current.planned_s is None
        return
    assert seen.current is None
    assert seen.ignored and reason in seen.ignored[0], seen.ignored


def test_a_hostile_tag_beside_a_real_break_does_not_hide_it() -> None:
    hostile = ['#EXT-X-DATERANGE:ID="evil",START-DATE="9999-01-01T00:00:00Z",SCTE35-OUT=0xFC00',
               '#EXT-X-DATERANGE:ID="\x1b]52;c;x\x07",SCTE35-OUT=nothex']
    seen = judge(chunklist(10, 4, {12: out(12), 13: hostile}), at(80))
    assert seen.current is not None and seen.current.splice_wall == at(72) and not seen.current.ended
    assert seen.ignored_count == 2


def test_thousands_of_bad_tags_keep_few_reasons_and_a_count() -> None:
    flood = [f'#EXT-X-DATERANGE:ID="{i}",SCTE35-OUT=0xFC' for i in range(5000)]
    seen = judge(chunklist(10, 4, {13: flood}), at(80))
    assert seen.current is None and seen.ignored_count == 5000 and len(seen.ignored) == 1


def test_a_truncated_playlist_shows_the_break_it_still_holds_and_invents_none() -> None:
    full = chunklist(10, 4, {12: out(12)})
    cut_before = full[:full.index("#EXT-X-DATERANGE") + 40]  # cut inside the out's START-DATE
    assert judge(cut_before, at(75)).current is None
    cut_after = full[:full.index("seg_13.m4s")]
    seen = judge(cut_after, at(75)).current
    assert seen is not None and seen.splice_wall == at(72)


def test_an_over_long_tag_line_is_not_read_as_a_break() -> None:
    line = f'#EXT-X-DATERANGE:ID="big",START-DATE="{_iso(at(72))}",SCTE35-OUT={HEX}' + "0" * MAX_LINE_CHARS
    assert judge(chunklist(10, 4, {12: [line]}), at(75)).current is None


def test_a_huge_playlist_is_refused_not_read() -> None:
    with pytest.raises(PlaylistError):
        parse_media_playlist("#EXTM3U\n" + "#EXT-X-CUE-OUT:DURATION=30\n" * 250_000)


def test_a_flapping_stream_never_makes_the_break_flicker() -> None:
    """Every second the stream stops (playlist gone) or restarts (a fresh playlist with no marker yet):
    the break seen at the start stays on air, its countdown only going down, until its planned end."""
    clock = FakeClock(wall_start=at(73))
    ad_break = AdBreak(clock)
    ad_break.playlist_status(True)
    ad_break.on_playlist(judge(chunklist(10, 4, {12: out(12, 20)}), clock.wall()).current)
    shown: list[float] = []
    for second in range(30):
        clock.advance(1.0)
        if second % 2:
            ad_break.playlist_status(False)  # 404: the stream is gone this second
        else:
            ad_break.playlist_status(True)
            ad_break.on_playlist(judge(chunklist(0, 1), clock.wall()).current)  # a new life: no marker
        view = ad_break.view()
        if view.state is BreakState.ON_AIR:
            assert view.remaining_s is not None
            shown.append(view.remaining_s)
        else:
            assert view.state is BreakState.ENDED and clock.wall() >= at(92), (second, view)
    assert shown == sorted(shown, reverse=True) and len(shown) == 18
    assert ad_break.view().origin == "playlist"


def test_a_flapping_stream_without_a_break_never_shows_one() -> None:
    clock = FakeClock(wall_start=at(73))
    ad_break = AdBreak(clock)
    for second in range(20):
        clock.advance(1.0)
        ad_break.playlist_status(second % 2 == 0)
        if second % 2 == 0:
            seen = judge(chunklist(10 + second, 3, {11 + second: ["#EXT-X-CUE-IN"]}), clock.wall())
            ad_break.on_playlist(seen.current)
        assert ad_break.view().state is BreakState.IDLE

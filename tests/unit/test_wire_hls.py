"""Hostile playlists: the HLS reader's answers on lines built to be slow, huge, absurd or broken, and
that a large playlist is parsed while the event loop keeps running."""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omeconsole.api.hls import (
    MAX_LINE_CHARS,
    MAX_LINES,
    OFF_LOOP_CHARS,
    PlaylistError,
    parse_attributes,
    parse_media_playlist,
    parse_multivariant,
    parsed_off_loop,
)

HEAD = """#EXTM3U
#EXT-X-VERSION:6
#EXT-X-TARGETDURATION:6
#EXT-X-MEDIA-SEQUENCE:10
#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:00.000+00:00
"""
BREAK = ('#EXT-X-DATERANGE:ID="break-1",START-DATE="2026-01-01T00:01:00.000+00:00",PLANNED-DURATION=30.000,'
         'SCTE35-OUT=0xFC30\n')
PARTS = '#EXT-X-PART:DURATION=0.500,URI="p0.m4s",INDEPENDENT=YES\n#EXT-X-PART:DURATION=0.500,URI="p1.m4s"\n'

names = st.from_regex(r"[A-Z0-9-]{1,12}", fullmatch=True)
quoted = st.text(st.characters(exclude_characters='"\r\n', exclude_categories=("Cs",)), max_size=20)
bare = st.text(st.characters(exclude_characters=',"\r\n', exclude_categories=("Cs",)), max_size=20).filter(
    lambda v: "=" not in v)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(names, st.tuples(st.booleans(), quoted, bare), min_size=1, max_size=8))
def test_well_formed_attribute_lists_read_back_exactly(attributes: dict[str, tuple[bool, str, str]]) -> None:
    text = ",".join(f'{name}="{q}"' if is_quoted else f"{name}={b}"
                    for name, (is_quoted, q, b) in attributes.items())
    assert parse_attributes(text) == {name: q if is_quoted else b for name, (is_quoted, q, b) in attributes.items()}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(st.characters(exclude_categories=()), max_size=200))
def test_any_attribute_text_gives_only_attribute_names(text: str) -> None:
    for name in parse_attributes(text):
        assert name and all(c.isupper() or c.isdigit() or c == "-" for c in name) and name.isascii()


@pytest.mark.parametrize("line", [
    "A" * 40_000,  # one endless name: what made the old regular expression quadratic
    "A=" * 20_000,
    '"' * 40_000,
    "A-B," * 10_000,
    'X="' + "a" * 40_000,
], ids=["name-run", "equals-run", "quotes", "commas", "unterminated-quote"])
def test_pathological_attribute_lines_are_read(line: str) -> None:
    assert isinstance(parse_attributes(line), dict)  # linear: see RELIABILITY.md for the measured time per MB


def test_a_line_too_long_to_interpret_is_kept_but_not_read() -> None:
    huge = '#EXT-X-DATERANGE:ID="huge",SCTE35-OUT=0xFC' + "A" * 60_000 + "\n"
    playlist = parse_media_playlist(HEAD + huge + BREAK + PARTS)
    assert [m.daterange_id for m in playlist.markers] == ["break-1"]  # the sane one, not the huge one
    assert len(playlist.lines[5]) > MAX_LINE_CHARS
    assert [p.uri for p in playlist.parts] == ["p0.m4s", "p1.m4s"]


def test_a_playlist_of_too_many_lines_is_refused() -> None:
    with pytest.raises(PlaylistError, match="lines"):
        parse_media_playlist(HEAD + "#\n" * MAX_LINES)
    with pytest.raises(PlaylistError, match="lines"):
        parse_multivariant("#EXTM3U\n" + "#\n" * MAX_LINES)


def test_absurd_numbers_and_times_are_unknown_not_crashes() -> None:
    text = ("#EXTM3U\n#EXT-X-TARGETDURATION:1e400\n#EXT-X-MEDIA-SEQUENCE:" + "9" * 5000 + "\n"
            "#EXT-X-PART-INF:PART-TARGET=nan\n#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59.000+00:00\n"
            '#EXT-X-PART:DURATION=5,URI="a.m4s"\n#EXT-X-PART:DURATION=inf,URI="b.m4s"\n'
            '#EXT-X-PART:DURATION=1e308,URI="c.m4s"\n#EXT-X-CUE-OUT:DURATION=-nan\n'
            '#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59-23:59\n#EXTINF:6,\nseg.m4s\n')
    playlist = parse_media_playlist(text)
    assert playlist.media_sequence == 0 and playlist.target_duration is None and playlist.part_target is None
    walls = [p.wall for p in playlist.parts]
    assert walls[0] is not None and walls[1:] == [None, None]  # past the end of the calendar: unknown
    assert [p.duration for p in playlist.parts] == [5.0, None, None]
    assert playlist.markers[0].planned_s is None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(
    st.sampled_from(["#EXT-X-PART:", "#EXT-X-DATERANGE:", "#EXT-X-CUE-OUT:", "#EXT-X-CUE-OUT-CONT:", "#EXTINF:",
                     "#EXT-X-PROGRAM-DATE-TIME:", "#EXT-X-MEDIA-SEQUENCE:", "#EXT-X-SERVER-CONTROL:",
                     "#EXT-X-CUE-IN", "#EXT-X-ENDLIST"]).flatmap(
        lambda tag: st.text(st.characters(exclude_categories=()), max_size=60).map(lambda rest: tag + rest)),
    st.text(st.characters(exclude_categories=()), max_size=60)), max_size=30))
def test_any_lines_after_the_header_parse_without_raising(lines: list[str]) -> None:
    parse_media_playlist("#EXTM3U\n" + "\n".join(lines))


async def test_a_large_playlist_is_parsed_while_the_event_loop_runs() -> None:
    """The parse waits for an event that only the event loop sets: parsed on the loop, it would wait
    in vain (and fail); parsed in a worker thread, the loop runs and sets it."""
    loop_ran = threading.Event()

    def parse(text: str) -> int:
        assert loop_ran.wait(10), "the event loop was blocked during the parse"
        return len(text)

    parsing = asyncio.create_task(parsed_off_loop(parse, "#" * OFF_LOOP_CHARS))
    await asyncio.sleep(0)
    loop_ran.set()
    assert await parsing == OFF_LOOP_CHARS


async def test_a_small_playlist_is_parsed_at_once() -> None:
    caller = threading.get_ident()
    assert await parsed_off_loop(lambda text: threading.get_ident(), HEAD) == caller

"""The display rule for outside text: whatever a server sends, nothing a terminal acts on comes out."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from omeconsole.core.text import visible, visible_parts

ACTED_ON = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def _acted_on(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) in ACTED_ON]


@given(st.text(alphabet=st.characters(codec=None)))
def test_any_text_comes_out_with_nothing_a_terminal_acts_on(text: str) -> None:
    shown = visible(text)
    assert _acted_on(shown) == []
    assert "\x1b" not in shown and "\u202e" not in shown


@given(st.text(alphabet=st.characters(exclude_categories=("Cc", "Cf", "Zl", "Zp", "Cs"))))
def test_ordinary_text_is_shown_as_it_is(text: str) -> None:
    assert visible(text) == text


def test_the_attacks_seen_in_the_wild_are_shown_as_escapes() -> None:
    assert visible("s1\x1b]52;c;cHduZWQ=\x07") == "s1\\x1b]52;c;cHduZWQ=\\x07"  # clipboard write (OSC 52)
    assert visible("\x1b[2J\x1b]0;owned\x07") == "\\x1b[2J\\x1b]0;owned\\x07"  # clear screen, window title
    assert visible("invoice\u202etxt.exe") == "invoice⟨U+202E⟩txt.exe"  # right-to-left override
    assert visible("a\x00b\x7f\x9b") == "a\\x00b\\x7f\\x9b"  # NUL, DEL, C1 CSI
    assert visible("\ud800") == "⟨U+D800⟩"  # a lone surrogate from a "\ud800" JSON escape
    assert visible("zero\u200bwidth\ufeff") == "zero⟨U+200B⟩width⟨U+FEFF⟩"


def test_escapes_are_marked_so_a_screen_can_style_them_apart() -> None:
    assert list(visible_parts("ab\x1bcd")) == [("ab", False), ("\\x1b", True), ("cd", False)]
    # A name that really contains a backslash sequence is text, not an escape.
    assert list(visible_parts("ab\\x1bcd")) == [("ab\\x1bcd", False)]


def test_long_text_is_cut_with_an_ellipsis() -> None:
    assert visible("x" * 10, limit=4) == "xxxx…"
    assert visible("\x1b" * 10, limit=2) == "\\x1b\\x1b…"
    assert visible("short", limit=10) == "short"

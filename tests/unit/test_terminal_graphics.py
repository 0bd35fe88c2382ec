"""How the console learns what the terminal draws pictures with (live/terminal_graphics.py): the answers of real
terminals as they came back here (xterm 379 as a VT340, kitty 0.26.5, Konsole 22.12.3, xterm as a VT420), and a
terminal on a pseudo-terminal that answers late or not at all. The real terminals themselves:
tests/sim/test_real_terminals.py."""

from __future__ import annotations

import os
import pty
import threading
from collections.abc import Iterator

import pytest

from omeconsole.live.terminal_graphics import method_from_answers, read_answers

XTERM_VT340 = b"\x1b[?63;1;2;4;6;9;15;16;22;28c\x1b[0n"
XTERM_VT420 = b"\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c\x1b[0n"
KITTY_0_26 = b"\x1b_Gi=7129;OK\x1b\\\x1b[?62;c\x1b[0n"
"""kitty 0.26.5: Kitty graphics (direct placement; it answers nothing to a query with Unicode placeholders)."""
KONSOLE_22_12 = b"\x1b_Gi=7129;OK\x1b\\\x1b[?62;1;4c\x1b[0n"
"""Konsole 22.12.3 under Xvfb: Kitty graphics and Sixel."""


@pytest.mark.parametrize(("answers", "method"), [
    (XTERM_VT340, "sixel"),
    (XTERM_VT420, "half blocks"),
    (KITTY_0_26, "kitty"),
    (KONSOLE_22_12, "sixel"),
    (b"", "half blocks"),
    # textual-image's own Kitty query (another id, no placeholders) said OK: not counted.
    (b"\x1b_Gi=99;OK\x1b\\\x1b[?62;c\x1b[0n", "half blocks"),
    # textual-image gave up after reading the first two bytes of its DA1 answer: the rest still says Sixel.
    (b"?63;1;2;4c\x1b[?63;1;2;4c\x1b[0n", "sixel"),
    # A 4 inside another attribute (14, 42) is not Sixel.
    (b"\x1b[?64;14;42c\x1b[0n", "half blocks"),
])
def test_the_answers_say_the_method(answers: bytes, method: str) -> None:
    assert method_from_answers(answers) == method


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """(the terminal's side, the console's side) of a pseudo-terminal."""
    terminal_fd, console_fd = pty.openpty()
    yield terminal_fd, console_fd
    os.close(terminal_fd)
    os.close(console_fd)


def _answer_when_asked(terminal_fd: int, answer: bytes, asked: threading.Event, release: threading.Event) -> None:
    questions = b""
    while not questions.endswith(b"\x1b[5n"):
        questions += os.read(terminal_fd, 1024)
    asked.set()
    release.wait(30)
    os.write(terminal_fd, answer)


def test_a_late_answer_is_waited_for(terminal: tuple[int, int]) -> None:
    """The terminal answers only after the console has been waiting (textual-image gives up after 0.1 s): the
    answer is still read, because the console waits for the DSR answer, not for a time."""
    terminal_fd, console_fd = terminal
    asked, release = threading.Event(), threading.Event()
    peer = threading.Thread(target=_answer_when_asked, args=(terminal_fd, XTERM_VT340, asked, release))
    peer.start()
    reading = threading.Thread(target=lambda: results.append(read_answers(console_fd, console_fd, 60.0)))
    results: list[bytes] = []
    reading.start()
    assert asked.wait(30)
    reading.join(0.3)  # longer than textual-image's 0.1 s: the reader is still waiting
    assert reading.is_alive()
    release.set()
    reading.join(30)
    peer.join(30)
    assert method_from_answers(results[0]) == "sixel"


def test_a_terminal_that_never_answers_is_half_blocks(terminal: tuple[int, int]) -> None:
    _, console_fd = terminal
    answers = read_answers(console_fd, console_fd, 0.05)
    assert answers == b""
    assert method_from_answers(answers) == "half blocks"

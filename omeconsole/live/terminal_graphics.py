"""How this terminal draws pictures (Sixel, Kitty graphics, or neither: half blocks), asked once at start.

textual-image asks too, when it is imported, but gives the terminal 0.1 s for each answer: over SSH or on a
loaded machine the answer comes later and the picture silently falls back to half blocks (the late answer
then lands in the input). So the console asks once more, in one burst, after textual-image:

- a Kitty graphics query (an image id of its own): "OK" where the protocol's direct placement works, which is
  how the console draws Kitty pictures (ui/widgets/kitty_picture.py), Unicode placeholders or not. kitty 0.26.5
  (Debian 12) and Konsole 22.12 answer it and draw; kitty 0.26.5 answers nothing to a query that asks for
  placeholders (`U=1`, from 0.28 on), and Konsole 22.12 answers "OK" to that one too without having them;
- the primary device attributes (DA1): a 4 among them says Sixel;
- a device status report (DSR) last, which every terminal answers and nothing else here asks, so the
  answers are complete when it comes back: no deadline decides what the terminal can do. The deadline only
  bounds a terminal that answers nothing at all; everything is then half blocks.

Late answers to textual-image's own questions come back before ours and are read along: a DA1 is a DA1 (its
Kitty query, another id, is not counted). Sixel is preferred to Kitty graphics, as textual-image
prefers it (Konsole 22.12 says both; kitty has no Sixel). Nothing is asked when stdin and stdout are not
both a terminal (tests, `omeconsole serve`): half blocks.
"""

from __future__ import annotations

import os
import re
import select
import sys
import termios
import time
from typing import Literal

GraphicsMethod = Literal["sixel", "kitty", "half blocks"]

ANSWER_DEADLINE_S = 2.0
"""How long a terminal that answers nothing holds up the start."""
_QUERY_ID = 7129
_KITTY_QUERY = f"\x1b_Gi={_QUERY_ID},s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"
_DA1_QUERY = "\x1b[c"
_DSR_QUERY = "\x1b[5n"
_QUESTIONS = (_KITTY_QUERY + _DA1_QUERY + _DSR_QUERY).encode()
_DSR_ANSWER = re.compile(rb"\x1b\[[03]n")
# The leading ESC [ may have been read by textual-image, which gave up in the middle of an answer.
_DA1_ANSWER = re.compile(rb"\?([0-9;]*)c")
_KITTY_OK = re.compile(rb"\x1b_Gi=%d;OK\x1b\\" % _QUERY_ID)
_ANSWERS_LIMIT = 4096

_asked: GraphicsMethod | None = None


def method_from_answers(answers: bytes) -> GraphicsMethod:
    """What the terminal's answers say it can draw."""
    if any(b"4" in found.group(1).split(b";") for found in _DA1_ANSWER.finditer(answers)):
        return "sixel"
    if _KITTY_OK.search(answers):
        return "kitty"
    return "half blocks"


def read_answers(stdin_fd: int, stdout_fd: int, deadline_s: float = ANSWER_DEADLINE_S) -> bytes:
    """Ask the burst and read until the DSR answer, the deadline, or a size cap (the input is the terminal's)."""
    saved = termios.tcgetattr(stdin_fd)
    quiet = termios.tcgetattr(stdin_fd)
    quiet[3] &= ~(termios.ICANON | termios.ECHO)  # lflags: answers byte by byte, not echoed
    quiet[6][termios.VMIN] = 1
    quiet[6][termios.VTIME] = 0
    answers = b""
    try:
        termios.tcsetattr(stdin_fd, termios.TCSANOW, quiet)
        os.write(stdout_fd, _QUESTIONS)
        ends = time.monotonic() + deadline_s
        while not _DSR_ANSWER.search(answers) and len(answers) < _ANSWERS_LIMIT:
            left = ends - time.monotonic()
            if left <= 0 or not select.select([stdin_fd], [], [], left)[0]:
                break
            answers += os.read(stdin_fd, 1024)
    finally:
        termios.tcsetattr(stdin_fd, termios.TCSANOW, saved)
    return answers


def ask_terminal() -> GraphicsMethod:
    """Ask once, before Textual reads the terminal; later calls return the first answer."""
    global _asked
    if _asked is None:
        stdin, stdout = sys.__stdin__, sys.__stdout__
        if stdin is None or stdout is None or not (stdin.isatty() and stdout.isatty()):
            _asked = "half blocks"
        else:
            stdout.flush()
            _asked = method_from_answers(read_answers(stdin.fileno(), stdout.fileno()))
    return _asked


def known_method() -> GraphicsMethod:
    """What `ask_terminal` found; half blocks where nobody asked (never asks: Textual may own the input)."""
    return _asked or "half blocks"

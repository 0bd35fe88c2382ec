"""Everything the command line writes goes through here: outside text can never drive the terminal.

Server names, messages, realms and playlist lines are data. Each line written is passed through
`core.text.visible`, so a control character (ESC, BEL, NUL, C1), a bidi override or an invisible
format character reaches stdout or stderr only as a visible escape (`\\x1b`, `⟨U+202E⟩`). Values
are made visible where they are put into a line too, so a newline inside a name cannot start a
line of its own. A closed stdout (`| head -1`) is the caller's to turn into the exit status.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

from omeconsole.core.text import visible


def terminal_safe(text: str) -> str:
    """Each line of `text` made visible; the line breaks themselves are kept."""
    return "\n".join(visible(line) for line in text.split("\n"))


def say(text: str) -> None:
    """A line (or lines) of results on stdout, flushed: scripts and `--watch` read them as they come."""
    _write(sys.stdout, text)


def complain(text: str) -> None:
    """A message on stderr, prefixed with the program's name. A lost terminal is not an error of its own."""
    with contextlib.suppress(OSError):
        _write(sys.stderr, f"omeconsole: {text}")


def _write(stream: TextIO, text: str) -> None:
    stream.write(terminal_safe(text) + "\n")
    stream.flush()


class Printer:
    """`say` and `complain` with every line led by a server's name, when several servers answer at once
    (JSON lines carry the name as their `server` field instead: see `format.dumps`' callers)."""

    def __init__(self, server: str | None = None) -> None:
        self.server = server
        self._lead = f"{visible(server)}: " if server else ""

    def _led(self, text: str) -> str:
        return "\n".join(self._lead + line for line in text.split("\n")) if self._lead else text

    def say(self, text: str) -> None:
        say(self._led(text))

    def say_json(self, line: str) -> None:
        """A JSON line as it is (it names its server itself)."""
        say(line)

    def complain(self, text: str) -> None:
        complain(self._led(text))

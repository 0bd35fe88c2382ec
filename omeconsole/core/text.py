"""The one rule for showing text that came from outside (server replies, playlists, files): as data.

Terminals act on control characters (`ESC ] 52` writes the clipboard, `ESC [ 2 J` clears the
screen) and bidi controls reorder what the eye reads (`U+202E` makes "exe.txt" read "txt.exe"). Such
characters are never written to a terminal: each is replaced by a visible escape, `\\x1b` for C0, C1
and DEL, `⟨U+202E⟩` for format, separator and surrogate code points. Markup is not this module's
business: the UI builds `Text` objects from the result, which are never parsed as markup.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from functools import lru_cache

ELLIPSIS = "…"
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
"""Controls, format characters (bidi, zero-width, BOM), line/paragraph separators, lone surrogates."""


@lru_cache(maxsize=4096)
def _escape(char: str) -> str | None:
    """The visible form of one character, or None when it is shown as it is."""
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return None
    code = ord(char)
    return f"\\x{code:02x}" if code < 0xA0 else f"⟨U+{code:04X}⟩"


def visible_parts(text: str, limit: int | None = None) -> Iterator[tuple[str, bool]]:
    """`text` as runs of (characters, is_escape); at most `limit` characters of input, then `…`.

    Lets a caller style the escapes apart from the text (the UI dims them), so a name that really
    contains the four characters `\\x1b` can be told from one that contains ESC.
    """
    clipped = text if limit is None or len(text) <= limit else text[:limit]
    plain: list[str] = []
    for char in clipped:
        escaped = None if " " <= char <= "~" else _escape(char)
        if escaped is None:
            plain.append(char)
            continue
        if plain:
            yield "".join(plain), False
            plain = []
        yield escaped, True
    if plain:
        yield "".join(plain), False
    if clipped is not text:
        yield ELLIPSIS, False


def visible(text: str, limit: int | None = None) -> str:
    """`text` with every control, bidi, invisible-format and separator character shown as an escape."""
    if limit is None and text.isascii() and text.isprintable():
        return text  # the common case: plain names cost one scan
    return "".join(part for part, _escaped in visible_parts(text, limit))

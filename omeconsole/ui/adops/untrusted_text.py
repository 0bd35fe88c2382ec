"""Text from outside (a server's reply, a playlist line, an audit file, a stream's name) as Rich `Text`.

The one way ad-ops widgets show such text: `Text` objects are never parsed as markup, so
`[@click=app.quit]` stays on screen as those characters, and `core.text.visible_parts` turns every
control, bidi and invisible character into a visible escape, drawn dimmed so that a name that really
contains the four characters `\\x1b` can be told from one that contains ESC. Toasts take a string, so
they get `visible()` and `markup=False` (see `flows.tell`).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from omeconsole.core.text import visible_parts

ESCAPE_STYLE = "dim italic"
LIMIT = 2000
"""Characters of one piece of outside text shown at most (a reply or a line can be a megabyte)."""


def outside(text: str, style: str = "", *, limit: int | None = LIMIT) -> Text:
    """`text` as data: no markup read, every control or format character shown as its escape."""
    result = Text(style=style)
    append_outside(result, text, limit=limit)
    return result


def append_outside(target: Text, text: str, style: str = "", *, limit: int | None = LIMIT) -> Text:
    """Append `text` to `target` as `outside` builds it; returns `target`."""
    for part, escaped in visible_parts(text, limit):
        target.append(part, style=f"{style} {ESCAPE_STYLE}".strip() if escaped else style)
    return target


def append_outside_lines(target: Text, lines: Iterable[tuple[str, str]], *, limit: int | None = LIMIT) -> Text:
    """Each `(text, style)` on a line of its own after what `target` holds, as `append_outside` builds it (a
    playlist's lines in one call); returns `target`."""
    for line, style in lines:
        target.append("\n")
        append_outside(target, line, style, limit=limit)
    return target


def joined(*pieces: str | Text, style: str = "") -> Text:
    """Our own words (plain strings, never markup) and outside `Text`s, one after the other."""
    result = Text(style=style)
    for piece in pieces:
        if isinstance(piece, Text):
            result.append_text(piece)
        else:
            result.append(piece)
    return result

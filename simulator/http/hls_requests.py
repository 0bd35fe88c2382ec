"""What a publisher request asks for beyond its path, read defensively: the query string and its
blocking-reload directives (`_HLS_msn`, `_HLS_part`), and the errors the publisher answers with.

The real server answers every failure of its publisher (no such stream, file or method, a directive it
cannot use) 404 with an empty body (captures/ome-0.19.0 `playlists/48`; ome-api.md on `llhls_session`);
the `text` of an HttpError is for the log only.

Numbers are ASCII digits only: `str.isdigit` also accepts superscripts (which `int` then refuses) and
other scripts' digits (which `int` accepts), so a regular expression decides.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

MAX_QUERY_FIELDS = 32
_NUMBER = re.compile(r"[0-9]{1,12}", re.ASCII)


class HttpError(Exception):
    """An answer other than 200 (its body is empty); `text` says why, for the log."""

    def __init__(self, status: int, text: str = "") -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class ClientGone(Exception):
    """The client closed its connection while its request was held."""


def parse_query(raw: bytes) -> dict[str, list[str]]:
    """The query's fields (percent-decoded as UTF-8, undecodable bytes replaced); 400 past MAX_QUERY_FIELDS."""
    if not raw:
        return {}
    try:
        return parse_qs(raw.decode("latin-1"), max_num_fields=MAX_QUERY_FIELDS)
    except ValueError as error:
        raise HttpError(400, f"at most {MAX_QUERY_FIELDS} query parameters") from error


def directive(query: dict[str, list[str]], name: str) -> int | None:
    """The value of one `_HLS_*` directive: absent, or one non-negative integer in ASCII digits."""
    values = query.get(name)
    if values is None:
        return None
    if len(values) != 1 or _NUMBER.fullmatch(values[0]) is None:
        raise HttpError(404, f"{name} must be one non-negative integer")
    return int(values[0])

"""CORS on the publisher port, as the real server sends it: every reply (errors too) allows any origin,
and a preflight (`OPTIONS`) on any path answers 200 with the methods allowed and the request headers
the browser asked for echoed back, so a player that adds its own header (a token through hls.js
`xhrSetup` / `fetchSetup`) can load the stream from a web page.

The echoed list is checked first: only header names (RFC 9110 tokens) separated by commas, at most
MAX_ECHO bytes; anything else is not echoed, and the browser then refuses the request itself.
"""

from __future__ import annotations

import re

ALLOWED_METHODS = b"GET, HEAD, OPTIONS"
MAX_ECHO = 1024
_HEADER_LIST = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*")

CORS_HEADERS: tuple[tuple[bytes, bytes], ...] = ((b"access-control-allow-origin", b"*"),)
"""On every reply of the publisher."""


def preflight_headers(requested: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of the 200 answer to an OPTIONS request whose Access-Control-Request-Headers is `requested`."""
    headers = [*CORS_HEADERS, (b"access-control-allow-methods", ALLOWED_METHODS),
               (b"access-control-allow-private-network", b"true"), (b"content-length", b"0")]
    wanted = requested.strip()
    if wanted and len(wanted) <= MAX_ECHO and _HEADER_LIST.fullmatch(wanted):
        headers.append((b"access-control-allow-headers", wanted))
    return headers

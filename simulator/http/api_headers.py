"""The management API's reply headers, in the order the real server writes them (captures api/*.json).

Every reply carries the CORS headers of `<Managers><API><CrossDomains><Url>*</Url>` (the captured server's
configuration, and the sample's), errors and 401s included; `WWW-Authenticate` comes first on a 401. A
preflight (`OPTIONS`, any path, no authentication) is 204 with the same headers, `Content-Type: text/html`
and no body (capture api/46). uvicorn writes the names in lower case (HTTP names are case-insensitive).
"""

from __future__ import annotations

from collections.abc import Sequence

from simulator.http.asgi import Headers, Send
from simulator.http.wire_json import JSON_CONTENT_TYPE

_BEFORE_LENGTH: Headers = [
    (b"access-control-allow-headers", b"*"),
    (b"access-control-allow-methods", b"OPTIONS, GET, POST, PUT, PATCH, DELETE"),
    (b"access-control-allow-credentials", b"true"),
    (b"vary", b"Origin"),
]
_AFTER_LENGTH: Headers = [(b"access-control-allow-origin", b"*")]
_SERVER: Headers = [(b"server", b"OvenMediaEngine")]

PREFLIGHT_HEADERS: Headers = [*_BEFORE_LENGTH, *_AFTER_LENGTH, (b"content-type", b"text/html"), *_SERVER]


def json_headers(length: int, first: Sequence[tuple[bytes, bytes]] = ()) -> Headers:
    """The headers of a JSON reply of `length` bytes; `first` (a 401's WWW-Authenticate) goes before them all."""
    return [*first, *_BEFORE_LENGTH, (b"content-length", str(length).encode()), *_AFTER_LENGTH,
            (b"content-type", JSON_CONTENT_TYPE), *_SERVER]


async def send_json(send: Send, status: int, body: bytes, first: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await send({"type": "http.response.start", "status": status, "headers": json_headers(len(body), first)})
    await send({"type": "http.response.body", "body": body})


async def send_preflight(send: Send) -> None:
    await send({"type": "http.response.start", "status": 204, "headers": PREFLIGHT_HEADERS})
    await send({"type": "http.response.body", "body": b""})

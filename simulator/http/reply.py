"""The publisher's reply headers, as the real server sends them (captures/ome-0.19.0 `playlists/*.json`).

A 200 carries CORS headers, its length and type and `Server: OvenMediaEngine`, in the order below. LL-HLS
replies add `Content-Encoding: identity` (or `gzip`, when the client accepts it and the body is worth it)
and `Cache-Control`; HLS v3 (MPEG-TS) replies have neither. A failure is `Content-Length: 0`,
`Content-Type: text/html`, `Server` and nothing else: no CORS header, so a browser player cannot read it.

uvicorn writes header names in lower case; names are case-insensitive (RFC 9110), and the header block
has the same length either way, which is what `totalBytesOut` counts with the body (`head_bytes`).
"""

from __future__ import annotations

from http import HTTPStatus

SERVER = (b"Server", b"OvenMediaEngine")
_ALLOW_HEADERS = (b"Access-Control-Allow-Headers", b"*")
_ALLOW_METHODS = (b"Access-Control-Allow-Methods", b"OPTIONS, GET, HEAD")
_ALLOW_CREDENTIALS = (b"Access-Control-Allow-Credentials", b"true")
_ALLOW_ORIGIN = (b"Access-Control-Allow-Origin", b"*")


def reply_headers(content_type: bytes, length: int, *, cache: bytes | None,
                  encoding: bytes | None) -> list[tuple[bytes, bytes]]:
    """A 200's headers in the real server's order; `cache` / `encoding` None leave the header out."""
    headers = [_ALLOW_HEADERS]
    if encoding is not None:
        headers.append((b"Content-Encoding", encoding))
    headers.append(_ALLOW_METHODS)
    if cache is not None:
        headers.append((b"Cache-Control", cache))
    vary = b"Origin, Accept-Encoding" if encoding == b"gzip" else b"Origin"
    headers += [_ALLOW_CREDENTIALS, (b"Vary", vary), (b"Content-Length", str(length).encode()), _ALLOW_ORIGIN,
                (b"Content-Type", content_type), SERVER]
    return headers


def error_headers() -> list[tuple[bytes, bytes]]:
    """Headers of a failure (its body is empty)."""
    return [(b"Content-Length", b"0"), (b"Content-Type", b"text/html"), SERVER]


def head_bytes(status: int, headers: list[tuple[bytes, bytes]]) -> int:
    """Bytes of the status line, the headers and the blank line that ends them: `HTTP/1.1 200 OK` + CRLF,
    `Name: value` + CRLF each, CRLF."""
    status_line = len(b"HTTP/1.1 ") + len(str(status)) + 1 + len(HTTPStatus(status).phrase) + 2
    return status_line + sum(len(name) + 2 + len(value) + 2 for name, value in headers) + 2

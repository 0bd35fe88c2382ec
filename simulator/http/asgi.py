"""The few ASGI pieces the simulator needs, written directly: a request view and response senders.

A plain ASGI layer keeps the stats hot path to a dict lookup and one send (issue 2's benchmark).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]


class BodyTooLarge(Exception):
    pass


class Request:
    __slots__ = ("method", "path", "query", "raw_headers", "receive", "scope")

    def __init__(self, scope: Scope, receive: Receive) -> None:
        self.scope = scope
        self.receive = receive
        self.method: str = scope["method"]
        raw_path: bytes | None = scope.get("raw_path")
        self.path: str = raw_path.decode("latin-1").split("?", 1)[0] if raw_path else scope["path"]
        self.query: str = scope.get("query_string", b"").decode("latin-1")
        self.raw_headers: list[tuple[bytes, bytes]] = scope["headers"]

    def header(self, name: bytes) -> bytes | None:
        """The first value of a header; `name` in lower case."""
        return header_value(self.raw_headers, name)

    async def body(self, limit: int) -> bytes:
        """The whole body, refusing more than `limit` bytes without reading the rest into memory."""
        declared = self.header(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def header_value(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    """A scan, not a dict: requests carry a handful of headers and usually only one is wanted.

    ASGI servers pass header names in lower case, so `name` must be lower case too.
    """
    for key, value in headers:
        if key == name:
            return value
    return None


async def send_bytes(send: Send, status: int, body: bytes, headers: Iterable[tuple[bytes, bytes]]) -> None:
    all_headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})

"""The console's own ASGI needs, in one place: a request's header, a whole reply, and a WSGI app run in a
worker thread (how `/metrics` serves prometheus_client's own exposition without holding the event loop).

uvicorn calls the exporter's ASGI app; prometheus_client ships the exposition (content negotiation,
gzip, `name[]` filtering) as a WSGI app. `call_wsgi` bridges the two for a GET whose body is never read.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
StartResponse = Callable[..., object]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def header(scope: Scope, name: bytes) -> str:
    """Every value of one request header, joined by commas (as HTTP folds repeated headers)."""
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == name]
    return ",".join(values)


async def reply(send: Send, status: int, content_type: str, body: bytes, *, head: bool = False,
                extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """One whole response, never cached; HEAD gets the headers of the GET and no body."""
    headers = [(b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def _environ(scope: Scope) -> dict[str, Any]:
    """The WSGI environment of a GET with no body, from the ASGI scope."""
    server = scope.get("server") or ("127.0.0.1", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": scope["path"],
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"), "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]), "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0), "wsgi.url_scheme": scope.get("scheme", "http"), "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
    }
    for name, value in scope.get("headers", ()):
        key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
        text = value.decode("latin-1")
        environ[key] = f"{environ[key]},{text}" if key in environ else text
    return environ


async def call_wsgi(app: WsgiApp, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Runs `app` for the request in a worker thread; its status, headers and whole body."""
    started: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], *_: object) -> None:
        started.append((status, headers))

    def run() -> bytes:
        return b"".join(app(_environ(scope), start_response))

    body = await asyncio.to_thread(run)
    status, headers = started[-1]
    return int(status.split(" ", 1)[0]), [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers], body

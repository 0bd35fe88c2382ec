"""The exporter's HTTP face, a bare ASGI app: `/metrics`, `/alerts`, and nothing else.

`/metrics` answers in the Prometheus text format, or in OpenMetrics when the scraper's Accept header
asks for it (prometheus-client's own negotiation). `/alerts` is the current alerts as JSON (see
`core/alerts/report.py`). The families are collected on the event loop, between polls, so a scrape sees
one consistent moment; encoding them (most of a big scrape's cost) runs in a worker thread, so polling and
the rules keep their turns meanwhile. Only GET and HEAD; request bodies are never read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

INDEX = b"omeconsole exporter: /metrics (Prometheus text or OpenMetrics), /alerts (JSON)\n"


def _header(scope: Scope, name: bytes) -> str:
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == name]
    return ",".join(values)


async def _reply(send: Send, status: int, content_type: str, body: bytes, *, head: bool = False,
                 extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    headers = [(b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


class _Snapshot(Collector):
    """Families already collected, for the encoder in its thread (it never touches the engine)."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return self._families


class ExporterApp:
    def __init__(self, registry: CollectorRegistry, alerts: Callable[[], dict[str, object]]) -> None:
        self._registry = registry
        self._alerts = alerts
        self.scrapes = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        head = method == "HEAD"
        if path not in ("/", "/metrics", "/alerts"):
            await _reply(send, 404, "text/plain; charset=utf-8", b"not found: try /metrics or /alerts\n", head=head)
            return
        if method not in ("GET", "HEAD"):
            await _reply(send, 405, "text/plain; charset=utf-8", b"method not allowed\n",
                         extra=((b"allow", b"GET, HEAD"),))
            return
        if path == "/metrics":
            self.scrapes += 1
            encoder, content_type = choose_encoder(_header(scope, b"accept"))
            snapshot = _Snapshot(list(self._registry.collect()))
            body = await asyncio.to_thread(encoder, snapshot)
            await _reply(send, 200, content_type, body, head=head)
        elif path == "/alerts":
            body = json.dumps(self._alerts(), separators=(",", ":")).encode("ascii")
            await _reply(send, 200, "application/json", body, head=head)
        else:
            await _reply(send, 200, "text/plain; charset=utf-8", INDEX, head=head)

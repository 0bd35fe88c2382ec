"""The exporter's HTTP face: `/metrics`, `/alerts`, and nothing else.

`/metrics` is prometheus_client's own exposition (its WSGI app): the Prometheus text format, or
OpenMetrics when the scraper's Accept header asks for it, gzip when it accepts gzip. The families are
collected on the event loop, between polls, so a scrape sees one consistent moment; prometheus_client
encodes that snapshot in a worker thread (most of a big scrape's cost), so polling and the rules keep
their turns meanwhile. `/alerts` is the current alerts as JSON (see `core/alerts/report.py`). Only GET
and HEAD; request bodies are never read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from omeconsole.exporter.asgi import Receive, Scope, Send, call_wsgi, reply

INDEX = b"omeconsole exporter: /metrics (Prometheus text or OpenMetrics), /alerts (JSON)\n"
TEXT = "text/plain; charset=utf-8"


class _Snapshot(Collector):
    """Families already collected, for the encoder in its thread (it never touches the engine)."""

    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return self._families


def _snapshot(registry: CollectorRegistry) -> CollectorRegistry:
    """The registry's families now, in a registry of their own (`name[]` filtering works on it)."""
    frozen = CollectorRegistry(auto_describe=False, support_collectors_without_names=True)
    frozen.register(_Snapshot(list(registry.collect())))
    return frozen


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
            await reply(send, 404, TEXT, b"not found: try /metrics or /alerts\n", head=head)
        elif method not in ("GET", "HEAD"):
            await reply(send, 405, TEXT, b"method not allowed\n", extra=((b"allow", b"GET, HEAD"),))
        elif path == "/metrics":
            self.scrapes += 1
            status, headers, body = await call_wsgi(make_wsgi_app(_snapshot(self._registry)), scope)
            content_type = next((v.decode("latin-1") for k, v in headers if k == b"content-type"), TEXT)
            await reply(send, status, content_type, body, head=head,
                        extra=[(k, v) for k, v in headers if k != b"content-type"])
        elif path == "/alerts":
            body = json.dumps(self._alerts(), separators=(",", ":")).encode("ascii")
            await reply(send, 200, "application/json", body, head=head)
        else:
            await reply(send, 200, TEXT, INDEX, head=head)

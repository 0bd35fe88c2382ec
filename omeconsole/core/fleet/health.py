"""Each server's health, in the words a server row shows: reachable, what it is, how fast, how often failing."""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.core.context import ServerContext
from omeconsole.core.latency import Latency
from omeconsole.model.server import LinkState, LinkStatus


@dataclass(frozen=True, slots=True)
class ServerHealth:
    """One server of a fleet now. Text fields other than `profile` and `host` may hold server words:
    show them through `core.text.visible`."""

    profile: str
    host: str
    """host:port of its management API."""
    status: LinkStatus
    message: str
    """The link in words (why it is down, when it retries)."""
    edition: str | None
    version: str | None
    stats_api: str | None
    latency: Latency
    """Round trips of its answered requests (the median is what a row shows)."""
    errors_per_minute: float
    last_error: str | None
    since_success_s: float | None
    """Seconds since a request to it last succeeded (None: never)."""

    @property
    def reachable(self) -> bool:
        return self.status == "connected"


def health_of(profile: str, context: ServerContext, link: LinkState, latency: Latency, now: float) -> ServerHealth:
    server = link.server
    since = None if link.last_success_at is None else max(0.0, now - link.last_success_at)
    return ServerHealth(profile=profile, host=context.host, status=link.status, message=link.message,
                        edition=None if server is None else server.edition,
                        version=None if server is None else server.version,
                        stats_api=None if server is None else server.stats_api, latency=latency,
                        errors_per_minute=link.errors_per_minute, last_error=link.last_error, since_success_s=since)

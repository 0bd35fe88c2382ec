"""The server as a whole: which edition it is, and the console's link to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Edition = Literal["enterprise", "oss"]
StatsApi = Literal["v2", "v1"]
LinkStatus = Literal["connecting", "connected", "unreachable", "unauthorized", "error"]


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What detection found: which edition, which statistics API, whether events can be sent."""

    edition: Edition
    version: str
    git_version: str
    stats_api: StatsApi
    events_supported: bool | None
    """None: not known until a send is tried."""
    events_reason: str | None = None
    """Plain words when events_supported is False."""


@dataclass(frozen=True, slots=True)
class LinkState:
    """The console's link to one server, in words fit for a banner (never the token).

    Times are the console clock's monotonic seconds. `errors_per_minute` and `last_error` count every
    failed request, not only those that took the whole link down, so trouble is visible while some
    requests still succeed.
    """

    status: LinkStatus = "connecting"
    message: str = "connecting"
    server: ServerInfo | None = None
    next_retry_at: float | None = None
    """When the next attempt goes out while unreachable or failing."""
    failures: int = 0
    """Consecutive failed attempts of the link as a whole."""
    errors_per_minute: float = 0.0
    """Failed requests (and internal errors) in the last 60 s of console time."""
    last_error: str | None = None
    """The last failure in words (server text: display it through text.visible)."""
    last_error_at: float | None = None
    last_success_at: float | None = None
    """When a request last succeeded; "connected" is never said when that is more than two intervals
    old while requests fail or hang."""
    errors_total: int = 0
    """Failed requests and internal errors since this link was made."""

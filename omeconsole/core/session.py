"""One connection to one server, with everything that works on it: built in one place, handed to screens.

A `Session` holds the settings it was made from, the API client, the polling engine, the ad
operations and their audit log. The UI and the command line get one from a `Connector`, so tests
inject a clock, a seeded random source or a transport in one place, and reconnecting (a new token,
another server, another profile) is simply asking the connector for a fresh session.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.polling.engine import PollingEngine, PollSettings


@dataclass(frozen=True)
class ServerContext:
    """Which server the operator is on, in the words every screen shows."""

    api_url: str
    """The management API's base URL without user info."""
    profile: str | None
    read_only: bool
    demo: bool = False
    """True for the embedded simulator of `omeconsole demo`: its sends are not production sends."""

    @property
    def host(self) -> str:
        """`host:port` of the management API."""
        parts = urlsplit(self.api_url)
        return parts.netloc.rpartition("@")[2] or self.api_url


@dataclass
class Session:
    settings: Settings
    context: ServerContext
    client: OmeClient
    engine: PollingEngine
    adops: AdOps
    clock: Clock = field(repr=False)

    @property
    def audit(self) -> AuditLog:
        return self.adops.audit

    async def aclose(self) -> None:
        self.engine.stop()
        await self.adops.aclose()
        await self.client.aclose()


Connector = Callable[[Settings], Session]


def poll_settings(settings: Settings, *, freeze_gc: bool = False) -> PollSettings:
    return PollSettings(interval=settings.interval, listing_interval=settings.listing_interval,
                        request_budget=settings.request_budget, max_concurrency=settings.max_concurrency,
                        history_seconds=settings.history_seconds, ended_keep_seconds=settings.history_seconds,
                        freeze_gc=freeze_gc)


def connector(clock: Clock, *, rng: random.Random | None = None, transport: httpx.AsyncBaseTransport | None = None,
              audit_path: Path | None = None, demo: bool = False, follow_playlists: bool = True,
              freeze_gc: bool = False) -> Connector:
    """The real thing: a client over HTTP, an engine on `clock`, ad operations with their audit log.

    `freeze_gc`: the console process's own connector sets it (see `PollSettings.freeze_gc`); tests do not."""

    def connect(settings: Settings) -> Session:
        token = settings.token_value()
        client = OmeClient(settings.api_url, token or "", timeout=settings.timeout,
                           verify=not settings.insecure, transport=transport)
        engine = PollingEngine(client, clock, poll_settings(settings, freeze_gc=freeze_gc), rng=rng)
        audit = AuditLog(audit_path, secrets=[token] if token else [])
        adops = AdOps(client, audit, clock, publisher_url=settings.publisher_base(), read_only=settings.read_only,
                      follow_playlists=follow_playlists)
        context = ServerContext(api_url=client.api_url, profile=settings.profile, read_only=settings.read_only,
                                demo=demo)
        return Session(settings, context, client, engine, adops, clock)

    return connect

"""One connection to one server, with everything that works on it: built in one place, handed to screens.

A `Session` holds the settings it was made from, the API client, the polling engine, the ad
operations and their audit log, and how long the server takes to answer (every request timed at the
transport). The UI and the command line get one from a `Connector`, so tests inject a clock, a seeded
random source or a transport in one place, and reconnecting (a new token, another server, another
profile) is simply asking the connector for a fresh session. A fleet (core/fleet) is one session per
server from one connector whose engines share one request budget.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from omeconsole.api.client import OmeClient
from omeconsole.api.http import HttpTransport, Transport
from omeconsole.api.own_reads_journal import Journal, journal_path
from omeconsole.core.adops.audit import AuditLog, default_audit_path
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.core.latency import Latency, LatencyMeter, TimedTransport
from omeconsole.core.polling.budget import TokenBucket
from omeconsole.core.polling.engine import PollingEngine, PollSettings


@dataclass
class Session:
    settings: Settings
    context: ServerContext
    client: OmeClient
    engine: PollingEngine
    adops: AdOps
    clock: Clock = field(repr=False)
    meter: LatencyMeter = field(default_factory=LatencyMeter, repr=False)
    """Round trips of every request this session's client made (polling and sends alike)."""

    @property
    def audit(self) -> AuditLog:
        return self.adops.audit

    @property
    def latency(self) -> Latency:
        return self.meter.snapshot()

    async def aclose(self) -> None:
        self.engine.stop()
        await self.adops.aclose()
        await self.client.aclose()
        if self.client.own_reads.journal is not None:
            self.client.own_reads.journal.close()


Connector = Callable[[Settings], Session]


@dataclass(frozen=True)
class Started:
    """A session whose engine already runs on `loop`: the command line starts it while the console's UI
    is imported, and the console adopts it as its first session (running on the same loop)."""

    session: Session
    loop: asyncio.AbstractEventLoop
    running: asyncio.Task[None]
    """The engine's `run()`."""


def poll_settings(settings: Settings) -> PollSettings:
    return PollSettings(interval=settings.interval, listing_interval=settings.listing_interval,
                        request_budget=settings.request_budget, max_concurrency=settings.max_concurrency,
                        history_seconds=settings.history_seconds, ended_keep_seconds=settings.history_seconds)


def connector(clock: Clock, *, rng: random.Random | None = None, transport: Transport | None = None,
              audit_path: Path | None = None, demo: bool = False,
              bucket: TokenBucket | None = None, pacing: Callable[[Settings], PollSettings] | None = None) -> Connector:
    """The real thing: a client over HTTP, an engine on `clock`, ad operations with their audit log.

    Sends go to `audit_path`, else the user's audit log, or its demo twin for the embedded simulator.
    `bucket`: one request budget for every session this connector makes (a fleet's); by default each
    engine has its own. `pacing`: the engine's settings from the session's (default `poll_settings`;
    headless programs keep shorter histories)."""

    def connect(settings: Settings) -> Session:
        token = settings.token_value()
        meter = LatencyMeter()
        wire = transport if transport is not None else HttpTransport(verify=not settings.insecure)
        client = OmeClient(settings.api_url, token or "", timeout=settings.timeout,
                           verify=not settings.insecure, transport=TimedTransport(wire, meter, clock))
        polling = pacing(settings) if pacing is not None else poll_settings(settings)
        engine = PollingEngine(client, clock, polling, rng=rng, bucket=bucket)
        context = ServerContext(api_url=client.api_url, profile=settings.profile, read_only=settings.read_only,
                                demo=demo)
        # Stamped on the console clock, as every time it shows (the system clock outside tests).
        audit = AuditLog(audit_path or default_audit_path(demo=demo), now=clock.wall)
        # The console's own publisher reads: its grace on the console's clock, shared with the console's other
        # processes reading this server (beside the audit log), so no figure counts any of them.
        client.own_reads.monotonic = clock.monotonic
        client.own_reads.share(Journal(journal_path(audit.path.parent, client.api_url)))
        adops = AdOps(client, audit, clock, context, publisher_url=settings.publisher_base(),
                      verify=not settings.insecure, confirm_timeout_s=settings.confirm_timeout)
        return Session(settings, context, client, engine, adops, clock, meter)

    return connect

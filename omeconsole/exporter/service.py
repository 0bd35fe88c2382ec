"""The exporter as one object: the polling engines headless, the alert rules, the webhooks, the listener.

`run()` is the long-running process of `omeconsole exporter`: the engines poll under one budget, every
interval the watch lists are refreshed and the alert rules evaluated, webhook senders drain their
queues, and uvicorn serves `/metrics` and `/alerts` on the same event loop. Tests drive the same object
one step at a time (`step()`, `tick()`) on injected clocks.

One server, or every server of a fleet (`fleet=`): each server is a session of the fleet (its own
engine, link and back-off, under the fleet's one request budget), with its own alert evaluator and
audit feed, and its series labelled `server` = its profile's name; the webhooks are shared.

What is polled: every virtual host and application, then the streams in the order `--max-streams`
exports them, then the rest (they must be read once to be ranked). With the API's one request per node
and the request budget, a big server's streams are read round-robin: `ome_sample_age_seconds` says how
old each node's numbers are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import uvicorn
from prometheus_client import CollectorRegistry

from omeconsole.api.http import Transport
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.audit_feed import AuditFeed, AuditReader
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.report import alerts_document
from omeconsole.core.alerts.source import EngineSource, Observed
from omeconsole.core.alerts.state import AlertStatus, Transition
from omeconsole.core.alerts.webhooks import Deliveries, WebhookDispatcher
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.fleet.fleet import Fleet, FleetMember
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.core.text import visible
from omeconsole.exporter.collector import ExportedServer, ExporterCollector
from omeconsole.exporter.http import ExporterApp
from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath

log = logging.getLogger("omeconsole.exporter")


class _Listener(uvicorn.Server):
    """Leaves signals to the caller, which stops the engine, the senders and the listener together."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def server_name(settings: Settings) -> str:
    """The `server` label: the profile's name, else the API's host:port."""
    if settings.profile:
        return settings.profile
    return urlsplit(settings.api_url).netloc.rpartition("@")[2] or settings.api_url


def _log_transition(transition: Transition) -> None:
    alert = transition.alert
    where = alert.key.server if alert.key.path is None else f"{alert.key.server}:{alert.key.path}"
    if alert.status is AlertStatus.FIRING:
        log.warning("alert %s firing on %s: %s", visible(alert.key.rule), visible(where), visible(alert.detail))
    else:
        log.info("alert %s resolved on %s", visible(alert.key.rule), visible(where))


def _pacing(settings: Settings) -> PollSettings:
    """Rates need only the previous reading and the rules keep their own windows: no long history here."""
    return PollSettings(interval=settings.interval, listing_interval=settings.listing_interval,
                        request_budget=settings.request_budget, max_concurrency=settings.max_concurrency,
                        history_seconds=2 * settings.interval, keep_recent_histories=0)


@dataclass
class ServerExport:
    """One server's part of the exporter: its session's engine, what the rules observe, its alerts."""

    name: str
    """The `server` label."""
    member: FleetMember
    observed: Observed
    audit: AuditFeed
    evaluator: AlertEvaluator
    exported: ExportedServer
    watched_listing: Listing | None = None

    @property
    def engine(self) -> PollingEngine:
        return self.member.engine


class Exporter:
    def __init__(self, settings: Settings, clock: Clock, *, fleet: FleetSettings | None = None,
                 max_streams: int | None = None, transport: Transport | None = None,
                 rng: random.Random | None = None, audit: AuditReader | None = None,
                 environ: Mapping[str, str] | None = None, webhook_transport: Transport | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        """`settings`: the server, or with `fleet` the settings whose webhooks, interval and listener
        apply to the whole fleet (the command line passes the fleet's first server's)."""
        self.settings = settings
        self.clock = clock
        self.name = f"fleet {fleet.name}" if fleet is not None else server_name(settings)
        self.fleet = Fleet.connect(fleet or FleetSettings.single(settings), clock, rng=rng, transport=transport,
                                   pacing=_pacing)
        reader = audit if audit is not None else AuditLog()
        self.servers: list[ServerExport] = []
        for member in self.fleet:
            name = member.profile if fleet is not None else server_name(settings)
            observed = Observed(EngineSource(member.engine))
            feed = AuditFeed(reader, member.session.client.api_url)
            evaluator = AlertEvaluator(member.session.settings.alerts, observed, clock, server=name, audit=feed)
            self.servers.append(ServerExport(name, member, observed, feed, evaluator,
                                             ExportedServer(name, observed, evaluator, feed)))
        self.deliveries = Deliveries(settings.webhooks, clock, environ=environ, warn=warn, transport=webhook_transport,
                                     rng=rng)
        self.webhooks: list[WebhookDispatcher] = self.deliveries.dispatchers
        deliver = self.deliveries.notifier() if self.webhooks else None
        for server in self.servers:
            server.evaluator.add_listener(_log_transition)
            if deliver is not None:
                server.evaluator.add_listener(deliver)
        if self.servers:  # the deliveries are the exporter's, counted once (with the first server's series)
            self.servers[0].exported.webhooks = self.webhooks
        self.collector = ExporterCollector([server.exported for server in self.servers], clock,
                                           max_streams=max_streams)
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self.collector)
        self.app = ExporterApp(self.registry, self.alerts_document)
        self._tasks: list[asyncio.Task[None]] = []
        self._http: uvicorn.Server | None = None
        self._stopped = asyncio.Event()

    @property
    def engine(self) -> PollingEngine:
        """The first server's engine (the only one, for a single server)."""
        return self.servers[0].engine

    @property
    def evaluator(self) -> AlertEvaluator:
        """The first server's alert evaluator (the only one, for a single server)."""
        return self.servers[0].evaluator

    def alerts_document(self) -> dict[str, object]:
        alerts = [alert for server in self.servers for alert in server.evaluator.alerts()]
        return alerts_document(alerts, [w.stats for w in self.webhooks], self.clock)

    # -- one step at a time (the run loop, and tests on injected clocks) -------------------------------

    async def step(self) -> list[Transition]:
        """One cycle of every engine, then `tick()`."""
        await self.fleet.poll_cycle()
        return self.tick()

    def tick(self) -> list[Transition]:
        """Refresh what is polled where a listing moved, then one alert pass on every server."""
        transitions: list[Transition] = []
        for server in self.servers:
            self._refresh_watch(server)
            transitions += server.evaluator.evaluate()
        return transitions

    def _refresh_watch(self, server: ServerExport) -> None:
        source = server.observed.source
        listing = source.listing()
        if listing is server.watched_listing:
            return
        server.watched_listing = listing
        parents = [NodePath(v) for v in listing] + [NodePath(v, a) for v, apps in listing.items() for a in apps]
        exported = [view.path for view in self.collector.exported_streams(server.exported)]
        everything = [NodePath(v, a, s) for v, apps in listing.items() for a, streams in apps.items()
                      for s in streams.live]
        source.watch([*parents, *exported, *everything])

    # -- the process ------------------------------------------------------------------------------------

    async def start_http(self, host: str, port: int) -> tuple[str, int]:
        """Listens on host:port (0: a free port); returns the address bound."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        sock.listen(128)
        sock.setblocking(False)
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", access_log=False,
                                server_header=False, date_header=False)
        self._http = _Listener(config)
        self._tasks.append(asyncio.create_task(self._http.serve(sockets=[sock]), name="exporter-http"))
        while not self._http.started:
            if self._tasks[-1].done():
                self._tasks[-1].result()  # raises what stopped it
            await asyncio.sleep(0.01)
        bound = sock.getsockname()
        return str(bound[0]), int(bound[1])

    def start_webhooks(self) -> None:
        self.deliveries.start()

    async def run(self) -> None:
        """Polls, evaluates and delivers until `stop()` (or the HTTP server is told to exit by a signal)."""
        self.start_webhooks()
        engine = asyncio.create_task(self.fleet.run(), name="exporter-engine")
        self._tasks.append(engine)
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            while not self._stopped.is_set():
                self.tick()
                if self._http is not None and self._http.should_exit:
                    break
                interval = min(server.engine.interval for server in self.servers)
                sleep = asyncio.ensure_future(self.clock.sleep(interval))
                await asyncio.wait({sleep, stopped, engine}, return_when=asyncio.FIRST_COMPLETED)
                sleep.cancel()
                if engine.done():
                    engine.result()  # the engines never end by themselves: surface what ended them
        finally:
            stopped.cancel()

    def stop(self) -> None:
        self._stopped.set()
        self.fleet.stop()
        if self._http is not None:
            self._http.should_exit = True

    async def aclose(self) -> None:
        self.stop()
        for task in self._tasks:
            if task.get_name() != "exporter-http":
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self.deliveries.aclose()
        await self.fleet.aclose()

    async def __aenter__(self) -> Exporter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

"""A fleet: one session per server, built by the console's connector, polled under one request budget.

Each server keeps its own session (client, polling engine with its own link and back-off, ad
operations, audit context), so a dead edge backs off on its own and never holds the others; their
engines take their requests from one `FleetBudget`, which gives each what it uses and the rest to the
busy ones. What the screens and commands read:

- `health()`: each server's link, edition and version, latency and errors per minute;
- `view(path)`: a node on every server and summed (`views.fleet_view`), `totals()`: the whole fleet;
- `member(profile)`: one server's session, for everything a single server does (sends included: a
  send goes to the one server the operator named, through that server's session).

`run()` polls every server until `stop()`; `poll_cycle()` is one step of each at a frozen time (tests).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from omeconsole.api.client import DETECTION_REQUESTS
from omeconsole.api.http import Transport
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.fleet.budget import FleetBudget
from omeconsole.core.fleet.health import ServerHealth, health_of
from omeconsole.core.fleet.naming import UnknownServer
from omeconsole.core.fleet.settings import FleetSettings, member_name
from omeconsole.core.fleet.views import FleetView, ServerReading, fleet_totals, fleet_view
from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine, PollSettings
from omeconsole.core.session import Session, connector
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath


@dataclass(frozen=True, slots=True)
class FleetUpdate:
    """One server's engine update, saying which server."""

    profile: str
    update: EngineUpdate


FleetListener = Callable[[FleetUpdate], None]


@dataclass(frozen=True)
class FleetMember:
    """One server of the fleet: its name (the profile) and its session."""

    profile: str
    session: Session

    @property
    def engine(self) -> PollingEngine:
        return self.session.engine

    def health(self) -> ServerHealth:
        return health_of(self.profile, self.session.context, self.engine.connection, self.session.latency,
                         self.session.clock.monotonic())

    def reading(self, path: NodePath) -> ServerReading:
        """What this server's engine knows of `path` now (see `views.ServerReading`). While its link is
        down the server counts as not read: its last numbers are not summed as if they were current."""
        engine = self.engine
        view = engine.node(path)
        age = view.age(self.session.clock.monotonic())
        link = engine.connection
        if link.status != "connected":
            return ServerReading(self.profile, error=link.message, age_s=age)
        current = view.current
        if current is not None:
            stale = view.state is NodeState.STALE
            return ServerReading(self.profile, current.stats, current.rate_in_bps, current.rate_out_bps, view.info,
                                 error=view.error if stale else None, age_s=age)
        if view.state is NodeState.UNKNOWN and _listed(engine, path):
            return ServerReading(self.profile, error=view.error, pending=view.error is None)
        return ServerReading(self.profile)


def _listed(engine: PollingEngine, path: NodePath) -> bool:
    apps = engine.listing().get(path.vhost)
    if apps is None or path.app is None:
        return apps is not None
    streams = apps.get(path.app)
    if streams is None or path.stream is None:
        return streams is not None
    return path.stream in streams.live


class Fleet:
    def __init__(self, name: str, members: Sequence[FleetMember], budget: FleetBudget, clock: Clock) -> None:
        if not members:
            raise ValueError("a fleet has at least one server")
        self.name = name
        self.members = tuple(members)
        self.budget = budget
        self.clock = clock
        self._by_profile = {member.profile: member for member in self.members}

    @classmethod
    def connect(cls, settings: FleetSettings, clock: Clock, *, rng: random.Random | None = None,
                transport: Transport | None = None, audit_path: Path | None = None, demo: bool = False,
                pacing: Callable[[Settings], PollSettings] | None = None) -> Fleet:
        """A session per server from the console's connector, every engine on one `FleetBudget` of
        `settings.request_budget` (the options are the connector's). Its burst is one second of budget,
        or every server's detection at once if that is more (each server sees its own four requests)."""
        burst = max(settings.request_budget, float(DETECTION_REQUESTS * len(settings.servers)))
        budget = FleetBudget(clock, settings.request_budget, burst)
        connect = connector(clock, rng=rng, transport=transport, audit_path=audit_path, demo=demo,
                            bucket=budget, pacing=pacing)
        members = [FleetMember(member_name(server), connect(server)) for server in settings.servers]
        return cls(settings.name, members, budget, clock)

    def __iter__(self) -> Iterator[FleetMember]:
        return iter(self.members)

    def __repr__(self) -> str:
        return f"Fleet({self.name!r}, {', '.join(self.profiles)})"

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(member.profile for member in self.members)

    def member(self, profile: str) -> FleetMember:
        member = self._by_profile.get(profile)
        if member is None:
            raise UnknownServer(f"{profile!r} is not a server of fleet {self.name!r} "
                                f"(servers: {', '.join(self.profiles)})")
        return member

    # -- what screens and commands read ------------------------------------------------------------

    def health(self) -> list[ServerHealth]:
        return [member.health() for member in self.members]

    def view(self, path: NodePath) -> FleetView:
        return fleet_view(path, [member.reading(path) for member in self.members])

    def totals(self) -> FleetView:
        """Every server's virtual hosts added up, then the servers summed (poll the vhosts: `select` or
        put them on screen)."""
        vhosts: dict[str, list[ServerReading]] = {}
        for member in self.members:
            link = member.engine.connection
            names = list(member.engine.listing())
            if not names and link.status != "connected":
                vhosts[member.profile] = [ServerReading(member.profile, error=link.message)]
            else:
                vhosts[member.profile] = [member.reading(NodePath(name)) for name in names]
        return fleet_totals(vhosts)

    # -- what screens set ---------------------------------------------------------------------------

    def select(self, path: NodePath | None) -> None:
        """The node the operator looks at, on every server (each reads it every interval, and a stream's
        input, which tells an origin from an edge)."""
        for member in self.members:
            member.engine.select(path)

    def add_listener(self, callback: FleetListener) -> Unsubscribe:
        """`callback` gets every server's engine updates, with the server's name; call what this returns
        to stop that."""
        removers = [member.engine.add_listener(_forward(member.profile, callback)) for member in self.members]

        def remove() -> None:
            for remover in removers:
                remover()

        return remove

    # -- running ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Polls every server until `stop()`; one server's trouble never ends another's polling."""
        await asyncio.gather(*(member.engine.run() for member in self.members))

    async def settle(self, timeout: float) -> None:
        """Polls until every server's link is decided (connected, or failed and backing off), for at most
        `timeout` seconds of the fleet's clock, then stops: what `health()` then says was just seen."""
        decided = asyncio.Event()

        def check(_: object = None) -> None:
            if all(member.engine.connection.status != "connecting" for member in self.members):
                decided.set()

        remove = self.add_listener(check)
        running = asyncio.ensure_future(self.run())
        waits = {asyncio.ensure_future(decided.wait()), asyncio.ensure_future(self.clock.sleep(timeout)), running}
        try:
            check()
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            remove()
            self.stop()
            for waiting in waits - {running}:
                waiting.cancel()
            await asyncio.wait(waits)
        running.result()  # the engines never end by themselves: surface what ended them

    def stop(self) -> None:
        for member in self.members:
            member.engine.stop()

    async def poll_cycle(self) -> dict[str, EngineUpdate | None]:
        """One `poll_cycle` of every engine at once, at a frozen time (tests and benchmarks)."""
        updates = await asyncio.gather(*(member.engine.poll_cycle() for member in self.members))
        return dict(zip(self.profiles, updates, strict=True))

    async def aclose(self) -> None:
        self.stop()
        await asyncio.gather(*(member.session.aclose() for member in self.members))


def _forward(profile: str, callback: FleetListener) -> Callable[[EngineUpdate], None]:
    def forward(update: EngineUpdate) -> None:
        callback(FleetUpdate(profile, update))

    return forward

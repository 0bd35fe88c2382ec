"""A fleet as the screens see it: one `LiveSession` per server, and the server the operator is on.

Every server keeps its own session (engine with its own back-off, ad operations, audit context) under
the fleet's one request budget (`core.fleet`). The screens show one server's tree at a time, the one
the selection is on (`current`): its session is what the tree, the detail, the status line and every
send use, so a send can only go to the server the operator sees named. The other servers are asked for
what the server rows and the fleet view need: their virtual hosts (a server's totals) and the selected
node (its numbers on every server, and whether each server ingests it or relays it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from omeconsole.core.fleet.fleet import Fleet, FleetMember, FleetUpdate
from omeconsole.core.fleet.health import ServerHealth
from omeconsole.core.fleet.views import FleetView
from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.session import Session
from omeconsole.live.ad_board import AdBoard
from omeconsole.live.alert_watch import SessionAlerts
from omeconsole.live.pace import Pace
from omeconsole.live.recorded_past import StoredPast
from omeconsole.live.session import LiveSession, NoteBoard, Ticker, ViewOptions
from omeconsole.model.paths import NodePath

PastOf = Callable[[Session], StoredPast | None]
"""The recorded past of a server's session (None: nothing recorded)."""
AlertsOf = Callable[[Session], SessionAlerts | None]
"""The `[[alerts]]` rules run on a server's session (None: its settings have none)."""


@dataclass(frozen=True)
class ServerSummary:
    """One server row: its health and its own totals (its virtual hosts added up)."""

    health: ServerHealth
    alerts: int
    """Alerts firing on the server now."""
    viewers: int | None
    """Playback sessions (`model.audience`)."""
    others: tuple[tuple[str, int], ...]
    """Connections that are not viewers, named: relays (edges pulling over OVT), pushes, recordings,
    thumbnails (zero counts left out)."""
    rate_in_bps: float | None
    rate_out_bps: float | None


@dataclass(frozen=True)
class FleetSummary:
    """What the server rows show: the fleet's totals, then one summary per server in the fleet's order."""

    name: str
    servers: tuple[ServerSummary, ...]
    totals: FleetView
    streams: int
    """Live streams in the fleet, each counted once however many servers have it."""

    @property
    def reachable(self) -> int:
        return sum(1 for server in self.servers if server.health.reachable)

    @property
    def alerts(self) -> int:
        return sum(server.alerts for server in self.servers)


def live_streams(member: FleetMember) -> set[NodePath]:
    return {NodePath(vhost, app, name) for vhost, apps in member.engine.listing().items()
            for app, streams in apps.items() for name in streams.live}


def _board(session: Session) -> AdBoard:
    """A server's ad breaks, its streams' playlists followed under the fleet's shared budget."""
    return AdBoard(session.adops, session.engine if session.settings.follow_playlists else None,
                   lambda: session.engine.server, verify=not session.settings.insecure)


@dataclass
class FleetLive:
    """The fleet and a `LiveSession` per server (sharing the ticker, view options, pace and notes)."""

    fleet: Fleet
    lives: Mapping[str, LiveSession]
    current: str

    @classmethod
    def build(cls, fleet: Fleet, ticker: Ticker, options: ViewOptions, pace: Pace, export_dir: Path, *,
              past: PastOf | None = None, alerts: AlertsOf | None = None) -> FleetLive:
        notes = NoteBoard()
        lives = {member.profile: LiveSession(member.session, ticker, _board(member.session), options, pace,
                                             export_dir, alerts(member.session) if alerts is not None else None,
                                             notes=notes, past=past(member.session) if past is not None else None)
                 for member in fleet}
        return cls(fleet, lives, fleet.profiles[0])

    @property
    def live(self) -> LiveSession:
        """The session of the server the selection is on."""
        return self.lives[self.current]

    def switch(self, profile: str) -> LiveSession:
        """The operator moved to server `profile` (one of the fleet's): its session from now on."""
        self.fleet.member(profile)  # refuses a profile that is not the fleet's
        self.current = profile
        return self.live

    def others(self) -> Iterator[FleetMember]:
        return (member for member in self.fleet if member.profile != self.current)

    def follow(self, selected: NodePath | None, shown: Mapping[str, Sequence[NodePath]] | None = None) -> None:
        """Every other server reads its virtual hosts (its totals), `selected` (the fleet view) and its streams
        in `shown` (server -> its streams on screen: a table of the fleet's streams)."""
        for member in self.others():
            streams = (shown or {}).get(member.profile, ())
            member.engine.set_on_screen([*(NodePath(name) for name in member.engine.listing()), *streams],
                                        {path.parent for path in streams if path.parent is not None})
            member.engine.select(selected)

    def view(self, path: NodePath) -> FleetView:
        return self.fleet.view(path)

    def summary(self) -> FleetSummary:
        totals = self.fleet.totals()
        servers = tuple(ServerSummary(member.health(), self.firing(member.profile), part.viewers, part.others,
                                      part.rate_in_bps, part.rate_out_bps)
                        for member, part in zip(self.fleet, totals.servers, strict=True))
        streams = set().union(*(live_streams(member) for member in self.fleet))
        return FleetSummary(self.fleet.name, servers, totals, len(streams))

    def firing(self, profile: str) -> int:
        """How many alerts are firing on server `profile`."""
        alerts = self.lives[profile].alerts
        return len(alerts.firing()) if alerts is not None else 0

    def alert_watches(self) -> list[SessionAlerts]:
        """Every server's alert rules (in the fleet's order; the servers without rules left out)."""
        return [live.alert_watch for live in self.lives.values() if live.alert_watch is not None]

    def on_others_report(self, callback: Callable[[], None]) -> Unsubscribe:
        """`callback` after a server other than the current one reported (the current one's reports reach
        the screen through its own feed)."""
        def report(update: FleetUpdate) -> None:
            if update.profile != self.current:
                callback()

        return self.fleet.add_listener(report)

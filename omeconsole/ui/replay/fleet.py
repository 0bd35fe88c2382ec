"""`omeconsole --replay --fleet NAME [--since 2h]`: the fleet console on the fleet's recorded data alone.

Each server of the fleet that the history store holds (found by its address, else by its profile, as
`omeconsole record --fleet` and the fleet console record them) gets a replay session (`replay_connector`:
a `ReplayEngine`, a client that cannot reach anything, read-only), all on one replay cursor, so every
server shows the same moment; the servers the store does not hold are left out and said. The screen is
the fleet screen with the replay's keys: moving the cursor moves every server's engine at once.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from textual.screen import Screen

from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.fleet.budget import FleetBudget
from omeconsole.core.fleet.fleet import Fleet, FleetMember
from omeconsole.core.fleet.settings import FleetSettings, member_name
from omeconsole.core.history.database import HistoryError
from omeconsole.core.history.observations import server_key
from omeconsole.core.history.reader import HistoryReader, StoredServer
from omeconsole.core.history.replay import ReplayCursor, opening_moment
from omeconsole.core.history.replay_engine import ReplayClock
from omeconsole.core.history.summary import duration
from omeconsole.core.text import visible
from omeconsole.live.fleet import FleetLive
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.fleet_app import FleetConsoleApp
from omeconsole.ui.replay.app import DEFAULT_SINCE_S, Replay, ReplayRefused, replay_connector
from omeconsole.ui.screens.replay import ReplayFleetScreen, ReplayNodeScreen


@dataclass(frozen=True)
class FleetReplay:
    """The store, the fleet's servers found in it, and the one cursor."""

    reader: HistoryReader
    fleet: FleetSettings
    """The fleet as replayed: its servers that the store holds."""
    servers: tuple[StoredServer, ...]
    """Each replayed server as the store has it, in the fleet's order."""
    missing: tuple[str, ...]
    """Profiles of the fleet's servers with nothing recorded in the range."""
    cursor: ReplayCursor


def open_fleet_replay(fleet: FleetSettings, clock: Clock, *, since: float = DEFAULT_SINCE_S,
                      path: Path | None = None) -> FleetReplay:
    """The replay of the fleet's last `since` seconds (a ReplayRefused says why there is none)."""
    now = clock.wall().timestamp()
    history = fleet.servers[0].history
    try:
        reader = HistoryReader(path or history.database_path(), history)
    except HistoryError as error:
        raise ReplayRefused(str(error)) from None
    try:
        stored = reader.servers()
        found: list[StoredServer] = []
        kept, missing, first = [], [], now
        for settings in fleet.servers:
            key = server_key(settings.api_url)
            server = next((s for s in stored if s.key == key), None) or next(
                (s for s in stored if settings.profile and s.profile == settings.profile), None)
            hosts = [] if server is None else [
                s for s in reader.summaries(server.key, level="vhost") if s.last_seen >= now - since]
            if server is None or not hosts:
                missing.append(member_name(settings))
                continue
            found.append(server)
            kept.append(settings)
            first = min(first, *(s.first_seen for s in hosts))
        if not kept:
            raise ReplayRefused(f"nothing recorded for fleet {visible(fleet.name)} in the last {duration(since)}")
        replayed = FleetSettings(fleet.name, tuple(kept), fleet.request_budget)
        start = max(now - since, first)
        cursor = ReplayCursor(clock, start, now, opening_moment(reader, [server.key for server in found], start, now))
        return FleetReplay(reader, replayed, tuple(found), tuple(missing), cursor)
    except BaseException:
        reader.close()
        raise


def replayed_fleet(replay: FleetReplay, clock: Clock, *, audit_path: Path | None = None) -> Fleet:
    """A `Fleet` of replay sessions, one per server the store holds, on the replay's cursor."""
    members = [FleetMember(member_name(settings), replay_connector(Replay(replay.reader, server, replay.cursor),
                                                                   clock, audit_path=audit_path)(settings))
               for settings, server in zip(replay.fleet.servers, replay.servers, strict=True)]
    budget = FleetBudget(clock, replay.fleet.request_budget, replay.fleet.request_budget)  # never asked: no polls
    return Fleet(replay.fleet.name, members, budget, ReplayClock(replay.cursor, clock))


class ReplayFleetApp(FleetConsoleApp):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    """The console's stylesheet (a relative path would be looked for beside this module)."""

    def fleet_screen(self, fleet: FleetLive, select: NodePath | None) -> Screen[None]:
        return ReplayFleetScreen(fleet, select=select)

    def node_screen(self, live: LiveSession, path: NodePath) -> Screen[None]:
        return ReplayNodeScreen(live, path)


def fleet_replay_app(replay: FleetReplay, clock: Clock, *, select: NodePath | None = None,
                     audit_path: Path | None = None, theme_dirs: list[Path] | None = None) -> ReplayFleetApp:
    app = ReplayFleetApp(replay.fleet, lambda _settings: replayed_fleet(replay, clock, audit_path=audit_path), clock,
                         select=select, theme_dirs=theme_dirs, record_history=False)
    app.sub_title = visible(f"replay of fleet {replay.fleet.name}" + (
        f" (nothing recorded for {', '.join(replay.missing)})" if replay.missing else ""))
    return app


def run_fleet_replay(fleet: FleetSettings, *, since: float | None = None, select: str | None = None,
                     clock: Clock | None = None) -> int:
    """Blocking entry point for `omeconsole --replay --fleet NAME`; says why there is nothing to replay."""
    clock = clock or SystemClock()
    try:
        replay = open_fleet_replay(fleet, clock, since=since or DEFAULT_SINCE_S)
    except ReplayRefused as refused:
        print(f"omeconsole: replay: {refused}", file=sys.stderr)
        return refused.code
    try:
        app = fleet_replay_app(replay, clock, select=NodePath.parse(select) if select else None)
        app.run()
        return app.return_code or 0
    finally:
        replay.reader.close()

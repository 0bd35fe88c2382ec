"""`omeconsole --replay [--since 2h]`: the console on recorded data, from the history store alone.

`open_replay` chooses the server (the one the store holds; with several, the one `--profile` or
`--api-url` names) and the range (the last `since` seconds, from the first moment recorded in it),
and says what is wrong before any screen opens: no store, nothing recorded, several servers and none
named. The app is the console's own, its session built on a `ReplayEngine` (no polling, a client that
cannot reach anything, read-only context) and its screens the replay's (`ReplayDashboard`). Nothing is
recorded during a replay.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from textual.screen import Screen

from omeconsole.core.adops.audit import AuditLog, default_audit_path
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.core.history.database import HistoryError
from omeconsole.core.history.observations import server_key
from omeconsole.core.history.reader import HistoryReader, StoredServer
from omeconsole.core.history.replay import ReplayCursor, opening_moment
from omeconsole.core.history.replay_engine import ReplayClock, ReplayEngine, no_network_client
from omeconsole.core.history.summary import duration
from omeconsole.core.session import Connector, Session, poll_settings
from omeconsole.core.text import visible
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.replay import ReplayDashboard, ReplayNodeScreen

DEFAULT_SINCE_S = 3600.0
REFUSED_EXIT = 1
USAGE_EXIT = 2
"""The command line's statuses (the UI does not import the command line)."""


class ReplayRefused(Exception):
    """Nothing to replay, in words for the operator; `code` is the exit status."""

    def __init__(self, message: str, code: int = REFUSED_EXIT) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Replay:
    """What a replay opens: the store, the server in it, the range, and the cursor over it."""

    reader: HistoryReader
    server: StoredServer
    cursor: ReplayCursor


def _server(reader: HistoryReader, settings: Settings, named: bool) -> StoredServer:
    servers = reader.servers()
    if not servers:
        raise ReplayRefused("nothing recorded yet")
    if named:
        key = server_key(settings.api_url)
        found = [s for s in servers if s.key == key or (settings.profile and s.profile == settings.profile)]
        if not found:
            raise ReplayRefused(f"nothing recorded for {visible(key)}")
        return found[0]
    if len(servers) == 1:
        return servers[0]
    names = ", ".join(visible(s.key) + (f" ({visible(s.profile)})" if s.profile else "") for s in servers)
    raise ReplayRefused(f"the store holds several servers ({names}): name one with --profile or --api-url",
                        USAGE_EXIT)


def open_replay(settings: Settings, clock: Clock, *, since: float = DEFAULT_SINCE_S, named: bool = False,
                path: Path | None = None) -> Replay:
    """The replay of the last `since` seconds (a ReplayRefused says why there is none)."""
    now = clock.wall().timestamp()
    try:
        reader = HistoryReader(path or settings.history.database_path(), settings.history)
    except HistoryError as error:
        raise ReplayRefused(str(error)) from None
    try:
        server = _server(reader, settings, named)
        hosts = [s for s in reader.summaries(server.key, level="vhost") if s.last_seen >= now - since]
        if not hosts:
            raise ReplayRefused(f"nothing recorded for {visible(server.key)} in the last {duration(since)}")
        start = max(now - since, min(s.first_seen for s in hosts))
        return Replay(reader, server, ReplayCursor(clock, start, now, opening_moment(reader, [server.key], start, now)))
    except BaseException:
        reader.close()
        raise


def replay_connector(replay: Replay, clock: Clock, *, audit_path: Path | None = None) -> Connector:
    """Sessions over the replay: every one reads the same store at the same cursor, none can send, and none
    reads a server's playlists."""

    def connect(settings: Settings) -> Session:
        # The playlists are the server's present, not the replayed moment: followed, they put today's breaks
        # (or "playlist cannot be read" and `ad?`, as a read to a gone server failed or not yet) on the past.
        settings = settings.model_copy(update={"follow_playlists": False})
        api_url = replay.server.api_url or f"http://{replay.server.key}"
        client = no_network_client(api_url)
        replay_clock = ReplayClock(replay.cursor, clock)
        engine = ReplayEngine(replay.reader, replay.server.key, replay_clock, client, poll_settings(settings))
        context = ServerContext(api_url=client.api_url, profile=replay.server.profile, read_only=True)
        adops = AdOps(client, AuditLog(audit_path or default_audit_path()), replay_clock, context,
                      publisher_url=settings.publisher_base(), verify=not settings.insecure)
        return Session(settings, context, client, engine, adops, replay_clock)

    return connect


class ReplayApp(ConsoleApp):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    """The console's stylesheet (a relative path would be looked for beside this module)."""

    def dashboard(self, live: LiveSession, select: NodePath | None) -> Screen[None]:
        return ReplayDashboard(live, select=select)

    def node_screen(self, live: LiveSession, path: NodePath) -> Screen[None]:
        return ReplayNodeScreen(live, path)


def replay_app(replay: Replay, settings: Settings, clock: Clock, *, select: NodePath | None = None,
               audit_path: Path | None = None, theme_dirs: list[Path] | None = None, redraw_gap: float = 0.0,
               chart_gap: float = 0.0) -> ReplayApp:
    app = ReplayApp(settings, replay_connector(replay, clock, audit_path=audit_path), clock, select=select,
                    theme_dirs=theme_dirs, redraw_gap=redraw_gap, chart_gap=chart_gap, record_history=False)
    app.sub_title = f"replay of {replay.server.key}"
    return app


def run_replay(settings: Settings, *, since: float | None = None, named: bool = False, select: str | None = None,
               clock: Clock | None = None) -> int:
    """Blocking entry point for `omeconsole --replay`; says why there is nothing to replay (exit 1 or 2)."""
    clock = clock or SystemClock()
    try:
        replay = open_replay(settings, clock, since=since or DEFAULT_SINCE_S, named=named)
    except ReplayRefused as refused:
        print(f"omeconsole: replay: {refused}", file=sys.stderr)
        return refused.code
    try:
        # No gaps between redraws: a replay's clock goes back when the operator scrubs back, and a gap
        # measured on it would hold the screen until the cursor caught up.
        app = replay_app(replay, settings, clock, select=NodePath.parse(select) if select else None)
        app.run()
        return app.return_code or 0
    finally:
        replay.reader.close()

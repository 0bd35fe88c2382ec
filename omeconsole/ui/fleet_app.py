"""The console on a fleet (`omeconsole --fleet NAME`, `omeconsole demo --fleet`): every server at once.

The console app with a fleet instead of one session: one session per server under the fleet's request
budget (`core.fleet.Fleet`), shown on a `FleetScreen`. What changes from one server: the app's `live`
is the session of the server the operator is on; connecting elsewhere or switching profile is not
offered (the fleet is the config's `[fleets.NAME]`); a refused token is shown in that server's row
instead of a prompt (the others keep running).

What the single-server console does, it does for every server: each server's samples go into the one
history store under that server's own name (as `omeconsole record --fleet` records them) and its charts
start with its recorded past; each server's `[[alerts]]` rules run on its own readings (a rule's scope
may name the server by profile); the sends of the audit log with no outcome are said at start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from textual.app import SystemCommand
from textual.screen import Screen

from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.core.session import Session
from omeconsole.core.text import visible
from omeconsole.live.alert_watch import SessionAlerts
from omeconsole.live.fleet import FleetLive
from omeconsole.live.history_recording import ConsoleRecording, server_of
from omeconsole.live.pace import CHART_GAP, REDRAW_GAP
from omeconsole.live.recorded_past import StoredPast
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui import adops_seam
from omeconsole.ui.app import ConsoleApp, StartWatch
from omeconsole.ui.commands import action_commands
from omeconsole.ui.screens.fleet_screen import FleetScreen

FleetConnector = Callable[[FleetSettings], Fleet]


def _no_single_server(_settings: Settings) -> Session:
    raise AssertionError("a fleet app connects its fleet, never one server")


class FleetConsoleApp(ConsoleApp):
    def __init__(self, fleet: FleetSettings, connect: FleetConnector, clock: Clock, *,
                 select: NodePath | None = None, theme_dirs: Sequence[Path] | None = None,
                 export_dir: Path | None = None, redraw_gap: float = 0.0, chart_gap: float = 0.0,
                 record_history: bool = True, start_watch: StartWatch | None = None) -> None:
        """`fleet.servers[0]` gives what is not a server's (theme, keymap, the history store and its
        retention); `connect` builds the fleet; `record_history` as for the single-server console."""
        super().__init__(fleet.servers[0], _no_single_server, clock, select=select, theme_dirs=theme_dirs,
                         export_dir=export_dir, redraw_gap=redraw_gap, chart_gap=chart_gap,
                         record_history=record_history, start_watch=start_watch)
        self.fleet_settings = fleet
        self._connect_fleet = connect
        self._fleet: FleetLive | None = None

    @property
    def fleet(self) -> FleetLive:
        assert self._fleet is not None, "the app is not mounted"
        return self._fleet

    @property
    def live(self) -> LiveSession:
        """The session of the server the operator is on."""
        return self.fleet.live

    def _open_session(self, select: NodePath | None, note: str = "") -> None:
        fleet = self._connect_fleet(self.fleet_settings)
        recording = self._recording
        if recording is not None:
            recording.follow(*(member.session for member in fleet))
        self._fleet = FleetLive.build(
            fleet, self._ticker, self._options, self._pace, self._export_dir,
            past=partial(self._past_of, recording) if recording is not None else None, alerts=self._alerts_of)
        for live in self._fleet.lives.values():
            adops_seam.relay(self, live)
            if recording is not None:
                recording.follow_events(live)
        for watch in self._fleet.alert_watches():
            self._ticker.add_listener(watch.run_pass)
        self.run_worker(fleet.run(), name="fleet", group="engine", exclusive=True, exit_on_error=False)
        shown = self._show(self.fleet_screen(self._fleet, select))
        self._watch_start([member.engine for member in fleet], shown)
        self._tell_unknown_outcomes(self._fleet.live)  # one audit log for the fleet's sends

    def fleet_screen(self, fleet: FleetLive, select: NodePath | None) -> Screen[None]:
        """The fleet's first screen (a replay's app shows its own)."""
        return FleetScreen(fleet, select=select, intro=self.intro)

    def _past_of(self, recording: ConsoleRecording, session: Session) -> StoredPast:
        return StoredPast(recording.path, recording.settings, server_of(session).key, self.clock,
                          after=recording.settled)

    def _alerts_of(self, session: Session) -> SessionAlerts | None:
        return SessionAlerts(session, self.announce_firing) if session.settings.alerts else None

    def sends_in_flight(self) -> list[str]:
        """Every server's sends that left and are not answered yet."""
        if self._fleet is None:
            return []
        return [f"{send} on {name}" for name, live in self._fleet.lives.items()
                for send in live.session.adops.in_flight()]

    def is_current(self, live: LiveSession) -> bool:
        return self._fleet is not None and any(live is mine for mine in self._fleet.lives.values())

    async def on_unmount(self) -> None:
        if self._fleet is not None:
            await self._fleet.fleet.aclose()
            for live in self._fleet.lives.values():
                if live.past is not None:
                    live.past.close()
        if self._recording is not None:
            await self._recording.close()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from action_commands(screen)
        yield SystemCommand("Help (help)", "Every key, grouped", self.action_help)
        yield SystemCommand("Quit (quit)", "Leave the console", self.action_quit)
        for theme in sorted(self.available_themes):
            yield SystemCommand(f"Theme: {theme}", "Change the colours", partial(setattr, self, "theme", theme),
                                discover=theme.startswith("ome-"))


def run_fleet_app(fleet: FleetSettings, *, select: str | None = None, clock: Clock | None = None,
                  start_watch: StartWatch | None = None) -> int:
    """Run the console on every server of `fleet` until the user quits; 0 on a normal exit."""
    clock = clock or SystemClock()
    app = FleetConsoleApp(fleet, lambda settings: Fleet.connect(settings, clock), clock,
                          select=NodePath.parse(select) if select else None, redraw_gap=REDRAW_GAP,
                          chart_gap=CHART_GAP, start_watch=start_watch)
    app.sub_title = visible(f"fleet {fleet.name}")
    app.run()
    return app.return_code or 0

"""The console app: wiring, the app-wide keys, themes and keymap, and the screen stack.

The app makes a session from the settings (through the injected connector), wraps it for the screens
(`LiveSession`: the session, the console's clock tick, view options, pace) and shows a dashboard built
with it. Screens draw themselves from there. What the app still does itself is the link's life: a
refused token opens the token prompt; a new token, server or profile makes a new session, and the
screens of the old one give way to a dashboard of the new one on the same node.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

from pydantic import SecretStr
from textual import on, work
from textual.app import SystemCommand
from textual.message import Message
from textual.screen import Screen

from omeconsole.core.alerts.state import Alert
from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import ConfigError, Settings, config_path, load_settings, read_config_file
from omeconsole.core.export import export_directory
from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.core.session import Connector, Session, Started, connector
from omeconsole.core.text import visible
from omeconsole.live.ad_board import AdBoard
from omeconsole.live.alert_notices import DesktopMode, Notice, notify_send, osc9, osc777, resolve_mode
from omeconsole.live.alert_watch import SessionAlerts
from omeconsole.live.history_recording import ConsoleRecording, server_of
from omeconsole.live.pace import CHART_GAP, REDRAW_GAP, Pace
from omeconsole.live.recorded_past import StoredPast
from omeconsole.live.session import LiveSession, Ticker, ViewOptions
from omeconsole.live.terminal_graphics import ask_terminal
from omeconsole.model.paths import NodePath
from omeconsole.ui import adops_seam
from omeconsole.ui.actions import HELP_SECTIONS, bindings
from omeconsole.ui.commands import action_commands
from omeconsole.ui.keymap import split_keymap
from omeconsole.ui.screen_routes import ScreenRoutes
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.status import status_line
from omeconsole.ui.themes import DEFAULT_THEME, load_themes, theme_directories


class StartWatch(Protocol):
    """Told of a console's start: the process's garbage-collection policy (`cli/gc_policy.py`) listens, so
    that neither the engine nor the screens need to know of it."""

    def engine_started(self, engine: PollingEngine) -> None:
        """`engine` polls from now on (it may have started before the app, see `Started`)."""

    def first_screen_drawn(self) -> None:
        """The app's first screen is on the terminal."""


@dataclass
class LinkChanged(Message, bubble=False):
    """The current session's link changed state (the app acts on a refused token)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LinkChanged)


class ConsoleApp(ScreenRoutes):
    CSS_PATH = "app.tcss"
    TITLE = "omeconsole"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-compact"), (140, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-regular"), (40, "-tall")]
    BINDINGS = bindings("help", "quit", "ended", "interrupt")

    def __init__(self, settings: Settings, connector: Connector, clock: Clock, *,
                 select: NodePath | None = None, theme_dirs: Sequence[Path] | None = None,
                 export_dir: Path | None = None, redraw_gap: float = 0.0, chart_gap: float = 0.0,
                 record_history: bool = True, started: Started | None = None,
                 start_watch: StartWatch | None = None) -> None:
        """`record_history`: record every sample into the history store and start charts with the recorded
        past, as `[history] enabled` says (the demo and a replay have nothing of their own to record).
        `started`: the first session, already made from `settings` and polling (the command line starts
        it while the UI is imported); later ones come from `connector`. `start_watch`: told of the start."""
        super().__init__()
        if settings.thumbnails:
            # textual-image asks the terminal how it can draw pictures when it is imported, which works only
            # before Textual reads the terminal's input: the stream view's picture module is loaded now. Then the
            # console asks in its own way, waiting for the answers (live/terminal_graphics.py).
            importlib.import_module("omeconsole.ui.widgets.thumbnail_view")
            ask_terminal()
        self.settings = settings
        self.clock = clock
        self._connector = connector
        self._select = select
        self._theme_dirs = list(theme_dirs) if theme_dirs is not None else theme_directories()
        self._export_dir = export_dir or export_directory()
        self._pace = Pace(redraw_gap=redraw_gap, chart_gap=chart_gap)
        self._options = ViewOptions()
        self._ticker = Ticker(clock)
        self._live: LiveSession | None = None
        self._prompted: Session | None = None
        recording = record_history and settings.history.enabled
        self._recording = ConsoleRecording(settings.history, clock) if recording else None
        self._stop_alerts: Unsubscribe | None = None
        self._started = started
        self._start_watch = start_watch
        self._drawn_once = False
        self._theme_notes, self._theme_once_running = self._load_themes()
        self.intro: str | None = None
        """A line the dashboard shows above the tree (the demo says where its server is, and its token)."""

    @property
    def live(self) -> LiveSession:
        """The current session as the screens see it (the app is mounted)."""
        assert self._live is not None, "the app is not mounted"
        return self._live

    @property
    def session(self) -> Session:
        return self.live.session

    # Start and stop -----------------------------------------------------------------------------------

    def on_mount(self) -> None:
        for note, title in self._theme_notes:
            self.notify(note, title=title or "", severity="warning", markup=False)
        if self._theme_once_running is not None:
            self.theme = self._theme_once_running
        self._apply_keymap(self.settings.keymap)
        self.run_worker(self._ticker.run(), name="ticker", group="ticker", exit_on_error=False)
        if self._recording is not None:
            self._start_recording(self._recording)
        self._open_session(self._select)

    async def on_unmount(self) -> None:
        if self._live is not None:
            await self._live.session.aclose()
            if self._live.past is not None:
                self._live.past.close()
        if self._recording is not None:
            await self._recording.close()

    @work(group="history", exit_on_error=False)
    async def _start_recording(self, recording: ConsoleRecording) -> None:
        problem = await recording.start()
        if problem is not None:
            self.notify(visible(problem), title="no history", severity="warning", timeout=15, markup=False)

    def _load_themes(self) -> tuple[list[tuple[str, str | None]], str | None]:
        """Registers the theme files and applies the configured theme before the app runs, so that its
        stylesheets are parsed once, with that theme's colours: a theme set once the app runs has Textual
        parse every stylesheet again (~10 ms before the first frame). Returns what to tell the user (text,
        title) once mounted, and a theme that can only be set then (None when applied already)."""
        loaded = load_themes(self._theme_dirs)
        for theme in loaded.themes:
            self.register_theme(theme)
        notes: list[tuple[str, str | None]] = [(visible(problem), "theme file skipped") for problem in loaded.problems]
        wanted = self.settings.theme if "theme" in self.settings.model_fields_set else DEFAULT_THEME
        if wanted not in self.available_themes:
            notes.append((f"no theme named {visible(wanted)!r}; using {DEFAULT_THEME}", None))
            wanted = DEFAULT_THEME
        chosen = self.get_theme(wanted)
        if chosen is None:
            return notes, None
        if chosen.dark != self.current_theme.dark:
            # Textual picks its ANSI colour mapping (dark or light) when the app is built; only its theme
            # watcher, which runs once the app does, changes it.
            return notes, chosen.name
        self.set_reactive(ConsoleApp.theme, chosen.name)  # the watcher's reparse is what is saved
        self.stylesheet.set_variables(self.get_css_variables())
        self.set_class(True, f"-theme-{chosen.name}", update=False)
        return notes, None

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        valid, unknown = split_keymap(keymap, set(HELP_SECTIONS))
        if unknown:
            self.notify(visible(f"keymap: unknown binding id(s) {', '.join(unknown)}; known: "
                                f"{', '.join(sorted(HELP_SECTIONS))}"), severity="warning", timeout=10, markup=False)
        self.set_keymap(valid)

    # Sessions -------------------------------------------------------------------------------------------

    def _open_session(self, select: NodePath | None, note: str = "") -> None:
        """Connect with the current settings; the previous session's screens and link are closed."""
        previous = self._live
        started, self._started = self._started, None
        session = started.session if started is not None else self._connector(self.settings)
        past = None
        if self._recording is not None:
            self._recording.follow(session)
            past = StoredPast(self._recording.path, self.settings.history, server_of(session).key, self.clock,
                              after=self._recording.settled)
        alert_watch = SessionAlerts(session, self.announce_firing) if session.settings.alerts else None
        board = AdBoard(session.adops, session.engine if session.settings.follow_playlists else None,
                        lambda: session.engine.server, verify=not session.settings.insecure)
        live = LiveSession(session, self._ticker, board, self._options, self._pace,
                           self._export_dir, alert_watch, past=past)
        if self._recording is not None:
            self._recording.follow_events(live)
        if note:
            live.notes.say(note, self.clock.monotonic())
        self._live = live
        if self._stop_alerts is not None:
            self._stop_alerts()
        self._stop_alerts = self._ticker.add_listener(alert_watch.run_pass) if alert_watch is not None else None
        adops_seam.relay(self, live)
        session.engine.add_listener(partial(self._engine_update, session))
        self.run_worker(started.running if started is not None else session.engine.run(), name="engine",
                        group="engine", exclusive=True, exit_on_error=False)
        shown = self._show(self.dashboard(live, select))
        self._watch_start([session.engine], shown)
        if started is not None:
            self.post_message(LinkChanged())  # a refused token may have been answered before this listened
        self._tell_unknown_outcomes(live)
        if previous is not None:
            self.run_worker(previous.session.aclose(), group="close", exit_on_error=False)
            if previous.past is not None:
                previous.past.close()

    def _watch_start(self, engines: Sequence[PollingEngine], shown: Awaitable[object]) -> None:
        """Tells the start watch of the engines, and of the first screen once it is on the terminal."""
        watch = self._start_watch
        if watch is None:
            return
        for engine in engines:
            watch.engine_started(engine)
        if not self._drawn_once:
            self._drawn_once = True
            self.run_worker(self._tell_drawn(watch, shown), group="start", exit_on_error=False)

    async def _tell_drawn(self, watch: StartWatch, shown: Awaitable[object]) -> None:
        await shown
        await self.screen.wait_for_refresh()
        watch.first_screen_drawn()

    def dashboard(self, live: LiveSession, select: NodePath | None) -> Screen[None]:
        """The first screen of a session (a replay's app shows its own)."""
        return DashboardScreen(live, select=select, intro=self.intro)

    def _show(self, dashboard: Screen[None]) -> Awaitable[object]:
        """The new session's dashboard replaces every screen of the old one (awaitable: until it is shown)."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) == 2:
            return self.switch_screen(dashboard)
        return self.push_screen(dashboard)

    def _engine_update(self, session: Session, update: EngineUpdate) -> None:
        if update.connection_changed and self._live is not None and session is self._live.session:
            self.post_message(LinkChanged())

    @on(LinkChanged)
    def _link_changed(self) -> None:
        session = self.session
        connection = session.engine.connection
        if connection.status == "unauthorized" and self._prompted is not session:
            self._prompted = session
            from omeconsole.ui.screens.prompts import TokenPrompt  # only after a 401

            self.push_screen(TokenPrompt(connection.message), self._token_entered)

    def _token_entered(self, token: str | None) -> None:
        if token:
            self._reconnect(self.settings.model_copy(update={"token": SecretStr(token)}),
                            "connecting with the new token")

    def _reconnect(self, settings: Settings, note: str) -> None:
        self.settings = settings
        self._prompted = None
        shown = next((s for s in reversed(self.screen_stack) if isinstance(s, LiveScreen)), None)
        self._open_session(shown.selected_path() if shown is not None else self._select, note)

    @work(group="audit-read", exit_on_error=False)
    async def _tell_unknown_outcomes(self, live: LiveSession) -> None:
        """Sends whose outcome was never recorded (the console was killed mid-send), said once at start."""
        contents = await asyncio.to_thread(live.audit.read_all)
        unknown = contents.unknown
        if unknown and self.is_current(live):
            latest = unknown[-1]
            self.notify(visible(f"{len(unknown)} send(s) in the audit log have no recorded outcome (the last: "
                                f"{latest.action} to {latest.stream_path} at {latest.time}): check the playlist "
                                "before sending again; E lists them"),
                        title="outcome unknown", severity="warning", timeout=20, markup=False)

    def is_current(self, live: LiveSession) -> bool:
        """`live` is still a session of the console (not one a reconnection replaced)."""
        return live is self._live

    # Alerts that start firing ----------------------------------------------------------------------------

    def announce_firing(self, firing: Sequence[Alert]) -> None:
        """The alerts one pass made fire: the bell and a desktop notice, once for the pass, if configured."""
        notices = self.settings.alert_notices
        if notices.bell:
            self.bell()
        if notices.desktop != "off":
            self.desktop_notice(Notice.of(firing), resolve_mode(notices.desktop))

    def desktop_notice(self, notice: Notice, mode: DesktopMode) -> None:
        """Shows `notice` on the desktop through `mode` (notify-send, or the terminal's OSC 777 / OSC 9)."""
        if mode == "notify-send":
            self.run_worker(notify_send(notice), group="desktop-notice", exit_on_error=False)
        elif mode in ("osc777", "osc9") and self._driver is not None:
            # Textual writes no OSC notification itself; its driver is the one writer to the terminal
            # (App.bell and App.copy_to_clipboard write through it the same way).
            self._driver.write(osc777(notice) if mode == "osc777" else osc9(notice))

    # App keys and commands ---------------------------------------------------------------------------------

    def action_help(self) -> None:
        from omeconsole.ui.screens.help import HelpScreen, help_entries  # only when asked

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(help_entries(self.screen, self.settings.keymap)))

    def sends_in_flight(self) -> list[str]:
        """The sends of this console that left and are not answered yet, in words."""
        return self.live.session.adops.in_flight() if self._live is not None else []

    def action_interrupt(self) -> None:
        """ctrl+c quits, as in any terminal program; while a send is in flight it asks first."""
        sending = self.sends_in_flight()
        if not sending:
            self.exit()
            return
        from omeconsole.ui.screens.quit_prompt import QuitWhileSending  # only when asked

        if not isinstance(self.screen, QuitWhileSending):
            self.push_screen(QuitWhileSending(sending), self._quit_answered)

    def _quit_answered(self, quit_anyway: bool | None) -> None:
        if quit_anyway:
            self.exit()

    def action_ended(self) -> None:
        from omeconsole.ui.screens.ended import EndedScreen, ended_source  # only when asked

        source = ended_source(self.live)
        if source is None:
            self.notify("no history is recorded ([history] enabled = false, or the demo)", markup=False)
        elif not isinstance(self.screen, EndedScreen):
            shown = next((s for s in reversed(self.screen_stack) if isinstance(s, LiveScreen)), None)
            live = self.live
            line = shown.status_now if shown is not None else partial(status_line, live, None)
            self.push_screen(EndedScreen(source, self.clock, status_line=line))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield SystemCommand("Connect to a server…", "Enter a management API address and token", self.action_connect)
        yield from action_commands(screen)
        for profile in self.profile_names():
            yield SystemCommand(f"Switch profile: {visible(profile)}", "Connect with this profile from the config file",
                                partial(self.switch_profile, profile))
        yield SystemCommand("Help (help)", "Every key, grouped", self.action_help)
        yield SystemCommand("Quit (quit)", "Leave the console", self.action_quit)
        for theme in sorted(self.available_themes):
            yield SystemCommand(f"Theme: {theme}", "Change the colours", partial(setattr, self, "theme", theme),
                                discover=theme.startswith("ome-"))

    def action_connect(self) -> None:
        from omeconsole.ui.screens.prompts import ConnectPrompt  # only when asked

        self.push_screen(ConnectPrompt(self.settings.api_url), self._connect_entered)

    def _connect_entered(self, answer: tuple[str, str | None] | None) -> None:
        if answer is None:
            return
        url, token = answer
        update: dict[str, object] = {"api_url": url}
        if token:
            update["token"] = SecretStr(token)
        self._reconnect(self.settings.model_copy(update=update), "connected to a new address")

    def profile_names(self) -> list[str]:
        try:
            profiles = read_config_file(config_path(), lambda _message: None).get("profiles", {})
        except ConfigError:
            return []
        return sorted(profiles) if isinstance(profiles, dict) else []

    def switch_profile(self, name: str) -> None:
        try:
            settings = load_settings(profile=name, warn=lambda message: self.notify(
                visible(message), severity="warning", markup=False))
        except (ConfigError, ValueError) as error:
            self.notify(visible(str(error)), title="cannot switch profile", severity="error", markup=False)
            return
        self._reconnect(settings, f"switched to profile {name}")


def run_app(settings: Settings, *, select: str | None = None, connector: Connector | None = None,
            clock: Clock | None = None, started: Started | None = None, start_watch: StartWatch | None = None) -> int:
    """Run the console until the user quits; 0 on a normal exit. `select` is "vhost[/app[/stream]]".
    `started`: a session already polling (see `ConsoleApp`); the console runs on its event loop.
    `start_watch`: told of the console's start (see `ConsoleApp`)."""
    clock = clock or (started.session.clock if started is not None else SystemClock())
    app = ConsoleApp(settings, connector or _default_connector(clock), clock,
                     select=NodePath.parse(select) if select else None, redraw_gap=REDRAW_GAP, chart_gap=CHART_GAP,
                     started=started, start_watch=start_watch)
    app.run(loop=started.loop if started is not None else None)
    return app.return_code or 0


def _default_connector(clock: Clock) -> Connector:
    return connector(clock)

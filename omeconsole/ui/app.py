"""The console app: owns the link to the server, the view options, and the app-wide keys.

The engine runs as a worker on the app's loop and reports through a listener; each report becomes
one coalescing `DataChanged` message, and only the screen in front is redrawn. The clock and the
connector (engine + client factory) are injected, so tests drive time and data without subclassing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import SecretStr
from rich.text import Text
from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer

from omeconsole.core.adops.controller import StreamController
from omeconsole.core.clock import Clock, SystemClock
from omeconsole.core.config import ConfigError, Settings, config_path, load_settings, read_config_file
from omeconsole.core.export import export_directory, write_history
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.core.session import Connector, Session, connector
from omeconsole.core.tree_model import SortOrder, TreeArranger
from omeconsole.model.nodes import Listing, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState
from omeconsole.ui import badges
from omeconsole.ui.adops import (
    ADOPS_BINDINGS,
    AdBreakScreen,
    AdEventsScreen,
    ad_ops_commands,
    cue_in_flow,
    cue_out_flow,
    id3_flow,
    relay_changes,
)
from omeconsole.ui.commands import ConsoleCommands
from omeconsole.ui.keymap import binding_ids, split_keymap
from omeconsole.ui.messages import ClockTick, DataChanged
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.help import HelpScreen, help_entries
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ConnectPrompt, ExportDone, TokenPrompt
from omeconsole.ui.themes import DEFAULT_THEME, load_themes, theme_directories
from omeconsole.ui.widgets.chart_scale import WINDOWS, window_label
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import StatusLine

REDRAW_GAP = 0.9
"""Seconds (console clock) between data redraws in a real terminal; reports arriving faster are merged
into the next one. The constructor's default is 0 (every report redraws at once), which is what a test
on a frozen clock needs, since the merge waits on a real-time timer."""
CHART_GAP = 2.0
"""Seconds (console clock) between rebuilds of the bit-rate chart in a real terminal, its costliest
widget (half of a frame's drawing); the chart spans a minute or more, so one new point in two seconds
reads the same. The numbers and sparklines beside it still follow every redraw. Tests keep 0."""
TICK_REDRAW_AFTER = 0.9
"""A clock tick redraws (ages, countdowns) only if no data update has redrawn for this long."""
WIDE_COLUMNS = 140
"""From this width the tree has room for every badge (the "-wide" breakpoint)."""
INTERVAL_STEPS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
RESORT_SECONDS = 5.0
"""Sorting by live values reorders the tree at most this often, so rows do not jump every second."""


@runtime_checkable
class LiveScreen(Protocol):
    def redraw(self, *, tree_changed: bool, changed: frozenset[NodePath] | None) -> None: ...


def selected_controller(screen: Screen[Any]) -> StreamController | None:
    """The ad operations of the stream `screen` has selected; None unless a stream is."""
    app, path = screen.app, getattr(screen, "selected", None)
    if isinstance(app, ConsoleApp) and app.session is not None and isinstance(path, NodePath) and path.stream:
        return app.session.adops.stream(path)
    return None


class ConsoleApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "omeconsole"
    COMMANDS = App.COMMANDS | {ConsoleCommands, ad_ops_commands(selected_controller)}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-compact"), (WIDE_COLUMNS, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-regular"), (40, "-tall")]
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave the console"),
        Binding("question_mark", "help", "Help", id="help", tooltip="Every key, from the bindings"),
        Binding("p", "pause", "Pause", id="pause", tooltip="Stop polling; the data's age keeps counting"),
        Binding("r", "refresh", "Refresh", id="refresh", tooltip="Poll now"),
        Binding("plus", "interval_longer", "Slower", id="interval_longer", tooltip="Longer refresh interval"),
        Binding("minus", "interval_shorter", "Faster", id="interval_shorter",
                tooltip="Shorter refresh interval"),
        Binding("w", "chart_window(1)", "Window", id="chart_window",
                tooltip="What the charts span: 1 min, 5 min, 15 min, 1 h in turn"),
        Binding("W", "chart_window(-1)", "Shorter window", id="chart_window_back", show=False,
                tooltip="The charts' window, the other way round"),
        # Out of the footer until the screens show them by selection (a stream only).
        *(replace(binding, show=False) for binding in ADOPS_BINDINGS),
    ]

    filter_text: reactive[str] = reactive("", init=False)
    sort_order: reactive[SortOrder] = reactive(SortOrder.NAME, init=False)
    chart_window: reactive[float] = reactive(WINDOWS[0], init=False)
    """Seconds of history the charts and sparklines show."""

    def __init__(self, settings: Settings, connector: Connector, clock: Clock, *,
                 select: NodePath | None = None, theme_dirs: Sequence[Path] | None = None,
                 export_dir: Path | None = None, redraw_gap: float = 0.0, chart_gap: float = 0.0) -> None:
        super().__init__()
        self._redraw_gap = redraw_gap
        self.chart_gap = chart_gap
        self._held_tree = False
        self._held_changed: frozenset[NodePath] = frozenset()
        self._flush_timer: Timer | None = None
        self._shown_data = False
        self.settings = settings
        self.clock = clock
        self._connector = connector
        self._theme_dirs = list(theme_dirs) if theme_dirs is not None else theme_directories()
        self._export_dir = export_dir or export_directory()
        self._pending_select = select
        self._told_missing = False
        self.session: Session | None = None
        self._chosen: NodePath | None = None
        self._visible: tuple[NodePath, ...] = ()
        self._expanded: frozenset[NodePath] = frozenset()
        self._children = TreeArranger(lambda path: self.view(path).latest, resort_every=RESORT_SECONDS)
        self._prompted_session: Session | None = None
        self._connected_at = clock.monotonic()
        self._redrawn_at = -math.inf
        self._labels: dict[NodePath, tuple[tuple[object, ...], Text]] = {}

    # Start and stop -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._load_themes()
        self._apply_keymap(self.settings.keymap)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._redraw(True, None))
        self.push_screen(DashboardScreen())
        self._open_session()
        if self._pending_select is not None:
            self.choose(self._pending_select)
        self.run_worker(self._tick(), name="ticker", group="ticker", exit_on_error=False)

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.aclose()

    def _load_themes(self) -> None:
        loaded = load_themes(self._theme_dirs)
        for theme in loaded.themes:
            self.register_theme(theme)
        for problem in loaded.problems:
            self.notify(problem, title="theme file skipped", severity="warning")
        wanted = self.settings.theme if "theme" in self.settings.model_fields_set else DEFAULT_THEME
        if wanted not in self.available_themes:
            self.notify(f"no theme named {wanted!r}; using {DEFAULT_THEME}", severity="warning")
            wanted = DEFAULT_THEME
        if wanted in self.available_themes:
            self.theme = wanted

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        known = binding_ids([ConsoleApp, DashboardScreen, NodeTree, NodeScreen, HelpScreen, TokenPrompt,
                             ConnectPrompt, ExportDone])
        valid, unknown = split_keymap(keymap, known)
        if unknown:
            self.notify(f"keymap: unknown binding id(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                        severity="warning", timeout=10)
        self.set_keymap(valid)

    def _open_session(self) -> None:
        """(Re)connect with the current settings; the previous link, if any, is closed."""
        previous = self.session
        session = self._connector(self.settings)
        session.engine.add_listener(partial(self._engine_update, session))
        relay_changes(self, session.adops)
        self.session = session
        self._connected_at = self.clock.monotonic()
        self._chosen = None
        self._visible = ()
        self._expanded = frozenset()
        self._labels.clear()
        self.run_worker(session.engine.run(), name="engine", group="engine", exclusive=True, exit_on_error=False)
        if previous is not None:
            self.run_worker(previous.aclose(), group="close", exit_on_error=False)
        self._redraw(True, None)

    def _engine_update(self, session: Session, update: EngineUpdate) -> None:
        if session is self.session:
            self.post_message(DataChanged(update.changed, update.tree_changed, update.connection_changed))

    async def _tick(self) -> None:
        while True:
            await self.clock.sleep(1.0)
            self.post_message(ClockTick())

    # Data from the engine -----------------------------------------------------------------------

    @property
    def engine(self) -> PollingEngine:
        assert self.session is not None, "the app is not mounted"
        return self.session.engine

    @property
    def connection(self) -> LinkState:
        return self.engine.connection if self.session is not None else LinkState()

    @on(DataChanged)
    def _data_changed(self, message: DataChanged) -> None:
        self._children.readings_changed(message.changed)
        if message.connection_changed:
            self._connection_changed()
        self._held_tree = self._held_tree or message.tree_changed
        self._held_changed = self._held_changed | message.changed
        if not self._shown_data or self.clock.monotonic() - self._redrawn_at >= self._redraw_gap:
            self._flush_redraw()  # until the first readings are on screen, every report is drawn at once
        elif self._flush_timer is None:
            # The engine reports after every request batch; the screen follows at most every gap.
            self._flush_timer = self.set_timer(self._redraw_gap, self._timer_flush)

    def _timer_flush(self) -> None:
        self._flush_timer = None
        self._flush_redraw()

    def _flush_redraw(self) -> None:
        if self._flush_timer is not None:  # flushed before its timer: the timer would redraw again for nothing
            self._flush_timer.stop()
            self._flush_timer = None
        tree_changed, changed = self._held_tree, self._held_changed
        self._held_tree, self._held_changed = False, frozenset()
        self._redraw(tree_changed, changed)
        if not self._shown_data:
            self._shown_data = any(self.view(path).latest is not None for path in self._visible)

    @on(ClockTick)
    def _clock_tick(self) -> None:
        if self.clock.monotonic() - self._redrawn_at >= TICK_REDRAW_AFTER:  # fresh data redrew recently
            self._redraw(False, frozenset())

    def _redraw(self, tree_changed: bool, changed: frozenset[NodePath] | None) -> None:
        screen = self.screen if self.screen_stack else None
        # Shutting down, screens lose their widgets before the app's queue is drained: a report still in it
        # (the engine answers a few times a second) has nothing to draw on then.
        if isinstance(screen, LiveScreen) and screen.is_mounted and self.is_running:
            self._redrawn_at = self.clock.monotonic()
            screen.redraw(tree_changed=tree_changed, changed=changed)

    def _connection_changed(self) -> None:
        connection = self.engine.connection
        if connection.status == "unauthorized" and self._prompted_session is not self.session:
            self._prompted_session = self.session
            self.push_screen(TokenPrompt(connection.message), self._token_entered)

    def _token_entered(self, token: str | None) -> None:
        if token:
            self.settings = self.settings.model_copy(update={"token": SecretStr(token)})
            self._open_session()

    # What screens ask for -----------------------------------------------------------------------

    def view(self, path: NodePath) -> NodeView:
        return self.engine.node(path)

    def node_label(self, path: NodePath) -> Text:
        """Full badges when the terminal is wide; name, state and viewers when it is not.

        Labels are cached per node until its reading, state, width class or theme changes, so a tree
        of thousands of streams rebuilds cheaply and unchanged rows are not redrawn.
        """
        view = self.view(path)
        compact = self.compact_labels
        key = (view.state, view.latest.at if view.latest else None, view.info is not None, compact, self.theme)
        cached = self._labels.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        label = badges.node_label(view, self.theme_variables, compact=compact)
        self._labels[path] = (key, label)
        return label

    @property
    def compact_labels(self) -> bool:
        """Below WIDE_COLUMNS, tree labels carry only name, state and viewers."""
        return self.size.width < WIDE_COLUMNS

    def listing(self) -> Listing:
        return self.engine.listing()

    def children_of(self, path: NodePath) -> list[NodePath]:
        self._children.arrange_by("", self.sort_order)
        return self._children.arrange(self.listing(), self.clock.monotonic()).children(path)

    def choose(self, path: NodePath | None) -> None:
        """The node the user looks at: polled first, every interval."""
        if path != self._chosen and self.session is not None:
            self._chosen = path
            self.engine.select(path)

    def engine_visible(self, paths: Iterable[NodePath], expanded: Iterable[NodePath] = ()) -> None:
        """What the screen in front shows, and which applications' streams it lists: all that is polled."""
        visible, opened = tuple(paths), frozenset(expanded)
        if (visible, opened) != (self._visible, self._expanded) and self.session is not None:
            self._visible, self._expanded = visible, opened
            self.engine.set_on_screen(visible, opened)

    @property
    def pending_selection(self) -> NodePath | None:
        """The `--select` node, until it has been found in the tree."""
        return self._pending_select

    def drop_pending_selection(self) -> None:
        """The user took over the cursor: `--select` no longer applies."""
        self._pending_select = None

    def try_pending_selection(self, tree: NodeTree) -> None:
        """Honours `--select` once the node appears in the tree; says so once if it is not there."""
        wanted = self._pending_select
        if wanted is None:
            return
        if tree.select_path(wanted):
            self._pending_select = None
            return
        waited = self.clock.monotonic() - self._connected_at
        if (not self._told_missing and self.connection.status == "connected"
                and waited >= self.settings.listing_interval):
            self._told_missing = True
            self.notify(f"{wanted} is not on the server (yet); it will be selected when it appears",
                        severity="warning")

    def empty_message(self) -> str:
        connection = self.connection
        if connection.status != "connected":
            return "waiting for the server…"
        if self.filter_text:
            return f"nothing matches the filter {self.filter_text!r} (Esc clears it)"
        return "no virtual hosts on this server yet" if not self.engine.listing() else "select a node"

    def status_line(self, selected: NodePath | None) -> StatusLine:
        now = self.clock.monotonic()
        age = self.view(selected).age(now) if selected is not None and self.session is not None else None
        return StatusLine(connection=self.connection, selected=str(selected) if selected else "",
                          paused=self.engine.paused if self.session else False,
                          interval=self.engine.interval if self.session else self.settings.interval,
                          data_age=age, sort=self.sort_order.value, filter=self.filter_text)

    def profile_names(self) -> list[str]:
        try:
            profiles = read_config_file(config_path(), lambda _message: None).get("profiles", {})
        except ConfigError:
            return []
        return sorted(profiles) if isinstance(profiles, dict) else []

    # View options -------------------------------------------------------------------------------

    def watch_filter_text(self) -> None:
        self._redraw(True, None)

    def watch_sort_order(self) -> None:
        self._redraw(True, None)

    def watch_chart_window(self) -> None:
        self._redraw(False, None)

    def cycle_sort(self) -> None:
        self.sort_order = self.sort_order.next()
        self.notify(f"sorted by {self.sort_order.value}", timeout=2)

    def set_theme(self, name: str) -> None:
        self.theme = name

    # Actions ------------------------------------------------------------------------------------

    def open_node(self, path: NodePath) -> None:
        self.push_screen(NodeScreen(path))

    def export_node(self, path: NodePath | None) -> None:
        if path is None:
            self.notify("select a node to export first", severity="warning")
            return
        view = self.view(path)
        if not view.history:
            self.notify(f"no history for {path} yet", severity="warning")
            return
        try:
            paths = write_history(view, self._export_dir, self.clock.wall(), self.clock.monotonic())
        except OSError as error:
            self.notify(f"export failed: {error.strerror or error}", severity="error")
            return
        self.push_screen(ExportDone(str(path), paths))

    def action_export(self) -> None:
        screen = self.screen
        self.export_node(getattr(screen, "selected", None))

    def action_pause(self) -> None:
        self.engine.paused = not self.engine.paused
        self._redraw(False, frozenset())

    def action_chart_window(self, step: int) -> None:
        self.chart_window = WINDOWS[(WINDOWS.index(self.chart_window) + step) % len(WINDOWS)]
        self.notify(f"charts show the last {window_label(self.chart_window)}", timeout=2)

    def action_refresh(self) -> None:
        self.engine.refresh_now()

    def action_interval_longer(self) -> None:
        self._step_interval(+1)

    def action_interval_shorter(self) -> None:
        self._step_interval(-1)

    def _step_interval(self, direction: int) -> None:
        current = self.engine.interval
        if direction > 0:
            steps = [s for s in INTERVAL_STEPS if s > current + 1e-9]
            new = steps[0] if steps else current
        else:
            steps = [s for s in INTERVAL_STEPS if s < current - 1e-9]
            new = steps[-1] if steps else current
        self.engine.interval = new
        self.notify(f"refresh every {new:g} s", timeout=2)
        self._redraw(False, frozenset())

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(help_entries(self.screen, self.settings.keymap)))

    def action_connect(self) -> None:
        self.push_screen(ConnectPrompt(self.settings.api_url), self._connect_entered)

    def _connect_entered(self, answer: tuple[str, str | None] | None) -> None:
        if answer is None:
            return
        url, token = answer
        update: dict[str, object] = {"api_url": url}
        if token:
            update["token"] = SecretStr(token)
        self.settings = self.settings.model_copy(update=update)
        self._prompted_session = None
        self._open_session()

    # Ad operations: the flows of ui/adops on the selected stream ----------------------------------

    def _selected_stream(self) -> StreamController | None:
        controller = selected_controller(self.screen)
        if controller is None:
            self.notify("select a stream first", severity="warning")
        return controller

    @work(group="adops", exit_on_error=False)
    async def action_cue_out(self) -> None:
        controller = self._selected_stream()
        if controller is not None:
            outcome = await cue_out_flow(self, controller, self.settings)
            if outcome is not None and outcome.status == "accepted":
                self.action_ad_break()

    @work(group="adops", exit_on_error=False)
    async def action_cue_in(self) -> None:
        controller = self._selected_stream()
        if controller is not None:
            await cue_in_flow(self, controller, self.settings)

    @work(group="adops", exit_on_error=False)
    async def action_id3(self) -> None:
        controller = self._selected_stream()
        if controller is not None:
            await id3_flow(self, controller, self.settings)

    def action_ad_break(self) -> None:
        controller = self._selected_stream()
        if controller is None or self.session is None:
            return
        if isinstance(self.screen, AdBreakScreen) and self.screen.path == controller.path:
            return
        path = controller.path
        self.push_screen(AdBreakScreen(controller, self.clock, self.session.context, settings=self.settings,
                                       status_line=lambda: self.status_line(path)))

    def action_ad_events(self) -> None:
        if self.session is not None:
            self.push_screen(AdEventsScreen(self.session.audit, self.session.context, self.clock))

    def switch_profile(self, name: str) -> None:
        try:
            settings = load_settings(profile=name, warn=lambda message: self.notify(message, severity="warning"))
        except (ConfigError, ValueError) as error:
            self.notify(str(error), title="cannot switch profile", severity="error")
            return
        self.settings = settings
        self.notify(f"profile {name}: {settings.api_url}")
        self._open_session()


def _default_connector(clock: Clock) -> Connector:
    return connector(clock, freeze_gc=True)


def run_app(settings: Settings, *, select: str | None = None, connector: Connector | None = None,
            clock: Clock | None = None) -> int:
    """Run the console until the user quits; 0 on a normal exit. `select` is "vhost[/app[/stream]]"."""
    clock = clock or SystemClock()
    path = NodePath.parse(select) if select else None
    app = ConsoleApp(settings, connector or _default_connector(clock), clock, select=path, redraw_gap=REDRAW_GAP,
                     chart_gap=CHART_GAP)
    app.run()
    return app.return_code or 0

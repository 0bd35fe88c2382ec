"""What every screen showing a session's data has in common: it redraws itself, and it owns the keys
that act on what it shows.

A live screen is built with a `LiveSession`. While mounted it listens to the engine (through its
`EngineFeed`) and to the clock tick; a report becomes one `EngineChanged` message to this screen,
and the screen redraws from what it takes out of the feed, when `live/pace.py`'s policy says (its
selected node's readings at once, the rest within a redraw gap) once its first readings are on screen.
A screen hidden behind another full screen stops listening and does not draw; it catches up when it is
shown again (`on_screen_resume`). Behind a dialog it keeps drawing.

Its keys: pause, refresh, interval, chart window, export and the ad-ops keys, acting on the node
the screen has selected (`selected_path`); a key that does not apply to that node (a cue-out on an
application) is hidden from the footer and does nothing. What a key did is said in the status line.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

from textual import on
from textual.screen import Screen
from textual.timer import Timer

from omeconsole.core.chart_scale import WINDOWS, window_label
from omeconsole.core.export import write_history
from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import EngineUpdate, Refresh
from omeconsole.live.pace import ScreenPace
from omeconsole.live.playback import playback_of
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui import adops_seam
from omeconsole.ui.actions import applies, bindings
from omeconsole.ui.adops.changes import AdOpsChanged
from omeconsole.ui.engine_feed import EVERYTHING, NOTHING, EngineFeed, tick_into
from omeconsole.ui.messages import AlertsChanged, ClockTick, EngineChanged
from omeconsole.ui.open_requests import (
    AskCopy,
    OpenAdBreak,
    OpenAdEvents,
    OpenAlerts,
    OpenSchedules,
    ShowExported,
)
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, PaletteFollower
from omeconsole.ui.status import status_line
from omeconsole.ui.widgets.status_bar import Banner, StatusBar, StatusLine

INTERVAL_STEPS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
REFRESH_WORDS = {
    Refresh.POLLING: "polling what is on screen now",
    Refresh.ONCE_WHILE_PAUSED: "paused: polling once now, then paused again",
    Refresh.RECONNECTING: "not connected: trying the server now",
}


def next_interval(current: float, direction: int) -> float:
    """The next step of `INTERVAL_STEPS` above (direction > 0) or below `current`, else `current`."""
    if direction > 0:
        return next((s for s in INTERVAL_STEPS if s > current + 1e-9), current)
    return next((s for s in reversed(INTERVAL_STEPS) if s < current - 1e-9), current)


class LiveScreen(Screen[None]):
    # The footer shows them in this order: what acts on the selected stream first.
    BINDINGS = bindings("cue_out", "cue_in", "id3", "ad_break", "pause", "refresh", "chart_window", "export",
                        "ad_events", "alerts", "interval_longer", "interval_shorter", "chart_window_back",
                        "schedules", "copy")
    # Labels, notes and the status line are built in these colours (`ui/palette`); another theme changes them
    # and the screen is drawn again (a screen hidden then is drawn on its return).
    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def __init__(self, live: LiveSession) -> None:
        super().__init__()
        self.live = live
        self.shown_path: NodePath | None = None
        """The selected node as the status line last showed it, which is also the node whose readings are drawn
        at once (`selected_path()`, taken once per status line drawn). Keys act on `selected_path()`, asked
        when pressed."""
        self._feed = EngineFeed(live.engine, self, watched=lambda: self.shown_path)
        self._stop: list[Unsubscribe] = []
        self._pace = ScreenPace(live.pace)
        self._flush_timer: Timer | None = None
        self._readings_shown = False
        self.palette = PaletteFollower(self, self._draw_everything_shown)
        self.colours: dict[str, str] = {}
        """The colours this screen's text is built in, taken from `self.palette` once per redraw."""

    # What a screen says about itself --------------------------------------------------------------

    @abstractmethod
    def selected_path(self) -> NodePath | None:
        """The node the keys act on (the tree's cursor, the node this screen is about)."""

    @abstractmethod
    def redraw(self, changes: EngineUpdate) -> None:
        """Bring the screen's data up to date (the status line is drawn after this)."""

    @abstractmethod
    def declare_on_screen(self) -> None:
        """Tell the engine what this screen shows: only that is polled."""

    def showing_readings(self) -> bool:
        """Whether the screen shows a reading yet (until then every report is drawn at once)."""
        selected = self.selected_path()
        return selected is not None and self.live.engine.node(selected).latest is not None

    def status_options(self) -> dict[str, str]:
        """Extra words for the status line (the dashboard's sort and filter)."""
        return {}

    # Life ---------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._listen()
        self.declare_on_screen()
        self._draw(EVERYTHING)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.palette.styles_changed()

    def _draw_everything_shown(self) -> None:
        if self.in_view:  # a screen hidden now is drawn when it returns
            self._draw(EVERYTHING)

    def on_unmount(self) -> None:
        self._stop_listening()

    def _listen(self) -> None:
        self._feed.attach()
        self._stop = [tick_into(self.live, self), self.live.ad_board.follow_playlists()]
        if self.live.alert_watch is not None:
            self._stop.append(self.live.alert_watch.add_listener(self._alerts_moved))

    def _stop_listening(self) -> None:
        self._cancel_flush()
        self._feed.detach()
        for stop in self._stop:
            stop()
        self._stop = []

    def rebind(self, live: LiveSession) -> None:
        """Show another session from now on (a fleet's other server): its reports, its ad breaks."""
        listening = bool(self._stop)
        self._stop_listening()
        self.live = live
        self._feed = EngineFeed(live.engine, self, watched=lambda: self.shown_path)
        self._readings_shown = False
        if listening:
            self._listen()
        self.declare_on_screen()
        self._draw(EVERYTHING)

    def on_screen_suspend(self) -> None:
        if not self.in_view:  # a full screen over this one: no reports or ticks to a screen that cannot draw
            self._stop_listening()  # (each message would wake it, and Textual repaints the whole screen in front)

    def on_screen_resume(self) -> None:
        if not self._stop:
            self._listen()
        self.declare_on_screen()
        self._draw(self._feed.take() | EVERYTHING)
        self.refresh_bindings()

    @on(AdOpsChanged)
    def _ads_changed(self, changed: AdOpsChanged) -> None:
        """A send, a sighting or a playlist read changed what a row shows: the stream's row (and its parents'
        `ADx2`) is relabelled with the next reports' redraw (within a redraw gap: a redraw of its own per read
        cost a whole tree pass at 10,000 streams), and badges are drawn as a clock tick draws ages (below), so
        a redraw that just happened or is on its way shows them and a burst of news costs no extra redraw."""
        if not changed.shown:
            return
        node: NodePath | None = changed.path
        moved = set()
        while node is not None:
            moved.add(node)
            node = node.parent
        self._feed.hold(frozenset(moved))
        self._tick()

    @property
    def in_view(self) -> bool:
        """In front, or behind dialogs only (a full screen pushed over this one hides it)."""
        stack = self.app.screen_stack
        return self in stack and all(screen.is_modal for screen in stack[stack.index(self) + 1:])

    @on(EngineChanged)
    def _engine_changed(self, changed: EngineChanged) -> None:
        """Reports are drawn as `live/pace.py` says: a reading of the selected node at once, the other rows'
        reports with its next reading (one redraw per polling round shows them all)."""
        if not self.in_view:
            return  # drawn when shown again; the feed keeps what arrived
        wait = self._pace.report(self.live.clock.monotonic(), selected=changed.selected)
        if not self._readings_shown or not wait:
            self._flush()
        elif self._flush_timer is None:
            self._flush_timer = self.set_timer(wait, self._flush)

    def _cancel_flush(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None

    def _flush(self) -> None:
        self._cancel_flush()  # flushed before its timer: it would redraw again for nothing
        self._pace.data_drawn(self.live.clock.monotonic(), selected=self._feed.holds_selected)
        self._draw(self._feed.take())

    def _alerts_moved(self) -> None:
        self.post_message(AlertsChanged())

    @on(AlertsChanged)
    def _alerts_changed(self) -> None:
        if self.in_view:
            self._draw(NOTHING)  # a badge that appears with the alert, not at the next data redraw

    @on(ClockTick)
    def _tick(self) -> None:
        """Ages, countdowns, nodes turned stale: drawn by the tick only when no redraw did it lately and
        none is on its way (reports waiting for their redraw draw the ages too; drawing them first would
        be a second redraw in the same second)."""
        if self.in_view and self._flush_timer is None and self._pace.tick_due(self.live.clock.monotonic()):
            self._draw(NOTHING)

    def _draw(self, changes: EngineUpdate) -> None:
        if not self.is_mounted or not self.app.is_running:
            return  # shutting down: the widgets may be gone while reports still arrive
        self._pace.drawn(self.live.clock.monotonic())
        self.colours = self.palette.built_with()  # another theme draws it again
        self.redraw(changes)
        self.refresh_status()
        self._readings_shown = self._readings_shown or self.showing_readings()

    def status_now(self) -> StatusLine:
        """The status line this screen shows now; screens opened over it (E, H) show the same one."""
        return status_line(self.live, self.shown_path, **self.status_options())

    def refresh_status(self) -> None:
        self.shown_path = self.selected_path()
        self.query_one(Banner).show(self.live.engine.connection, self.live.clock.monotonic())
        self.query_one(StatusBar).show(self.status_now())

    def say(self, words: str) -> None:
        """What a key did, in the status line for a few seconds (and at once)."""
        self.live.notes.say(words, self.live.clock.monotonic())
        self.refresh_status()

    def selection_changed(self) -> None:
        """The footer follows the selection (a stream shows o i m a)."""
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return applies(action, self.selected_path())

    # Polling keys -------------------------------------------------------------------------------------

    def action_pause(self) -> None:
        engine = self.live.engine
        engine.paused = not engine.paused
        self.say("paused: nothing is polled, ages keep counting (r polls once)" if engine.paused
                 else "polling again")

    def action_refresh(self) -> None:
        self.say(REFRESH_WORDS[self.live.engine.refresh_now()])

    def action_interval_longer(self) -> None:
        self._step_interval(+1)

    def action_interval_shorter(self) -> None:
        self._step_interval(-1)

    def _step_interval(self, direction: int) -> None:
        engine = self.live.engine
        engine.interval = next_interval(engine.interval, direction)
        self.say(f"refresh every {engine.interval:g} s, from now")

    def action_chart_window(self, step: int) -> None:
        options = self.live.options
        options.chart_window = WINDOWS[(WINDOWS.index(options.chart_window) + step) % len(WINDOWS)]
        self._draw(NOTHING)
        self.say(f"charts show the last {window_label(options.chart_window)}")

    # Node keys ------------------------------------------------------------------------------------------

    def action_export(self) -> None:
        path = self.selected_path()
        if path is None:
            return
        view = self.live.engine.node(path)
        if not view.history:
            self.notify(f"no history for {path} yet", severity="warning", markup=False)
            return
        clock = self.live.clock
        try:
            written = write_history(view, self.live.export_dir, clock.wall(), clock.monotonic())
        except (OSError, ValueError) as error:
            self.notify(f"export failed: {getattr(error, 'strerror', None) or error}", severity="error",
                        markup=False)
            return
        self.post_message(ShowExported(str(path), written))

    def action_copy(self) -> None:
        """`y`: the selected stream's path and playback URLs, to choose the one sent to the clipboard."""
        playback = playback_of(self.live, self.selected_path())
        if playback is not None:
            self.post_message(AskCopy(playback.choices()))

    def action_cue_out(self) -> None:
        self._ad_flow(adops_seam.cue_out_flow)

    def action_cue_in(self) -> None:
        self._ad_flow(adops_seam.cue_in_flow)

    def action_id3(self) -> None:
        self._ad_flow(adops_seam.id3_flow)

    def _ad_flow(self, flow: adops_seam.Flow) -> None:
        path = self.selected_path()
        if path is None or path.level != "stream":
            return
        controller = self.live.ad_board.controller(path)

        async def run() -> None:
            outcome = await flow(self.app, controller, self.live.settings)
            if outcome is not None and outcome.action == "cue-out" and outcome.status == "accepted":
                self.post_message(OpenAdBreak(self.live, controller))

        self.run_worker(run(), group=adops_seam.SEND_GROUP, exit_on_error=False)

    def action_ad_break(self) -> None:
        path = self.selected_path()
        if path is not None and path.level == "stream":
            self.post_message(OpenAdBreak(self.live, self.live.ad_board.controller(path)))

    def action_ad_events(self) -> None:
        self.post_message(OpenAdEvents(self.live, self.status_now))

    def action_schedules(self) -> None:
        self.post_message(OpenSchedules(self.live))

    def action_alerts(self) -> None:
        if self.live.alerts is None:
            self.say("no [[alerts]] rules in the config file")
            return
        self.post_message(OpenAlerts(self.live))

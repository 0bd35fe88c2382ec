"""What the app mixes in for ad operations: the keys o / i / m / a, the palette commands, the sends.

Every send goes through one AdOps per server connection, so the once-only rule, the audit log and
the playlist confirmation apply whichever way the operator triggered it (key, palette, panel).
The host app provides `settings`, `clock` and `link.client` (ConsoleApp does); a different host
overrides `adops_context()`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, cast

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message

from omeconsole.api.client import OmeClient
from omeconsole.api.emsg import DecodedFrame
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.operations import READ_ONLY_MESSAGE, ActionOutcome, AdOps
from omeconsole.core.adops.watcher import Id3Found, Sighting, WatcherEvent
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.session import Session
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.break_screen import AdBreakScreen
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog, Id3Request
from omeconsole.ui.adops.events_screen import AdEventsScreen

ADOPS_BINDINGS: list[Binding] = [
    # Not in the footer (it is full at 80 columns); `?` and the palette list them.
    Binding("o", "cue_out", "Cue-out", id="cue_out", show=False, tooltip="Start an ad break on the selected stream"),
    Binding("i", "cue_in", "Cue-in", id="cue_in", show=False, tooltip="End the selected stream's ad break now"),
    Binding("m", "id3", "ID3", id="id3", show=False, tooltip="Send ID3 timed metadata to the selected stream"),
    Binding("a", "ad_break", "Ad break", id="ad_break", show=False,
            tooltip="The selected stream's ad-break panel: state, countdown, live playlist"),
    Binding("E", "ad_events", "Events", id="ad_events", show=False,
            tooltip="Every event sent, this run and earlier ones (audit log)"),
]


class AdOpsChanged(Message):
    """Something about a stream's ad operations changed: redraw its panel."""

    def __init__(self, path: NodePath) -> None:
        super().__init__()
        self.path = path


class AdOpsActions:
    """Mix into the App class before `App` (class ConsoleApp(AdOpsActions, App[None])).

    The host provides `session` (the current Session); its AdOps is the one every send goes through."""

    ADOPS_BINDINGS: ClassVar[list[Binding]] = ADOPS_BINDINGS
    _adops_id3: dict[NodePath, tuple[DecodedFrame, ...]]

    def _adops_session(self) -> Session:
        session = cast(Any, self).session
        assert isinstance(session, Session), "the host has no session"
        return session

    def adops_context(self) -> tuple[OmeClient, Settings, Clock]:
        session = self._adops_session()
        return session.client, session.settings, session.clock

    def adops_read_only(self) -> bool:
        return self.adops().read_only

    def adops_selected(self, screen: object | None = None) -> NodePath | None:
        """The stream the screen in front (or `screen`) has selected; None unless it is a stream."""
        screen = screen if screen is not None else self._adops_app.screen
        for name in ("selected", "path"):
            path = getattr(screen, name, None)
            if isinstance(path, NodePath) and path.level == "stream":
                return path
        return None

    def adops(self) -> AdOps:
        """The AdOps of the current session."""
        return self._adops_session().adops

    def adops_attach(self, session: Session) -> None:
        """The host calls this for every new session, so its reports reach the screens."""
        self._adops_id3 = {}
        session.adops.add_listener(self._adops_report)

    def adops_unwatch(self, path: NodePath) -> None:
        """A panel closed (or the app is closing): nothing is created just to be stopped."""
        session = getattr(self, "session", None)
        if session is not None:
            session.adops.unwatch(path)

    def adops_last_id3(self, path: NodePath) -> tuple[DecodedFrame, ...] | None:
        return getattr(self, "_adops_id3", {}).get(path)

    # Keys and palette ----------------------------------------------------------------------------

    def action_cue_out(self) -> None:
        path = self._adops_target("cue-out")
        if path is None:
            return
        default = self.adops_context()[1].cue_out_default_s

        def chosen(seconds: float | None) -> None:
            if seconds is not None:
                self._adops_confirm_then(
                    "cue_out", f"Start a {seconds:g} s ad break on {path}?",
                    lambda: self.adops().cue_out(path, round(seconds * 1000)))

        state = self.adops().stream(path).ad_break.view().state
        warning = (f"a break is already {state.value} on this stream: servers ignore a cue-out inside a break"
                   if state in (BreakState.SCHEDULED, BreakState.ON_AIR) else "")
        self._adops_app.push_screen(CueOutDialog(str(path), default, warning), chosen)

    def action_cue_in(self) -> None:
        path = self._adops_target("cue-in")
        if path is not None:
            self._adops_confirm_then("cue_in", f"End the ad break on {path} now?", lambda: self.adops().cue_in(path))

    def action_id3(self) -> None:
        path = self._adops_target("id3")
        if path is None:
            return

        def chosen(request: Id3Request | None) -> None:
            if request is not None:
                names = ", ".join(f.frameType for f in request.frames)
                self._adops_confirm_then(
                    "id3", f"Send ID3 ({names}, {request.event_type}) to {path}?",
                    lambda: self.adops().id3(path, request.frames, request.event_type))

        self._adops_app.push_screen(Id3Dialog(str(path), list(self.adops_context()[1].id3_templates)), chosen)

    def action_ad_break(self) -> None:
        path = self.adops_selected()
        if path is None:
            self._adops_app.notify("select a stream first", severity="warning")
            return
        self._adops_show_panel(path)

    def action_ad_events(self) -> None:
        self._adops_app.push_screen(AdEventsScreen(self.adops().audit))

    # Sending ---------------------------------------------------------------------------------------

    def _adops_target(self, action: str) -> NodePath | None:
        """The stream to act on, or None after saying why nothing will be sent."""
        path = self.adops_selected()
        if path is None:
            self._adops_app.notify(f"{action}: select a stream first", severity="warning")
            return None
        if self.adops_read_only():
            self._adops_app.notify(f"{action}: {READ_ONLY_MESSAGE}", severity="warning")
            return None
        in_flight = self.adops().stream(path).ad_break.in_flight
        if in_flight is not None:
            self._adops_app.notify(f"{in_flight} is still being sent to {path}; nothing else sent until it is answered",
                             severity="warning")
            return None
        return path

    def _adops_confirm_then(self, setting: str, question: str, send: Callable[[], Awaitable[ActionOutcome]]) -> None:
        ask = getattr(self.adops_context()[1].confirm, setting, True)
        if not ask:
            self._adops_start_send(send)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._adops_start_send(send)

        self._adops_app.push_screen(ConfirmSend(question), answered)

    def _adops_start_send(self, send: Callable[[], Awaitable[ActionOutcome]]) -> None:
        async def run() -> None:
            self._adops_tell(await send())

        self._adops_app.run_worker(run(), group="adops-send", exit_on_error=False)

    def _adops_tell(self, outcome: ActionOutcome) -> None:
        severity = {"sent": "information", "refused": "warning"}.get(outcome.status, "error")
        self._adops_app.notify(outcome.message, title=outcome.action, severity=severity,  # type: ignore[arg-type]
                         timeout=8 if outcome.status == "unknown" else 4)

    def _adops_show_panel(self, path: NodePath) -> None:
        screen = self._adops_app.screen
        if isinstance(screen, AdBreakScreen) and screen.path == path:
            return
        self._adops_app.push_screen(AdBreakScreen(path))

    def _adops_report(self, path: NodePath, event: WatcherEvent | ActionOutcome) -> None:
        if isinstance(event, Id3Found):
            self._adops_id3[path] = event.frames
        elif isinstance(event, Sighting):
            self._adops_app.notify(f"{path}: {event.detail}", title=event.kind,
                             severity="information" if event.seen else "warning")
        elif isinstance(event, ActionOutcome) and event.action == "cue-out" and event.status == "sent":
            self._adops_app.call_later(self._adops_show_panel, path)
        self._adops_app.post_message(AdOpsChanged(path))

    def on_ad_ops_changed(self, message: AdOpsChanged) -> None:
        screen = self._adops_app.screen
        if isinstance(screen, AdBreakScreen) and screen.path == message.path:
            screen.redraw()

    @property
    def _adops_app(self) -> App[Any]:
        return cast("App[Any]", self)


class AdOpsCommands(Provider):
    """Palette entries for the selected stream: cue-out, cue-in, ID3, its panel, and the events list."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        host = cast(AdOpsActions, self.app)
        path = host.adops_selected(self.screen)
        found: list[tuple[str, Callable[[], object], str]] = [
            ("Ad events: every event sent (audit log)", host.action_ad_events, "This run and earlier ones"),
        ]
        if path is not None:
            found[:0] = [
                (f"Cue-out: start an ad break on {path}", host.action_cue_out, "Choose the duration, then send"),
                (f"Cue-in: end the ad break on {path}", host.action_cue_in, "Ends the current break now"),
                (f"ID3 metadata to {path}", host.action_id3, "TXXX, TIT2 and other text frames, PRIV"),
                (f"Ad-break panel of {path}", host.action_ad_break, "State, countdown and the live playlist"),
            ]
        return found

    async def discover(self) -> Hits:
        for title, callback, help_text in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)



"""What the app mixes in for ad operations: the keys o / i / m / a, the palette commands, the sends.

Every send goes through the stream's controller (the one send path the command line uses too): it
plans (read-only and every warning are decided there), a dialog shows the plan, and the confirmed
plan is sent once. The outcome comes back as the send's return value, the playlist's verdict as its
`confirmation`; the controller's observers only say "this stream changed" so screens redraw. The
host app provides `session` (ConsoleApp does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar, cast

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message

from omeconsole.api.emsg import DecodedFrame
from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.adops.matcher import Sighting
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.plan import SendPlan
from omeconsole.core.config import Settings
from omeconsole.core.session import Session
from omeconsole.core.text import visible
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

    def _adops_session(self) -> Session:
        session = cast(Any, self).session
        assert isinstance(session, Session), "the host has no session"
        return session

    def _adops_settings(self) -> Settings:
        return self._adops_session().settings

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
        """The host calls this for every new session, so its changes reach the screens."""
        def changed(path: NodePath) -> None:
            self._adops_app.post_message(AdOpsChanged(path))

        session.adops.observe(changed)

    def adops_last_id3(self, path: NodePath) -> tuple[DecodedFrame, ...] | None:
        return self.adops().stream(path).last_id3

    # Keys and palette ----------------------------------------------------------------------------

    def action_cue_out(self) -> None:
        controller = self._adops_target(lambda c: c.plan_cue_out(self._adops_settings().cue_out_default_s))
        if controller is None:
            return

        def chosen(seconds: float | None) -> None:
            if seconds is not None:
                self._adops_confirm_then("cue_out", f"Start a {seconds:g} s ad break on {controller.path}?",
                                         controller, controller.plan_cue_out(seconds))

        warnings = controller.plan_cue_out(self._adops_settings().cue_out_default_s).warnings
        warning = "; ".join(w.message for w in warnings if w.code == "break-already-on")
        self._adops_app.push_screen(CueOutDialog(visible(str(controller.path)),
                                                 self._adops_settings().cue_out_default_s, warning), chosen)

    def action_cue_in(self) -> None:
        controller = self._adops_target(lambda c: c.plan_cue_in())
        if controller is not None:
            self._adops_confirm_then("cue_in", f"End the ad break on {controller.path} now?", controller,
                                     controller.plan_cue_in())

    def action_id3(self) -> None:
        controller = self._adops_target(lambda c: c.plan_id3([], "event"), probing=True)
        if controller is None:
            return

        def chosen(request: Id3Request | None) -> None:
            if request is not None:
                names = ", ".join(f.frameType for f in request.frames)
                self._adops_confirm_then("id3", f"Send ID3 ({names}, {request.event_type}) to {controller.path}?",
                                         controller, controller.plan_id3(request.frames, request.event_type))

        self._adops_app.push_screen(Id3Dialog(visible(str(controller.path)),
                                              list(self._adops_settings().id3_templates)), chosen)

    def action_ad_break(self) -> None:
        path = self.adops_selected()
        if path is None:
            self._adops_app.notify("select a stream first", severity="warning")
            return
        self._adops_show_panel(path)

    def action_ad_events(self) -> None:
        self._adops_app.push_screen(AdEventsScreen(self.adops().audit))

    # Sending ---------------------------------------------------------------------------------------

    def _adops_target(self, probe: Callable[[StreamController], SendPlan], *,
                      probing: bool = False) -> StreamController | None:
        """The selected stream's controller, or None after saying why nothing will be sent.

        The probe plan says it (read-only, a send in flight): the UI decides nothing itself. With
        `probing`, refusals about the plan's content (no frames yet) do not count."""
        path = self.adops_selected()
        if path is None:
            self._adops_app.notify("select a stream first", severity="warning")
            return None
        controller = self.adops().stream(path)
        refusal = probe(controller).refusal
        if refusal is not None and not (probing and refusal.code not in ("read-only", "in-flight")):
            self._adops_app.notify(visible(refusal.message), severity="warning", markup=False)
            return None
        return controller

    def _adops_confirm_then(self, setting: str, question: str, controller: StreamController,
                            plan: SendPlan) -> None:
        """The plan is shown (and its warnings confirmed) unless the config turns confirmation off
        and the plan has nothing to confirm; then it is sent as shown."""
        if plan.refusal is not None:
            self._adops_app.notify(visible(plan.refusal.message), severity="warning", markup=False)
            return
        ask = getattr(self._adops_settings().confirm, setting, True)
        if not ask and not plan.to_confirm:
            self._adops_start_send(controller, plan)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._adops_start_send(controller, plan)

        self._adops_app.push_screen(ConfirmSend(question, plan), answered)

    def _adops_start_send(self, controller: StreamController, plan: SendPlan) -> None:
        async def run() -> None:
            lease = controller.watch()  # the playlist is read until this send's confirmation is in
            try:
                outcome = await controller.send(plan, confirmed=plan.warning_codes)
            except BaseException:
                lease.release()
                raise
            self._adops_tell(outcome)
            if outcome.action == "cue-out" and outcome.status == "accepted":
                self._adops_show_panel(controller.path)
            if outcome.confirmation is None:
                lease.release()
                return

            def confirmed(future: asyncio.Future[Sighting]) -> None:
                lease.release()
                if not future.cancelled():
                    sighting = future.result()
                    self._adops_app.notify(visible(f"{controller.path}: {sighting.detail}"), title=sighting.kind,
                                           severity="information" if sighting.seen else "warning", markup=False)

            outcome.confirmation.add_done_callback(confirmed)

        self._adops_app.run_worker(run(), group="adops-send", exit_on_error=False)

    def _adops_tell(self, outcome: SendOutcome) -> None:
        severity = {"accepted": "information", "blocked": "warning"}.get(outcome.status, "error")
        message = outcome.message + (f" — {outcome.audit_problem}" if outcome.audit_problem else "")
        self._adops_app.notify(visible(message), title=outcome.action, markup=False,
                               severity=severity,  # type: ignore[arg-type]
                               timeout=8 if outcome.status == "unknown" else 4)

    def _adops_show_panel(self, path: NodePath) -> None:
        screen = self._adops_app.screen
        if isinstance(screen, AdBreakScreen) and screen.path == path:
            return
        self._adops_app.push_screen(AdBreakScreen(path))

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



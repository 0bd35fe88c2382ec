"""What the console's screens use of the ad-ops UI (`omeconsole/ui/adops/`), all in this one module.

The contract with that package: one entry point per action, which a screen runs in a worker and which
returns the send's outcome once (`cue_out_flow(app, controller, settings) -> SendOutcome | None`,
`cue_in_flow`, `id3_flow`: dialogs pushed with `push_screen_wait`, the plan shown, its warnings
confirmed, the send, one notification); screens built from what they show (`ad_break_screen`,
`events_screen`); and the bindings `ADOPS_BINDINGS`. Until the package provides the flows and the
screens itself (`ui/adops/flows.py`), they are assembled here from its current dialogs and panel; at
the merge this module keeps its names and takes them from there, and no other module changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.adops.matcher import Sighting
from omeconsole.core.adops.plan import SendPlan
from omeconsole.core.config import Settings
from omeconsole.core.context import host_port
from omeconsole.core.text import visible
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops import ADOPS_BINDINGS as _PACKAGE_BINDINGS
from omeconsole.ui.adops.break_screen import AdBreakScreen
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.adops.events_screen import AdEventsScreen
from omeconsole.ui.adops.panel import AdBreakPanel
from omeconsole.ui.live import LiveSession, Unsubscribe
from omeconsole.ui.messages import ClockTick
from omeconsole.ui.status import status_line
from omeconsole.ui.widgets.status_bar import StatusBar

ADOPS_BINDINGS: list[Binding] = list(_PACKAGE_BINDINGS)
"""Keys o (cue_out), i (cue_in), m (id3), a (ad_break), E (ad_events)."""
SEND_GROUP = "adops-send"
"""The worker group a screen runs a flow in."""

Flow = Callable[[App[Any], StreamController, Settings], Awaitable[SendOutcome | None]]


def _refused(app: App[Any], plan: SendPlan, *, about_content: bool = True) -> bool:
    """Says why nothing will be sent, if the plan is refused (read-only, a send in flight, ...).

    With `about_content` False, refusals about what the dialog has yet to fill in do not count."""
    refusal = plan.refusal
    if refusal is None or (not about_content and refusal.code not in ("read-only", "in-flight")):
        return False
    app.notify(visible(refusal.message), severity="warning", markup=False)
    return True


def _server(settings: Settings) -> str:
    """The one server a send goes to: `edge-1 (127.0.0.1:8081)`, or `127.0.0.1:8081` without a profile."""
    server = host_port(settings.api_url)
    return f"{settings.profile} ({server})" if settings.profile else server


def _where(controller: StreamController, settings: Settings) -> str:
    return f"{controller.path} on {_server(settings)}"


async def cue_out_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    probe = controller.plan_cue_out(settings.cue_out_default_s)
    if _refused(app, probe):
        return None
    warning = "; ".join(w.message for w in probe.warnings if w.code == "break-already-on")
    seconds = await app.push_screen_wait(CueOutDialog(visible(_where(controller, settings)),
                                                      settings.cue_out_default_s, warning))
    if seconds is None:
        return None
    question = f"Start a {seconds:g} s ad break on {_where(controller, settings)}?"
    return await _confirm_and_send(app, controller, controller.plan_cue_out(seconds), settings.confirm.cue_out,
                                   _server(settings), question)


async def cue_in_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    plan = controller.plan_cue_in()
    if _refused(app, plan):
        return None
    return await _confirm_and_send(app, controller, plan, settings.confirm.cue_in, _server(settings),
                                   f"End the ad break on {_where(controller, settings)} now?")


async def id3_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    if _refused(app, controller.plan_id3([], "event"), about_content=False):
        return None
    request = await app.push_screen_wait(Id3Dialog(visible(_where(controller, settings)),
                                                   list(settings.id3_templates)))
    if request is None:
        return None
    names = ", ".join(frame.frameType for frame in request.frames)
    return await _confirm_and_send(app, controller, controller.plan_id3(request.frames, request.event_type),
                                   settings.confirm.id3, _server(settings),
                                   f"Send ID3 ({names}, {request.event_type}) to {_where(controller, settings)}?")


async def _confirm_and_send(app: App[Any], controller: StreamController, plan: SendPlan, ask: bool, server: str,
                            question: str) -> SendOutcome | None:
    """The plan shown (unless the config turns that off and it has nothing to confirm), then sent once;
    the playlist is read until its confirmation is in."""
    if _refused(app, plan):
        return None
    if (ask or plan.to_confirm) and not await app.push_screen_wait(ConfirmSend(question, plan)):
        return None
    lease = controller.watch()
    try:
        outcome = await controller.send(plan, confirmed=plan.warning_codes)
    except BaseException:
        lease.release()
        raise
    severity = {"accepted": "information", "blocked": "warning"}.get(outcome.status, "error")
    message = outcome.message + (f" — {outcome.audit_problem}" if outcome.audit_problem else "")
    app.notify(visible(message), title=visible(f"{outcome.action} on {server}"), markup=False, severity=severity,  # type: ignore[arg-type]
               timeout=8 if outcome.status == "unknown" else 4)
    if outcome.confirmation is None:
        lease.release()
        return outcome

    def confirmed(future: asyncio.Future[Sighting]) -> None:
        lease.release()
        if not future.cancelled():
            sighting = future.result()
            app.notify(visible(f"{controller.path}: {sighting.detail}"), title=sighting.kind, markup=False,
                       severity="information" if sighting.seen else "warning")

    outcome.confirmation.add_done_callback(confirmed)
    return outcome


class StreamAdBreakScreen(Screen[None]):
    """A stream's ad-break panel (the ad-ops package's) as a screen fed from its controller, with the
    status line and the stream's keys (o, i, m); it reads the playlist while shown."""

    BINDINGS = [*AdBreakScreen.BINDINGS, *(b for b in ADOPS_BINDINGS if b.id in ("cue_out", "cue_in", "id3"))]

    def __init__(self, controller: StreamController, live: LiveSession) -> None:
        super().__init__()
        self.path = controller.path
        self._controller = controller
        self._live = live
        self._stop: list[Unsubscribe] = []

    def compose(self) -> ComposeResult:
        yield AdBreakPanel(id="ad-break-panel")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        lease = self._controller.watch()
        self._stop = [lease.release, self._live.tick_into(self), self._live.ad_board.listen(self._changed)]
        self.redraw()

    def on_unmount(self) -> None:
        for stop in self._stop:
            stop()
        self._stop = []

    def on_screen_resume(self) -> None:
        self.redraw()

    def _changed(self, path: NodePath) -> None:
        if path == self.path:
            self.post_message(ClockTick())

    @on(ClockTick)
    def _tick(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        if not self.is_mounted:
            return
        controller = self._controller
        self.query_one(AdBreakPanel).show(controller, read_only=controller.read_only, last_id3=controller.last_id3)
        self.query_one(StatusBar).show(status_line(self._live, self.path))

    def _flow(self, flow: Flow) -> None:
        self.run_worker(flow(self.app, self._controller, self._live.settings), group=SEND_GROUP,
                        exit_on_error=False)

    def action_cue_out(self) -> None:
        self._flow(cue_out_flow)

    def action_cue_in(self) -> None:
        self._flow(cue_in_flow)

    def action_id3(self) -> None:
        self._flow(id3_flow)


def ad_break_screen(controller: StreamController, live: LiveSession) -> Screen[None]:
    return StreamAdBreakScreen(controller, live)


def events_screen(live: LiveSession) -> Screen[None]:
    return AdEventsScreen(live.audit)

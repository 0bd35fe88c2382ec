"""One entry point per ad-ops action, from the key to the wire and back: the whole walk is in this file.

A screen's `action_cue_out` runs `cue_out_flow` in a worker; the flow

1. holds a `watch()` lease on the stream (the playlist is read from the key press until the send's
   confirmation is in, so the warnings know the break and the confirmation has its baseline),
2. asks with a dialog (`push_screen_wait`), which hands back a plan from the stream's controller,
3. shows the plan and its warnings (`ConfirmSend`) unless the config turns that off and the plan has
   nothing to confirm,
4. sends it once (`controller.send`), and
5. says the outcome once, as a toast, and returns it (None: the operator cancelled).

Screens redraw from the controller's state when its change reports arrive (`changes.AdOpsChanged`);
nothing here draws them. The playlist's verdict comes later, on its own (a toast when it is in).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel

from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.adops.matcher import Sighting
from omeconsole.core.adops.plan import SendPlan, WarningCode
from omeconsole.core.config import Settings
from omeconsole.core.text import visible
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog

BASELINE_WAIT_S = 2.0
"""The longest a cue-in waits for a first playlist read before it is planned (the command line waits as
long): without one, whether a break is on air is not known."""
_SEVERITY: dict[str, SeverityLevel] = {"accepted": "information", "blocked": "warning"}


async def cue_out_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    with controller.watch():
        plan = await app.push_screen_wait(CueOutDialog(controller.plan_cue_out, settings.cue_out_default_s,
                                                       break_templates(controller)))
        if plan is None:
            return None
        question = f"Start a {plan.planned_s:g} s ad break?" if plan.planned_s else "Start an ad break?"
        return await _confirm_and_send(app, controller, plan, question, ask=settings.confirm.cue_out)


def break_templates(controller: StreamController) -> list[tuple[str, Callable[[], SendPlan]]]:
    """The config's [templates.NAME], each as its button's words and its plan (none when the config's
    templates cannot be read: the operator types a duration, and `omeconsole schedule check` says why)."""
    from omeconsole.core.config import config_path
    from omeconsole.core.schedule.breaks import plan_template_out
    from omeconsole.core.schedule.model import BreakTemplate, ScheduleError, load_templates
    from omeconsole.core.schedule.store import read_toml

    try:
        templates = load_templates(read_toml(config_path()), config_path())
    except ScheduleError:
        return []

    def planner(template: BreakTemplate) -> Callable[[], SendPlan]:
        return lambda: plan_template_out(controller, template)

    return [(visible(f"{name}: {template.describe()}", 60), planner(template))
            for name, template in sorted(templates.items())]


async def cue_in_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    with controller.watch():
        await controller.baseline(BASELINE_WAIT_S)
        return await _confirm_and_send(app, controller, controller.plan_cue_in(), "End the ad break now?",
                                       ask=settings.confirm.cue_in)


async def id3_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    with controller.watch():
        plan = await app.push_screen_wait(Id3Dialog(controller.plan_id3, settings.id3_templates))
        if plan is None:
            return None
        return await _confirm_and_send(app, controller, plan, "Send this ID3 event?", ask=settings.confirm.id3)


async def _confirm_and_send(app: App[Any], controller: StreamController, plan: SendPlan, question: str, *,
                            ask: bool) -> SendOutcome | None:
    """Confirm (when asked, or when the plan has a warning to confirm), send once, say the outcome once.

    A refused plan (read-only, a send in flight) is not shown for confirmation: the send path refuses
    it without a request, and that outcome is what the operator is told."""
    confirmed: frozenset[WarningCode] = frozenset()
    shown = plan.refusal is None and (ask or bool(plan.to_confirm))
    if shown:
        answer = await app.push_screen_wait(ConfirmSend(plan, question))
        if answer is None:
            return None
        confirmed = answer
    outcome = await controller.send(plan, confirmed=confirmed)
    tell(app, outcome, () if shown or outcome.blocked_by is not None else tuple(w.message for w in plan.warnings))
    if outcome.confirmation is not None:
        follow(app, controller, outcome.confirmation)
    return outcome


def tell(app: App[Any], outcome: SendOutcome, unseen_warnings: Sequence[str] = ()) -> None:
    """The outcome, once: the server's words as data (never markup, never a control character), and the
    plan's notes when no confirmation showed them."""
    message = outcome.message + (f" — {outcome.audit_problem}" if outcome.audit_problem else "")
    app.notify("\n".join(visible(line) for line in (message, *unseen_warnings)),
               title=visible(f"{outcome.action} · {outcome.plan.target}"), markup=False,
               severity=_SEVERITY.get(outcome.status, "error"),
               timeout=app.NOTIFICATION_TIMEOUT * (2 if outcome.status == "unknown" else 1))


def follow(app: App[Any], controller: StreamController, confirmation: asyncio.Future[Sighting]) -> None:
    """Keep reading the playlist until the verdict is in, then say it (the panel shows it too)."""
    lease = controller.watch()

    def verdict(future: asyncio.Future[Sighting]) -> None:
        lease.release()
        if future.cancelled() or future.exception() is not None:
            return
        sighting = future.result()
        app.notify(visible(f"{controller.path}: {sighting.detail}"), title=sighting.kind, markup=False,
                   severity="information" if sighting.seen else "warning")

    confirmation.add_done_callback(verdict)

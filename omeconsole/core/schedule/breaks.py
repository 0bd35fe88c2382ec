"""A template's break as one plan of the one send path.

A template without ID3 is the plain cue-out plan. A template whose out goes with ID3 frames is sent as
one `:sendEvents` array — the cue set then the ID3 set — so the server accepts both or neither; its
rules (a break on air, a too-short break, read-only) are the cue-out's, judged by the same planning,
and it is confirmed as a cue-out. The ID3 frames of the in are their own ID3 plan, sent at the break's
planned end. A scheduled send's id comes from the schedule, the stream and the run (`send_id`), so
every process that plans that run plans the same id, and the audit log tells whether it went.
"""

from __future__ import annotations

import dataclasses
import hashlib
from datetime import UTC, datetime
from typing import Literal

from omeconsole.api.client import action_path
from omeconsole.core.adops.audit import json_bytes
from omeconsole.core.adops.controller import StreamController
from omeconsole.core.adops.plan import SendPlan
from omeconsole.core.schedule.model import BreakTemplate
from omeconsole.model.paths import NodePath

Part = Literal["out", "in"]


def plan_template_out(controller: StreamController, template: BreakTemplate) -> SendPlan:
    """The break's out (with its ID3 frames in the same array when the template has any)."""
    out = controller.plan_cue_out(template.duration_s)
    if not template.id3_out:
        return out
    id3 = controller.plan_id3(template.id3_out)
    body = [out.body, *id3.body]
    return dataclasses.replace(
        out, api_action="sendEvents", api_path=action_path(controller.path, "sendEvents"), body=body,
        content=json_bytes(body), warnings=out.warnings + id3.warnings, refusal=out.refusal or id3.refusal)


def plan_template_in(controller: StreamController, template: BreakTemplate) -> SendPlan | None:
    """The ID3 frames that mark the break's end, or None when the template has none."""
    return controller.plan_id3(template.id3_in) if template.id3_in else None


def unattended_refusal(plan: SendPlan) -> str | None:
    """Why a scheduled plan is not sent: a refusal, or any warning an operator would have to confirm (a
    schedule never forces)."""
    if plan.refusal is not None:
        return plan.refusal.message
    if plan.to_confirm:
        return "; ".join(w.message for w in plan.to_confirm)
    return None


def send_id(origin: str, stream: NodePath, run: datetime, part: Part) -> str:
    """The same id for the same run of the same schedule on the same stream, in every process: the run's
    prefix (`run_prefix`), then the stream's and the part's."""
    return run_prefix(origin, run) + _digest(f"{stream}\x00{part}")


def run_prefix(origin: str, run: datetime) -> str:
    """What every send of one run of one schedule starts its id with (a pattern's streams included)."""
    return "sched-" + _digest(f"{origin}\x00{run.astimezone(UTC).isoformat()}") + "-"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]


def with_id(plan: SendPlan, identifier: str) -> SendPlan:
    return dataclasses.replace(plan, send_id=identifier)

"""A planned send in words, as lazygit shows the command it will run: where it goes and its exact bytes.

Every dialog draws its plan with these, so the target, the server, read-only and the warnings read
the same everywhere. The body is `plan.content`, the very bytes the request carries (and the audit
log records), shown through `outside` (a character that JSON leaves raw, like U+202E, shows as its
escape).
"""

from __future__ import annotations

from rich.text import Text

from omeconsole.core.adops.plan import SendPlan
from omeconsole.ui.adops.untrusted_text import append_outside, outside

STANDING_REFUSALS = ("read-only", "in-flight")
"""Refusals that are about the moment, not about what was typed: shown as a banner from the start."""


def target_text(plan: SendPlan) -> Text:
    """`to default/app/stream on 127.0.0.1:8081 · profile prod`."""
    text = Text("to ")
    append_outside(text, str(plan.target), "bold")
    text.append(" on ")
    append_outside(text, plan.server, "bold")
    if plan.profile:
        text.append(" · profile ")
        append_outside(text, plan.profile, "bold")
    return text


def banner_text(plan: SendPlan) -> Text | None:
    """Read-only mode, or a send still in flight: nothing will leave, whatever is typed."""
    if plan.refusal is None or plan.refusal.code not in STANDING_REFUSALS:
        return None
    label = " READ-ONLY " if plan.refusal.code == "read-only" else " BUSY "
    text = Text(label, style="bold reverse yellow")
    text.append(" ")
    append_outside(text, plan.refusal.message, "bold")
    return text


def warnings_text(plan: SendPlan) -> Text:
    """One line per warning: ⚠ for what must be confirmed, ⓘ for what is only said."""
    text = Text()
    for index, warning in enumerate(plan.warnings):
        if index:
            text.append("\n")
        text.append("⚠ " if warning.needs_confirmation else "ⓘ ")
        append_outside(text, warning.message)
    return text


def request_text(plan: SendPlan) -> Text:
    """The request line and the body's exact bytes."""
    text = Text("POST ", style="bold")
    append_outside(text, plan.api_path, "bold")
    text.append(" on ")
    append_outside(text, plan.server)
    text.append(f"\nContent-Type: application/json · {len(plan.content)} bytes\n", style="dim")
    text.append_text(outside(plan.content.decode("utf-8", "replace"), limit=None))
    return text

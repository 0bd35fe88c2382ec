"""The send commands: `cue-out`, `cue-in`, `id3`, `send-events`, through the console's one send path.

Each plans with the stream's controller (the same as the console's keys), prints the warnings,
sends once, and reports the outcome. `--wait-confirm` then awaits the controller's confirmation.
A send goes to one server. Several only when the operator names them (`--servers origin,edge-1`):
each is then planned, sent, audited and confirmed on its own, at the same time, every line of
output led by its server's name, and a last line says the outcome on each (`send_to_servers`).
Before a cue-out or cue-in the stream's playlist is read (never for longer than BASELINE_TIMEOUT_S)
and the server detected, so the plan applies the rules the server applies after its 200 (core/adops/
rules): a cue the server would drop is refused with exit 8 and the rule in words, and so is one whose
check could not run (the playlist could not be read); `--force` sends anyway. After a 200 a cue is
"accepted by the server; not yet seen in the playlist" — `--wait-confirm` turns that into seen or not.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omeconsole.api.errors import OmeError
from omeconsole.api.wire import Id3Frame
from omeconsole.cli import exit_codes
from omeconsole.cli import format as fmt
from omeconsole.cli.commands import UsageError, parse_path
from omeconsole.cli.output import Printer
from omeconsole.cli.parser import BASELINE_TIMEOUT_S
from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.adops.plan import SendPlan
from omeconsole.core.session import Session

MAX_EVENTS_FILE_BYTES = 1 << 20
async def cmd_send(session: Session, args: argparse.Namespace, out: Printer | None = None) -> int:
    """One send to the session's server; `out` leads each line with the server's name (several servers)."""
    out = out or Printer()
    controller = session.adops.stream(parse_path(args.path, level="stream"))
    wait = bool(getattr(args, "wait_confirm", False))
    cue = args.command in ("cue-out", "cue-in")
    if cue:
        await _detect(session)
    lease = controller.watch() if wait or cue else None
    try:
        if lease is not None:
            await controller.baseline(BASELINE_TIMEOUT_S)
        plan = _plan(controller, args)
        for warning in plan.warnings:
            out.complain(f"warning: {warning.message}")
        outcome = await controller.send(plan, confirmed=plan.warning_codes if args.force else ())
        _report(outcome, args.json, out)
        status = exit_codes.for_outcome(outcome)
        if wait and outcome.confirmation is not None and outcome.status in ("accepted", "unknown"):
            return await _confirmed(outcome, status, args.json, out)
        return status
    finally:
        if lease is not None:
            lease.release()


async def _detect(session: Session) -> None:
    """The server's edition and version (what it does with a cue), at most BASELINE_TIMEOUT_S; a failure
    leaves it unknown and the send says what happens."""
    if session.client.server_info is None:
        with contextlib.suppress(OmeError, TimeoutError):
            await asyncio.wait_for(session.client.detect(), BASELINE_TIMEOUT_S)


def _plan(controller: StreamController, args: argparse.Namespace) -> SendPlan:
    if args.command == "cue-out":
        if (args.duration is None) == (args.template is None):
            raise UsageError("cue-out needs --duration or --template (one of them)")
        if args.template is not None:
            return _template_plan(controller, args.template)
        if not 0 < args.duration <= 86_400:
            raise UsageError("--duration must be a number of seconds above 0 and at most 86400")
        return controller.plan_cue_out(args.duration)
    if args.command == "cue-in":
        return controller.plan_cue_in()
    if args.command == "id3":
        frames = getattr(args, "frames", None) or []
        if not frames:
            raise UsageError("id3 needs at least one --frame")
        return controller.plan_id3([Id3Frame(**frame) for frame in frames], args.event_type)
    return controller.plan_event_sets(_event_sets(args.file))


def _template_plan(controller: StreamController, name: str) -> SendPlan:
    """The config's [templates.NAME] (a mistake in it is a usage error naming the table and the key)."""
    from omeconsole.core.config import config_path
    from omeconsole.core.schedule.breaks import plan_template_out
    from omeconsole.core.schedule.model import ScheduleError, load_templates
    from omeconsole.core.schedule.store import read_toml

    path = config_path()
    try:
        templates = load_templates(read_toml(path), path)
    except ScheduleError as error:
        raise UsageError(str(error)) from None
    if name not in templates:
        raise UsageError(f"no template named {name!r} in {path} (templates: {', '.join(sorted(templates)) or 'none'})")
    return plan_template_out(controller, templates[name])


def _event_sets(name: str) -> list[dict[str, Any]]:
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(MAX_EVENTS_FILE_BYTES + 1)
        else:
            with Path(name).open("rb") as handle:
                raw = handle.read(MAX_EVENTS_FILE_BYTES + 1)
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    if len(raw) > MAX_EVENTS_FILE_BYTES:
        raise UsageError(f"{name} is larger than {MAX_EVENTS_FILE_BYTES} bytes")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{name} is not valid JSON: {error}") from None
    sets = value if isinstance(value, list) else [value]
    if not sets or not all(isinstance(s, dict) for s in sets):
        raise UsageError(f"{name} must hold an event set (a JSON object) or a non-empty array of them")
    return sets


def _report(outcome: SendOutcome, as_json: bool, out: Printer) -> None:
    if as_json:
        out.say_json(fmt.outcome_json(outcome, out.server))
    elif outcome.status in ("accepted", "rejected") and outcome.http_status is not None:
        out.say(fmt.outcome_text(outcome))
        if outcome.status == "accepted":
            out.say(_not_yet(outcome.plan))
    if outcome.blocked_by == "needs-confirmation":  # the warnings were just said
        out.complain(f"{outcome.action} not sent: --force sends it anyway")
    elif outcome.status != "accepted":
        out.complain(outcome.message)
    if outcome.audit_problem is not None:
        out.complain(f"warning: {outcome.audit_problem}")


def _not_yet(plan: SendPlan) -> str:
    """What a 200 means, never "OK" alone: the server took the request; what players get is not known yet."""
    if plan.expect == "id3":
        return "accepted by the server; not yet seen in the media"
    if plan.expect is not None:
        return "accepted by the server; not yet seen in the playlist"
    return "accepted by the server (what it did with each event set is not checked)"


async def _confirmed(outcome: SendOutcome, status: int, as_json: bool, out: Printer) -> int:
    """Wait for the playlist; a send of unknown outcome that the playlist shows was applied after all."""
    assert outcome.confirmation is not None
    sighting = await outcome.confirmation
    if as_json:
        out.say_json(fmt.sighting_json(sighting, out.server))
    elif sighting.seen:
        out.say(sighting.detail)
    if not sighting.seen:
        out.complain(sighting.detail)
        return exit_codes.NOT_CONFIRMED if status == exit_codes.OK else status
    if status == exit_codes.UNKNOWN:
        out.complain("the playlist shows it: the server applied it")
    return exit_codes.SPLICE_NO_MARKER if sighting.by_cut else exit_codes.OK


async def send_to_servers(sessions: Sequence[tuple[str, Session]], args: argparse.Namespace) -> int:
    """The same send to each named server at once, each on its own session (its own plan, audit record
    and confirmation); the exit status is 0 when every one succeeded, else the first failing server's (in
    the order named)."""
    statuses = await asyncio.gather(*(cmd_send(session, args, Printer(name)) for name, session in sessions))
    done = [name for (name, _), status in zip(sessions, statuses, strict=True) if status == exit_codes.OK]
    failed = [(name, status) for (name, _), status in zip(sessions, statuses, strict=True) if status != exit_codes.OK]
    summary = f"{args.command}: succeeded on {', '.join(done) or 'no server'}"
    if failed:
        summary += "; not on " + ", ".join(f"{name} (exit {status})" for name, status in failed)
    Printer().complain(summary)
    return failed[0][1] if failed else exit_codes.OK

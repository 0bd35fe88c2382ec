"""`omeconsole schedule …` (the schedules and their file) and `omeconsole scheduler` (the headless runner).

`schedule check` and the edits ask no server; `schedule list` reads the server's listing for the streams
each schedule matches now (and says so when the server cannot be read: the runs are listed all the same).
`scheduler` is the service: it takes the runner's lock beside the audit log (a second one is refused, the
holder named: exit 1), loads the schedules (a bad file: exit 2 with the file, the table and the key),
says what was missed while nothing ran, then runs until SIGTERM or SIGINT (exit 0). Read-only mode
refuses it (exit 6). Every line it logs goes to stderr; `--json` writes one JSON object per event to
stdout instead. The config's `[[alerts]]` of kinds `schedule_missed` and `marker_unconfirmed` fire from
what it says and reach the `[[webhooks]]` (whatever is queued at a stop gets `DRAIN_S` to go out).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from omeconsole.api.errors import OmeError
from omeconsole.cli import exit_codes
from omeconsole.cli.output import complain, say
from omeconsole.core.config import ConfigError, Settings, config_path
from omeconsole.core.schedule.edits import EditError, Files, add, pause, remove, skip_next
from omeconsole.core.schedule.events import RunnerEvent, run_time
from omeconsole.core.schedule.model import Schedule, ScheduleError
from omeconsole.core.schedule.store import Book, check_file, load_book, schedule_file_path
from omeconsole.core.text import visible
from omeconsole.model.paths import NodePath

DETECT_TIMEOUT_S = 2.0
LISTING_TIMEOUT_S = 10.0
STREAMS_SHOWN = 20
"""`schedule list` names this many streams of a pattern, and counts the rest."""
DRAIN_S = 5.0


def _files(args: argparse.Namespace) -> Files:
    schedules = Path(args.schedule_file).expanduser() if args.schedule_file else schedule_file_path()
    return Files(config_path(), schedules)


def run_schedule(args: argparse.Namespace, settings: Callable[[], Settings]) -> int:
    """`settings`: the server's, loaded only by `list` (ConfigError: the config names no usable server)."""
    files = _files(args)
    try:
        if args.action == "check":
            return _check(args, files)
        if args.action == "list":
            book = load_book(files.config, files.schedules)
            return _list(book, args, _streams_now(book, settings))
        if not args.name:
            complain(f"schedule {args.action} needs the schedule's name")
            return exit_codes.USAGE
        return _edit(args, files)
    except (ScheduleError, EditError) as error:
        complain(str(error))
        return exit_codes.USAGE
    except OSError as error:
        complain(f"cannot write {files.schedules}: {error.strerror or error}")
        return exit_codes.USAGE


def _check(args: argparse.Namespace, files: Files) -> int:
    if args.name:
        book = check_file(Path(args.name).expanduser(), files.config)
        say(f"{args.name}: {len(book.schedules)} schedule(s), {len(book.templates)} template(s): valid")
    else:
        book = load_book(files.config, files.schedules)
        say(f"{files.config} and {files.schedules}: {len(book.schedules)} schedule(s), "
            f"{len(book.templates)} template(s): valid")
    return exit_codes.OK


def _edit(args: argparse.Namespace, files: Files) -> int:
    name: str = args.name
    if args.action == "add":
        add(files, _new_table(args))
        say(f"{name} added to {files.schedules}")
    elif args.action == "remove":
        remove(files, name)
        say(f"{name} removed from {files.schedules}")
    elif args.action in ("pause", "resume"):
        pause(files, name, args.action == "pause")
        say(f"{name} {'paused' if args.action == 'pause' else 'resumed'} (in {files.schedules})")
    else:
        book, run = skip_next(files, name, datetime.now(UTC))
        zone = next(s.timing.zone for s in book.schedules if s.name == name)
        say(f"{name}: the run at {run.astimezone(zone):%Y-%m-%d %H:%M %Z} will be skipped")
    return exit_codes.OK


def _new_table(args: argparse.Namespace) -> dict[str, Any]:
    table: dict[str, Any] = {"name": args.name, "stream": args.stream, "template": args.template}
    for key in ("every", "offset", "at", "cron", "timezone", "between"):
        value = getattr(args, key)
        if value is not None:
            table[key] = value
    missing = [f"--{key}" for key in ("stream", "template") if table[key] is None]
    if missing:
        raise EditError(f"schedule add needs {' and '.join(missing)}")
    return table


_Streams = tuple[dict[str, list[NodePath]] | None, str | None]
"""Each schedule's streams now, or None with the reason they could not be read."""


def _streams_now(book: Book, settings: Callable[[], Settings]) -> _Streams:
    if not book.schedules:
        return {}, None
    try:
        chosen = settings()
    except ConfigError as error:
        return None, f"no server to read ({error})"
    return asyncio.run(_read_streams(book, chosen))


async def _read_streams(book: Book, settings: Settings) -> _Streams:
    from omeconsole.api.client import OmeClient
    from omeconsole.core.context import host_port
    from omeconsole.core.schedule.streams import matches_now

    where = host_port(settings.api_url)
    try:
        client = OmeClient(settings.api_url, settings.token_value() or "", timeout=settings.timeout,
                           verify=not settings.insecure)
    except ValueError as error:  # an API URL the client refuses
        return None, f"{where}: {error}"
    try:
        return await asyncio.wait_for(matches_now(client, book.schedules), LISTING_TIMEOUT_S), None
    except OmeError as error:
        return None, f"the server {where} cannot be read ({error.message})"
    except TimeoutError:
        return None, f"the server {where} did not list its streams within {LISTING_TIMEOUT_S:g} s"
    finally:
        await client.aclose()


def _streams_line(schedule: Schedule, streams: _Streams) -> str:
    found, problem = streams
    if found is None:
        return f"  streams now: not known — {visible(problem or '', 500)}"
    matched = found.get(schedule.name, [])
    if not matched:
        what = "the pattern matches no stream" if schedule.is_pattern else "the stream is not live"
        return f"  streams now: none ({what} now; a run with none sends nothing)"
    shown = ", ".join(visible(str(p), 300) for p in matched[:STREAMS_SHOWN])
    more = f" and {len(matched) - STREAMS_SHOWN} more" if len(matched) > STREAMS_SHOWN else ""
    return f"  streams now: {shown}{more}"


def _list(book: Book, args: argparse.Namespace, streams: _Streams) -> int:
    now = datetime.now(UTC)
    rows = []
    for schedule in book.schedules:
        control = book.control(schedule.name)
        runs: list[datetime] = []
        moment = now
        while len(runs) < max(1, args.count):
            run = schedule.timing.next_after(moment)
            if run is None:
                break
            runs.append(run)
            moment = run
        rows.append((schedule, control, runs))
    found, problem = streams
    if args.json:
        print(json.dumps([{"name": s.name, "stream": s.stream, "template": s.template.name,
                           "when": s.timing.describe(), "paused": c.paused,
                           "next": [{"run": r.isoformat(), "skipped": r in c.skip} for r in runs], "source": s.source,
                           "streams_now": None if found is None else [str(p) for p in found.get(s.name, [])],
                           "streams_problem": problem}
                          for s, c, runs in rows], ensure_ascii=True))
        return exit_codes.OK
    if not rows:
        say("no schedules (add [[schedules]] to the config, or: omeconsole schedule add NAME --stream … "
            "--template … --every 12m)")
    for schedule, control, runs in rows:
        state = " (paused)" if control.paused else ""
        say(f"{visible(schedule.name, 100)}{state}: {visible(schedule.stream, 300)}, template "
            f"{visible(schedule.template.name, 100)} ({schedule.template.describe()}), {schedule.timing.describe()}")
        zone = schedule.timing.zone
        nexts = [run_time(r, zone) + (" skipped" if r in control.skip else "") for r in runs]
        say(f"  next: {', '.join(nexts) or 'none within four years'}"
            + (f" (from {runs[0].astimezone(zone):%Y-%m-%d})" if runs else ""))
        say(_streams_line(schedule, streams))
    return exit_codes.OK


# The runner -----------------------------------------------------------------------------------------------------

def run_scheduler(args: argparse.Namespace, settings: Settings, out: IO[str] | None = None) -> int:
    if settings.insecure:
        complain("warning: TLS certificate verification is off (--insecure)")
    try:
        return asyncio.run(_scheduler(args, settings, out or sys.stdout))
    except ValueError as error:  # an API URL the client refuses
        complain(f"scheduler: {error}")
        return exit_codes.USAGE


async def _scheduler(args: argparse.Namespace, settings: Settings, out: IO[str]) -> int:
    from omeconsole.core.alerts.occurrences import Occurrences
    from omeconsole.core.alerts.webhook_config import WebhookConfigError
    from omeconsole.core.alerts.webhooks import Deliveries
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.schedule.alerting import ScheduleAlerts
    from omeconsole.core.schedule.lock import LockHeld, RunnerLock, lock_path
    from omeconsole.core.schedule.runner import Runner, RunnerRefused
    from omeconsole.core.session import connector

    files = _files(args)
    clock = SystemClock()
    try:
        deliveries = Deliveries(settings.webhooks, clock, warn=lambda text: complain(f"warning: {text}"))
    except WebhookConfigError as error:
        complain(str(error))
        return exit_codes.USAGE
    session = connector(clock)(settings)
    with contextlib.suppress(OmeError, TimeoutError):  # what the server does with a cue (unknown if it fails)
        await asyncio.wait_for(session.client.detect(), DETECT_TIMEOUT_S)
    adops = session.adops
    occurrences = Occurrences(settings.alerts, clock, server=adops.context.profile or adops.context.host)
    occurrences.add_listener(deliveries.notifier())
    alerts = ScheduleAlerts(occurrences)
    say_it = _reporter(args.json, out)

    def report(event: RunnerEvent) -> None:
        say_it(event)
        alerts(event)

    lock = RunnerLock(lock_path(adops.audit.path), "omeconsole scheduler")
    runner = Runner(adops, lambda: load_book(files.config, files.schedules), [files.config, files.schedules],
                    report, lock, on_tick=occurrences.tick)
    deliveries.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):  # before anything is said: a stop is never a crash
        loop.add_signal_handler(signum, stop.set)
    try:
        try:
            runner.start()
        except RunnerRefused as error:
            complain(str(error))
            return exit_codes.READ_ONLY
        except LockHeld as error:
            complain(str(error))
            return exit_codes.REFUSED
        except ScheduleError as error:
            complain(f"{error}; nothing started")
            return exit_codes.USAGE
        except OSError as error:  # the audit log's directory: where the lock lives
            complain(f"the scheduler's lock {lock.path} cannot be taken ({error.strerror or error}); nothing started")
            return exit_codes.AUDIT_UNWRITABLE
        await runner.run(stop)
        return exit_codes.OK
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        runner.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(deliveries.drained(), DRAIN_S)
        await deliveries.aclose()
        await session.aclose()


def _reporter(as_json: bool, out: IO[str]) -> Callable[[RunnerEvent], None]:
    def report(event: RunnerEvent) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        if as_json:
            print(json.dumps({"time": stamp, **event.fields()}, ensure_ascii=True), file=out, flush=True)
        else:
            print(f"{stamp} {event.kind}: {event.text()}", file=sys.stderr, flush=True)
    return report

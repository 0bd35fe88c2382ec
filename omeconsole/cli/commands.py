"""The scriptable commands: each takes parsed arguments and a connected client, prints, returns a code.

Exit codes: 0 success; 1 the server refused or failed; 2 bad usage or configuration; 3 the server
could not be reached or did not answer; 4 a send whose outcome is unknown (look before resending).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import OmeError, OutcomeUnknown, RequestTimeout, UnreachableError
from omeconsole.api.wire import Id3Frame
from omeconsole.cli import format as fmt
from omeconsole.cli import wait_confirm
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.clock import Clock
from omeconsole.core.polling.rates import RateWindow
from omeconsole.model.paths import NodePath
from omeconsole.model.sends import SendResult

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_UNKNOWN = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad arguments discovered after parsing (exit 2, message on stderr)."""


def exit_code_for(error: OmeError) -> int:
    if isinstance(error, OutcomeUnknown):
        return EXIT_UNKNOWN
    if isinstance(error, UnreachableError | RequestTimeout):
        return EXIT_UNREACHABLE
    return EXIT_REFUSED


def parse_path(text: str, *, level: str | None = None) -> NodePath:
    try:
        path = NodePath.parse(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if level is not None and path.level != level:
        raise UsageError(f"expected vhost/app/stream, got {text!r}")
    return path


async def cmd_ls(client: OmeClient, args: argparse.Namespace) -> int:
    if args.path:
        path = parse_path(args.path)
        if path.level == "stream":
            raise UsageError("ls takes vhost or vhost/app; use `info` or `stats` for a stream")
        if path.app is None:
            children = [NodePath(path.vhost, a) for a in await client.list_apps(path.vhost)]
        else:
            children = [NodePath(path.vhost, path.app, s) for s in await client.list_streams(path.vhost, path.app)]
    else:
        children = [NodePath(v) for v in await client.list_vhosts()]
    if args.json:
        print(fmt.dumps([str(c) for c in children]))
    else:
        for child in children:
            print(child)
    return EXIT_OK


async def cmd_stats(client: OmeClient, args: argparse.Namespace, clock: Clock) -> int:
    path = parse_path(args.path)
    if not args.watch:
        stats = await client.stats(path)
        print(fmt.dumps(stats) if args.json else fmt.stats_text(path, stats, client.server_info))
        return EXIT_OK
    if args.interval <= 0 or (args.count is not None and args.count < 1):
        raise UsageError("--interval must be positive and --count at least 1")
    window = RateWindow()
    shown = 0
    while args.count is None or shown < args.count:
        if shown:
            await clock.sleep(args.interval)
        try:
            stats = await client.stats(path)
        except (UnreachableError, RequestTimeout) as error:
            print(f"omeconsole: {error} (still watching)", file=sys.stderr, flush=True)
            shown += 1
            continue
        sample = window.sample(stats, clock.monotonic())
        if args.json:
            print(fmt.sample_json(path, sample), flush=True)
        else:
            print(fmt.stats_text(path, stats, client.server_info, sample) + "\n", flush=True)
        shown += 1
    return EXIT_OK


async def cmd_info(client: OmeClient, args: argparse.Namespace) -> int:
    path = parse_path(args.path, level="stream")
    info = await client.stream_info(path.vhost, path.app or "", path.stream or "")
    print(fmt.dumps(info) if args.json else fmt.info_text(info))
    return EXIT_OK


def _frames(args: argparse.Namespace) -> list[Id3Frame]:
    frames = getattr(args, "frames", None) or []
    if not frames:
        raise UsageError("id3 needs at least one --frame")
    return [Id3Frame(**frame) for frame in frames]


def _events_file(name: str) -> list[Any]:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        value = json.loads(text)
    except ValueError as error:
        raise UsageError(f"{name} is not valid JSON: {error}") from None
    sets = value if isinstance(value, list) else [value]
    if not sets or not all(isinstance(s, dict) for s in sets):
        raise UsageError(f"{name} must hold an event set (a JSON object) or a non-empty array of them")
    return sets


async def cmd_send(client: OmeClient, args: argparse.Namespace, audit: AuditLog) -> int:
    """cue-out, cue-in, id3 and send-events: send once, audit the exact body and outcome."""
    path = parse_path(args.path, level="stream")
    action: str = args.command
    send: Callable[[], Awaitable[SendResult]]
    if action == "cue-out":
        if args.duration <= 0:
            raise UsageError("--duration must be a positive number of seconds")
        duration_ms = round(args.duration * 1000)
        send = lambda: client.cue_out(path, duration_ms)  # noqa: E731 - built first, sent after confirm opens
    elif action == "cue-in":
        send = lambda: client.cue_in(path)  # noqa: E731
    elif action == "id3":
        frames = _frames(args)
        send = lambda: client.id3(path, frames, args.event_type)  # noqa: E731
    else:
        sets = _events_file(args.file)
        send = lambda: client.send_events(path, sets)  # noqa: E731
    confirmer = await wait_confirm.open_if_asked(args, path, action, _frames(args) if action == "id3" else None)
    try:
        result: SendResult = await send()
    except OmeError as error:
        if confirmer is not None:
            await confirmer.cancel()
        if not isinstance(error, UnreachableError):  # nothing left this machine otherwise
            _audit(audit, client, path, action, error.body,
                   "unknown" if isinstance(error, OutcomeUnknown) else (error.status or "unknown"),
                   error.message)
        raise
    send_id = _audit(audit, client, path, action, result.body, result.status, result.message)
    if args.json:
        print(fmt.dumps({"path": path, "action": action, "status": result.status, "message": result.message,
                         "items": result.items, "body": result.body}))
    else:
        print(fmt.send_text(action, path, result))
    if confirmer is not None and result.ok:
        return await wait_confirm.report(confirmer, audit, send_id, as_json=args.json)
    if confirmer is not None:
        await confirmer.cancel()
    return EXIT_OK if result.ok else EXIT_REFUSED


def _audit(audit: AuditLog, client: OmeClient, path: NodePath, action: str, body: object,
           status: int | str, message: str) -> str | None:
    try:
        return audit.record_send(server=client.api_url, vhost=path.vhost, app=path.app or "", stream=path.stream or "",
                          action=action, body=body, status=status if isinstance(status, int) else "unknown",
                          message=message)
    except OSError as error:
        print(f"omeconsole: warning: could not write the audit log {audit.path}: {error.strerror or error}",
              file=sys.stderr)
        return None


async def run_with_client(client: OmeClient, args: argparse.Namespace, audit: AuditLog, clock: Clock) -> int:
    async with client:
        if args.command == "ls":
            return await cmd_ls(client, args)
        if args.command == "stats":
            return await cmd_stats(client, args, clock)
        if args.command == "info":
            return await cmd_info(client, args)
        return await cmd_send(client, args, audit)

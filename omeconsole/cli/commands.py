"""The read commands: `ls`, `stats` (once, or `--watch`), `info`. Each prints and returns an exit status."""

from __future__ import annotations

import argparse

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import RequestTimeout, UnreachableError
from omeconsole.cli import exit_codes
from omeconsole.cli import format as fmt
from omeconsole.cli.output import complain, say
from omeconsole.core.clock import Clock
from omeconsole.core.history.target import Target
from omeconsole.core.polling.own_share import AudienceWindow
from omeconsole.model.paths import NodePath


class UsageError(Exception):
    """Bad arguments discovered after parsing (exit 2, message on stderr)."""


def parse_path(text: str, *, level: str | None = None) -> NodePath:
    try:
        path = NodePath.parse(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if level is not None and path.level != level:
        raise UsageError(f"expected vhost/app/stream, got {text!r}")
    return path


def listable(path: NodePath | None) -> NodePath | None:
    if path is not None and path.level == "stream":
        raise UsageError("ls takes vhost or vhost/app; use `info` or `stats` for a stream")
    return path


async def names_under(client: OmeClient, path: NodePath | None) -> list[NodePath]:
    """The virtual hosts (no path), a vhost's applications or an application's streams. Names are data:
    held as they are (a name may hold a `/`); print them through the display rules."""
    if path is None:
        return [NodePath(v) for v in await client.list_vhosts()]
    if path.app is None:
        return [NodePath(path.vhost, a) for a in await client.list_apps(path.vhost)]
    return [NodePath(path.vhost, path.app, s) for s in await client.list_streams(path.vhost, path.app)]


async def cmd_ls(client: OmeClient, args: argparse.Namespace, *, path: NodePath | None) -> int:
    """`path`: a vhost or vhost/app, None for the virtual hosts."""
    names = await names_under(client, listable(path))
    if args.json:
        say(fmt.dumps([str(n) for n in names]))
    else:
        for name in names:
            say("/".join(fmt.path_text(p) for p in name.segments))
    return exit_codes.OK


async def cmd_stats(client: OmeClient, args: argparse.Namespace, clock: Clock, *, path: NodePath | None = None,
                    server: str | None = None) -> int:
    """One node's statistics; `server` (a fleet's profile) is named in what is printed."""
    path = path or parse_path(args.path)
    name = Target(server, path) if server else path
    style = "json" if args.json else args.format
    window = AudienceWindow()  # the readings less the console's own playlist reads (of any of its processes)
    if not args.watch:
        stats = (reading := await window.read(client, path, clock)).stats
        if style == "json":
            say(fmt.dumps({**fmt.jsonable(stats), **fmt.audience_json(stats), **fmt.own_json(reading)}))
        elif style == "line":
            say(fmt.stats_line(name, stats, None, clock.wall()))
        else:
            say(fmt.stats_text(name, stats, client.server_info, own=reading))
        return exit_codes.OK
    if args.interval <= 0 or (args.count is not None and args.count < 1):
        raise UsageError("--interval must be positive and --count at least 1")
    shown = 0
    while args.count is None or shown < args.count:
        if shown:
            await clock.sleep(args.interval)
        shown += 1
        try:
            sample = await window.read(client, path, clock)
        except (UnreachableError, RequestTimeout) as error:
            complain(f"{error} (still watching)")
            continue
        stats = sample.stats
        if style == "json":
            say(fmt.sample_json(path, sample, server))
        elif style == "line":
            say(fmt.stats_line(name, stats, sample, clock.wall()))
        else:
            say(fmt.stats_text(name, stats, client.server_info, sample, own=sample) + "\n")
    return exit_codes.OK


async def cmd_info(client: OmeClient, args: argparse.Namespace, *, path: NodePath | None = None) -> int:
    path = path or parse_path(args.path, level="stream")
    info = await client.stream_info(path.vhost, path.app or "", path.stream or "")
    say(fmt.dumps(info) if args.json else fmt.info_text(info))
    return exit_codes.OK

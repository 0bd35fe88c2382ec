"""`ls`, `stats` and `info` with `--fleet NAME`: one server's node, or a node on every server and summed.

A node written `PROFILE:vhost/app/stream` is that server's and is read as on one server (the output
names the server); `vhost/app/stream` is read on every server of the fleet at once. `ls --fleet NAME`
alone is the server level: each server's health, seen by connecting to it (detection, timed).

Exit status: 0 when every server asked answered; else the status of the first server (in the fleet's
order) that did not (3 unreachable, 1 refused or failed); 1 when no server has the node.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from datetime import datetime

from omeconsole.api.errors import AuthError, NotFoundError, OmeError, RequestTimeout, UnreachableError
from omeconsole.cli import exit_codes
from omeconsole.cli import fleet_format as ffmt
from omeconsole.cli import format as fmt
from omeconsole.cli.commands import UsageError, cmd_info, cmd_stats, listable, names_under
from omeconsole.cli.output import complain, say
from omeconsole.core.fleet.fleet import Fleet, FleetMember
from omeconsole.core.fleet.health import ServerHealth
from omeconsole.core.fleet.naming import UnknownServer, bare_profile, servers_of
from omeconsole.core.fleet.views import FleetView, ServerReading, fleet_view
from omeconsole.core.history.target import Target
from omeconsole.core.polling.own_share import AudienceWindow
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import StreamInfo

Answer = tuple[ServerReading, OmeError | None]


def target(text: str, fleet: Fleet, *, level: str | None = None) -> Target:
    """`[PROFILE:]vhost[/app[/stream]]`, the profile one of the fleet's servers."""
    try:
        parsed = Target.parse(text)
        servers_of(parsed, fleet.profiles)
    except ValueError as error:  # UnknownServer is one
        raise UsageError(str(error)) from None
    if level is not None and parsed.path.level != level:
        raise UsageError(f"expected [PROFILE:]vhost/app/stream, got {text!r}")
    return parsed


def _first_failure(errors: Sequence[OmeError | None]) -> int:
    for error in errors:
        if error is not None:
            return exit_codes.for_error(error)
    return exit_codes.OK


async def run(fleet: Fleet, args: argparse.Namespace) -> int:
    if args.command == "ls":
        return await _ls(fleet, args)
    if args.command == "stats":
        return await _stats(fleet, args)
    return await _info(fleet, args)


# -- ls --------------------------------------------------------------------------------------------------


def _health_status(rows: Sequence[ServerHealth]) -> int:
    for row in rows:
        if not row.reachable:
            return exit_codes.REFUSED if row.status in ("unauthorized", "error") else exit_codes.UNREACHABLE
    return exit_codes.OK


async def _ls(fleet: Fleet, args: argparse.Namespace) -> int:
    if not args.path:
        await fleet.settle(max(2 * member.session.settings.timeout for member in fleet) + 1.0)
        rows = fleet.health()
        say(ffmt.health_json(fleet.name, rows) if args.json else ffmt.health_table(fleet.name, rows))
        return _health_status(rows)
    whole = bare_profile(args.path)
    try:
        if whole is not None:  # that server's virtual hosts
            members, path = [fleet.member(whole)], None
        else:
            named = target(args.path, fleet)
            members = [fleet.member(name) for name in servers_of(named, fleet.profiles)]
            path = listable(named.path)
    except UnknownServer as error:
        raise UsageError(str(error)) from None
    answers = await asyncio.gather(*(names_under(m.session.client, path) for m in members), return_exceptions=True)
    found: list[str] = []
    errors: list[OmeError | None] = []
    for member, answer in zip(members, answers, strict=True):
        if isinstance(answer, OmeError):
            complain(f"{member.profile}: {answer}")
            errors.append(answer)
        elif isinstance(answer, BaseException):
            raise answer
        else:
            found += [str(Target(member.profile, name)) for name in answer]
            errors.append(None)
    if args.json:
        say(fmt.dumps(found))
    else:
        for name in found:
            say(fmt.path_text(name))
    return _first_failure(errors)


# -- stats -----------------------------------------------------------------------------------------------


async def _read(member: FleetMember, path: NodePath, window: AudienceWindow | None) -> Answer:
    """One server's reading of `path` (and of a stream's input when its statistics do not say it), less the
    console's own playlist reads."""
    client = member.session.client
    window = window or AudienceWindow()
    try:
        sample = await window.read(client, path, member.session.clock)
        stats = sample.stats
        info: StreamInfo | None = None
        if path.level == "stream" and stats.connections_in is None:
            info = await client.stream_info(path.vhost, path.app or "", path.stream or "")
    except NotFoundError:
        return ServerReading(member.profile), None
    except OmeError as error:
        return ServerReading(member.profile, error=str(error)), error
    return ServerReading(member.profile, stats, sample.rate_in_bps, sample.rate_out_bps, info), None


async def _read_all(fleet: Fleet, path: NodePath, windows: dict[str, AudienceWindow] | None) -> list[Answer]:
    return list(await asyncio.gather(*(_read(member, path, None if windows is None else windows[member.profile])
                                       for member in fleet)))


async def _stats(fleet: Fleet, args: argparse.Namespace) -> int:
    named = target(args.path, fleet)
    if named.profile is not None:
        member = fleet.member(named.profile)
        return await cmd_stats(member.session.client, args, member.session.clock, path=named.path,
                               server=member.profile)
    style = "json" if args.json else args.format
    clock = fleet.clock
    if not args.watch:
        answers = await _read_all(fleet, named.path, None)
        view = fleet_view(named.path, [reading for reading, _ in answers])
        if not view.present and view.complete:
            complain(f"{fmt.path_text(named.path)} is on no server of fleet {fmt.path_text(fleet.name)}")
            return exit_codes.REFUSED
        _say_view(fleet, view, style, clock.wall(), server_figures=True)
        for reading, error in answers:
            if error is not None:
                complain(f"{reading.profile}: {error}")
        return _first_failure([error for _, error in answers])
    if args.interval <= 0 or (args.count is not None and args.count < 1):
        raise UsageError("--interval must be positive and --count at least 1")
    windows = {profile: AudienceWindow() for profile in fleet.profiles}
    shown = 0
    while args.count is None or shown < args.count:
        if shown:
            await clock.sleep(args.interval)
        shown += 1
        answers = await _read_all(fleet, named.path, windows)
        for reading, error in answers:
            if isinstance(error, AuthError) or (error is not None and not isinstance(
                    error, UnreachableError | RequestTimeout)):
                complain(f"{reading.profile}: {error} (still watching)")
        _say_view(fleet, fleet_view(named.path, [reading for reading, _ in answers]), style, clock.wall(),
                  server_figures=False)
    return exit_codes.OK


def _say_view(fleet: Fleet, view: FleetView, style: str, when: datetime, *, server_figures: bool) -> None:
    if style == "json":
        say(ffmt.view_json(fleet.name, view))
    elif style == "line":
        say(ffmt.view_line(view, when))
    else:
        say(ffmt.view_text(fleet.name, view, server_figures=server_figures) + ("" if server_figures else "\n"))


# -- info ------------------------------------------------------------------------------------------------


async def _info(fleet: Fleet, args: argparse.Namespace) -> int:
    named = target(args.path, fleet, level="stream")
    path = named.path
    if named.profile is not None:
        member = fleet.member(named.profile)
        return await cmd_info(member.session.client, args, path=path)
    answers = await asyncio.gather(*(m.session.client.stream_info(path.vhost, path.app or "", path.stream or "")
                                     for m in fleet), return_exceptions=True)
    records: list[dict[str, object]] = []
    errors: list[OmeError | None] = []
    for member, answer in zip(fleet, answers, strict=True):
        error = answer if isinstance(answer, OmeError) else None
        if isinstance(answer, BaseException) and error is None:
            raise answer
        info = answer if isinstance(answer, StreamInfo) else None
        absent = isinstance(error, NotFoundError)
        errors.append(None if absent else error)
        records.append({"server": member.profile, "info": info,
                        "error": None if error is None or absent else str(error), "present": info is not None})
        if args.json:
            continue
        if info is not None:
            say(f"{fmt.path_text(member.profile)}: {fmt.info_text(info)}")
        elif absent:
            say(f"{fmt.path_text(member.profile)}: {fmt.path_text(path)} is not on this server")
        else:
            complain(f"{member.profile}: {error}")
    if args.json:
        say(fmt.dumps({"fleet": fleet.name, "path": path, "servers": records}))
    if not any(record["present"] for record in records) and not any(errors):
        complain(f"{fmt.path_text(path)} is on no server of fleet {fmt.path_text(fleet.name)}")
        return exit_codes.REFUSED
    return _first_failure(errors)

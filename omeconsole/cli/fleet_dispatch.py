"""Commands on several servers: `--fleet NAME` for the console, the reads, `history`, `record` and
`exporter`, and a send's `--servers A,B`.

A fleet is a `[fleets.NAME]` table of the config (core/fleet/settings.py); each server keeps its own
profile's URL and token. Sends are never fleet-wide: a send names one server (`--profile`) or, only
when the operator lists them, several (`--servers`), each planned, sent and audited on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib

from omeconsole.cli import exit_codes, exporter_cmd, fleet_cmd, gc_policy, history_cmd, record_cmd, sends
from omeconsole.cli.commands import UsageError
from omeconsole.cli.exit_handling import interruptible, reported
from omeconsole.cli.output import complain
from omeconsole.cli.parser import FLEET_COMMANDS, NAMED_COMMANDS, SENDS, flags
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import Settings, config_path
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.core.fleet.naming import bare_profile
from omeconsole.core.fleet.settings import FleetSettings, load_fleet, load_servers, member_name
from omeconsole.core.history.target import Target
from omeconsole.core.session import Session, connector
from omeconsole.model.paths import NodePath

_NOT_FOR_FLEETS = {
    "demo": "the demo's fleet is its own: `omeconsole demo --fleet` takes no name",
    "alerts": "alerts reads a running exporter: `omeconsole exporter --fleet NAME` serves a whole fleet",
}


def _named(args: argparse.Namespace) -> tuple[str | None, NodePath | None]:
    """The PROFILE and the path of a read command's node (`PROFILE:` alone: that server's virtual hosts)."""
    text = getattr(args, "path", None) if args.command in NAMED_COMMANDS else None
    if not text:
        return None, None
    whole = bare_profile(text)
    if whole is not None and args.command == "ls":
        return whole, None
    try:
        target = Target.parse(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return target.profile, target.path


def named_profile(args: argparse.Namespace) -> str | None:
    return _named(args)[0]


def named_path(args: argparse.Namespace) -> NodePath | None:
    return _named(args)[1]


def no_token(profile: str | None = None) -> str:
    where = f"[profiles.{profile}] of " if profile else ""
    return ((f"no access token for server {profile}: " if profile else "no access token: ")
            + "pass --token-file (or --token), set OME_ACCESS_TOKEN_FILE or OME_ACCESS_TOKEN, "
            f"or put token_file, token_command or token in {where}{config_path()}")


def _tokens_missing(servers: tuple[Settings, ...]) -> bool:
    missing = [settings for settings in servers if settings.token_value() is None]
    for settings in missing:
        complain(no_token(member_name(settings)))
    return bool(missing)


def run(args: argparse.Namespace, command: str) -> int:
    return reported(lambda: _command(args, command))


def _command(args: argparse.Namespace, command: str) -> int:
    if command in SENDS:
        if args.fleet is not None:
            complain(f"{command} is not sent to a whole fleet: name its server with --profile NAME, or "
                     "several with --servers NAME,NAME (each sent and audited on its own)")
            return exit_codes.USAGE
        return _send(args)
    if command == "ui" and args.fleet is not None:
        return _console(args)
    if command not in FLEET_COMMANDS:
        complain(f"--fleet is not for {command}: {_NOT_FOR_FLEETS.get(command, '')}".rstrip(": "))
        return exit_codes.USAGE
    fleet = load_fleet(args.fleet, flags(args))
    if command == "history":
        return history_cmd.run(args, fleet.servers[0], fleet=fleet)
    if _tokens_missing(fleet.servers):
        return exit_codes.USAGE
    if any(settings.insecure for settings in fleet.servers):
        complain("warning: TLS certificate verification is off (--insecure)")
    if command == "record":
        return record_cmd.run(args, fleet.servers[0], fleet=fleet)
    if command == "exporter":
        return exporter_cmd.run(fleet.servers[0], args, fleet=fleet)
    return asyncio.run(_read(fleet, args))


def _console(args: argparse.Namespace) -> int:
    """The console on every server of the fleet (imported only now, as the one-server console is)."""
    fleet = load_fleet(args.fleet, flags(args))
    if args.replay:  # the fleet's recording: no server is asked, no token needed
        run_fleet_replay = importlib.import_module("omeconsole.ui.replay.fleet").run_fleet_replay
        gc_policy.console(debug=getattr(args, "debug", False))  # a replay's start needs no watch
        replayed: int = run_fleet_replay(fleet, since=args.replay_since, select=getattr(args, "select", None))
        return replayed
    if _tokens_missing(fleet.servers):  # the fleet screen has no token prompt: each profile names its token
        return exit_codes.USAGE
    run_fleet_app = importlib.import_module("omeconsole.ui.fleet_app").run_fleet_app
    status: int = run_fleet_app(fleet, select=getattr(args, "select", None),
                                start_watch=gc_policy.console(debug=getattr(args, "debug", False)))
    return status


async def _read(settings: FleetSettings, args: argparse.Namespace) -> int:
    try:
        fleet = Fleet.connect(settings, SystemClock())
    except ValueError as error:  # an API URL the client cannot use
        raise UsageError(str(error)) from None
    try:
        return await interruptible(lambda: fleet_cmd.run(fleet, args), sending=False)
    finally:
        await fleet.aclose()


def _send(args: argparse.Namespace) -> int:
    servers = load_servers(args.servers, flags(args))
    if _tokens_missing(servers):
        return exit_codes.USAGE
    return asyncio.run(_sends(servers, args))


async def _sends(servers: tuple[Settings, ...], args: argparse.Namespace) -> int:
    connect = connector(SystemClock())
    sessions: list[tuple[str, Session]] = []
    try:
        for settings in servers:
            sessions.append((member_name(settings), connect(settings)))
    except ValueError as error:
        await asyncio.gather(*(session.aclose() for _, session in sessions))
        raise UsageError(str(error)) from None
    try:
        return await interruptible(lambda: sends.send_to_servers(sessions, args), sending=True)
    finally:
        await asyncio.gather(*(session.aclose() for _, session in sessions))

"""`omeconsole`: the terminal console (no subcommand), its demo, and scriptable commands.

Global options work before or after the subcommand. Settings come from flags > environment >
the config file's profile (see `omeconsole config path`). The grammar (`parser.py`) imports no
command; each command's implementation (the console and the demo's embedded simulator included) is
imported here when that command runs, so `--help` and every command start light, the console's first
requests leave before any other command's machinery is loaded, and the command line never imports
the simulator. Commands on several servers (`--fleet NAME`, a send's `--servers A,B`) are run by
`fleet_dispatch.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from omeconsole.cli import exit_codes, gc_policy
from omeconsole.cli.output import complain
from omeconsole.cli.parser import NAMED_COMMANDS, SENDS, build_parser, flags

if TYPE_CHECKING:
    from omeconsole.core.config import Settings
    from omeconsole.core.session import Session

__all__ = ["build_parser", "main"]


def _settings(args: argparse.Namespace) -> Settings:
    from omeconsole.core.config import ConfigError, load_settings

    given = flags(args)
    named = _named_profile(args)
    if named is not None:  # `stats PROFILE:vhost/app/stream`: that profile's server
        if (args.profile not in (None, named)) or args.api_url:
            raise ConfigError(f"{named}: names a profile; --profile or --api-url cannot name another server")
        given["profile"] = named
    return load_settings(given, server=args.command != "demo")  # the demo's server is its own


def _named_profile(args: argparse.Namespace) -> str | None:
    """The profile a read command's node names (`stats PROFILE:vhost/app/stream`); a mistake in it is a
    configuration error (exit 2) like any other way of naming a server."""
    if args.command not in NAMED_COMMANDS:
        return None
    from omeconsole.cli import fleet_dispatch
    from omeconsole.cli.commands import UsageError
    from omeconsole.core.config import ConfigError

    try:
        return fleet_dispatch.named_profile(args)
    except UsageError as error:
        raise ConfigError(str(error)) from None


def _server_flags(args: argparse.Namespace) -> list[str]:
    """The flags given that name a server (its address or token)."""
    named = {"--api-url": args.api_url, "--publisher-url": args.publisher_url, "--token": args.token,
             "--token-file": args.token_file}
    return [flag for flag, value in named.items() if value is not None]


def _run_ui(module_name: str, function: str, settings: Settings, *, debug: bool, watched: bool,
            **options: Any) -> int:
    """Start the console (or its demo), imported only now: a dynamic import keeps the commands light.
    Its collections tuned (`gc_policy.console`); `watched`: the entry takes the policy's `start_watch`."""
    if importlib.util.find_spec(module_name) is None:
        complain(f"the terminal console is not available in this build ({module_name} is missing); "
                 "the command-line subcommands work: see omeconsole --help")
        return exit_codes.REFUSED
    try:
        entry = getattr(importlib.import_module(module_name), function)
    except ModuleNotFoundError as error:  # a console-only install: the demo's simulator has no dependencies
        complain(f"{module_name} cannot start: {error.name} is not installed; the demo runs the simulator, "
                 "which needs: pip install 'omeconsole[simulator]'")
        return exit_codes.REFUSED
    start = gc_policy.console(debug=debug)
    result = entry(settings, **options, **({"start_watch": start} if watched else {}))
    return result if isinstance(result, int) else exit_codes.OK


async def _dispatch(session: Session, args: argparse.Namespace) -> int:
    from omeconsole.cli import fleet_dispatch, sends
    from omeconsole.cli.commands import cmd_info, cmd_ls, cmd_stats

    path = fleet_dispatch.named_path(args)
    if args.command == "ls":
        return await cmd_ls(session.client, args, path=path)
    if args.command == "stats":
        return await cmd_stats(session.client, args, session.clock, path=path,
                               server=fleet_dispatch.named_profile(args))
    if args.command == "info":
        return await cmd_info(session.client, args, path=path)
    return await sends.cmd_send(session, args)


async def _run(settings: Settings, args: argparse.Namespace) -> int:
    """The command on one session; SIGINT, SIGTERM and SIGHUP stop it cleanly (a send's outcome is logged)."""
    from omeconsole.cli.commands import UsageError
    from omeconsole.cli.exit_handling import interruptible
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.session import connector

    try:
        session = connector(SystemClock())(settings)
    except ValueError as error:  # an API URL the client cannot use
        raise UsageError(str(error)) from None
    try:
        return await interruptible(lambda: _dispatch(session, args), sending=args.command in SENDS)
    finally:
        await session.aclose()


def _command(args: argparse.Namespace) -> int:
    command = args.command or "ui"
    gc_policy.command_chosen(holds_off_until_drawn=command == "ui" and not args.replay and args.fleet is None)
    if command == "config":
        from omeconsole.cli.config_cmd import run_config

        return run_config(args)
    if args.replay and args.fleet is not None and command != "ui":
        complain(f"--replay opens the console; it does not go with {command}")
        return exit_codes.USAGE
    if command == "schedule":  # the schedules' files; the settings only for `list`'s streams
        from omeconsole.cli import schedule_cmd

        return schedule_cmd.run_schedule(args, lambda: _settings(args))
    if args.fleet is not None or getattr(args, "servers", None):
        from omeconsole.cli import fleet_dispatch

        return fleet_dispatch.run(args, command)
    from omeconsole.core.config import ConfigError

    if command == "demo" and (given := _server_flags(args)):
        complain(f"the demo runs its own server: {', '.join(given)} cannot name another "
                 "(its API URL, publisher URL and token are shown when it starts)")
        return exit_codes.USAGE
    try:
        settings = _settings(args)
    except ConfigError as error:
        complain(str(error))
        return exit_codes.USAGE
    select = getattr(args, "select", None)
    if command == "demo":
        fleet = {"fleet": True} if args.demo_fleet else {}
        return _run_ui("omeconsole.ui.demo", "run_demo", settings, debug=args.debug, watched=True,
                       scenario=args.scenario, seed=args.seed, select=select, **fleet)
    if command == "serve":
        from omeconsole.cli import serve_cmd

        return serve_cmd.run(settings, args)
    if args.replay_since is not None and not args.replay:
        complain("--since before the command is for --replay (history takes its own: history NODE --since 2h)")
        return exit_codes.USAGE
    if args.replay:
        if command != "ui":
            complain(f"--replay opens the console; it does not go with {command}")
            return exit_codes.USAGE
        return _run_ui("omeconsole.ui.replay.app", "run_replay", settings, debug=args.debug, watched=False,
                       since=args.replay_since, named=bool(args.api_url or args.profile), select=select)
    if command == "ui":
        # No token is fine: the server answers 401 and the console asks for one.
        from omeconsole.cli import console_start

        return console_start.run_console(settings, select, debug=args.debug)
    if command == "alerts":
        import asyncio

        from omeconsole.cli import alerts_cmd

        return asyncio.run(alerts_cmd.run(args))
    if select is not None:
        complain(f"--select is for the console (ui, demo), not for {command}")
        return exit_codes.USAGE
    if command == "history":
        from omeconsole.cli import history_cmd

        return history_cmd.run(args, settings)
    if settings.token_value() is None:
        from omeconsole.cli.fleet_dispatch import no_token

        complain(no_token())
        return exit_codes.USAGE
    if command == "exporter":
        from omeconsole.cli import exporter_cmd

        return exporter_cmd.run(settings, args)
    if command == "record":
        from omeconsole.cli import record_cmd

        return record_cmd.run(args, settings)
    if command == "scheduler":
        from omeconsole.cli import schedule_cmd

        return schedule_cmd.run_scheduler(args, settings)
    if settings.insecure:
        complain("warning: TLS certificate verification is off (--insecure)")
    import asyncio

    from omeconsole.cli.exit_handling import reported

    return reported(lambda: asyncio.run(_run(settings, args)))


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # Names the terminal's encoding cannot show come out as escapes, never as a crash.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    gc_policy.launch()  # no collections while a command loads (cli/gc_policy.py)
    try:
        return _command(build_parser().parse_args(argv))
    except BrokenPipeError:
        # The reader left (`| head -1`): say nothing more, and keep the interpreter's final flush quiet.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exit_codes.BROKEN_PIPE
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    finally:
        gc_policy.exiting()


if __name__ == "__main__":
    sys.exit(main())

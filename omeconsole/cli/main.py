"""`omeconsole`: the terminal console (no subcommand), its demo, and scriptable commands.

Global options work before or after the subcommand. Settings come from flags > environment >
the config file's profile (see `omeconsole config path`). The console itself (and the demo's
embedded simulator) is imported only when asked for, so the commands start light and the command
line never imports the simulator. Commands on several servers (`--fleet NAME`, a send's
`--servers A,B`) are run by `several.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from omeconsole import __version__
from omeconsole.cli import alerts_cmd, console_start, exit_codes, exporter_cmd, history_cmd, record_cmd, sends, several
from omeconsole.cli.commands import UsageError, cmd_info, cmd_ls, cmd_stats
from omeconsole.cli.output import complain, say
from omeconsole.cli.running import interruptible, reported
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import ConfigError, Settings, config_path, load_settings, write_config_template
from omeconsole.core.session import Session, connector
from omeconsole.model.paths import NodePath

TOKEN_HELP = ("access token ($OME_ACCESS_TOKEN). Unsafe on a shared machine: every user can read a command "
              "line (ps, /proc); prefer --token-file, $OME_ACCESS_TOKEN_FILE or the config file")
FLEET_HELP = ("every server of the config's [fleets.NAME] table (each its profile's URL and token); "
              "PROFILE:vhost/app/stream names one of them")


class _FrameAction(argparse.Action):
    """--frame starts a new ID3 frame; --info and --data fill in the latest one."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        frames: list[dict[str, str]] = list(getattr(namespace, "frames", None) or [])
        if self.dest == "frame":
            frames.append({"frameType": str(values)})
        elif not frames:
            parser.error(f"{option_string} must follow a --frame")
        elif self.dest in frames[-1]:
            parser.error(f"{option_string} given twice for frame {frames[-1]['frameType']}")
        else:
            frames[-1][self.dest] = str(values)
        namespace.frames = frames


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS if suppress else None
    parser.add_argument("--api-url", default=default, help="management API base URL ($OME_API_URL)")
    parser.add_argument("--token", default=default, help=TOKEN_HELP)
    parser.add_argument("--token-file", default=default, metavar="PATH",
                        help="read the access token from this file ($OME_ACCESS_TOKEN_FILE; keep it chmod 600)")
    parser.add_argument("--profile", default=default, help="server profile from the config file")
    parser.add_argument("--publisher-url", default=default,
                        help="LL-HLS/HLS base URL ($OME_PUBLISHER_URL; default: the API's host, port 3333)")
    parser.add_argument("--insecure", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="do not verify the server's TLS certificate")
    parser.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="send nothing: cue-out, cue-in, id3 and send-events are refused "
                             f"(exit {exit_codes.READ_ONLY})")


def _node_path(text: str) -> str:
    """--select is checked while parsing, so a typo is a usage error before any screen opens."""
    try:
        NodePath.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _fleet_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--fleet", metavar="NAME", default=argparse.SUPPRESS if suppress else None, help=FLEET_HELP)


def _select_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--select", type=_node_path, default=argparse.SUPPRESS if suppress else None,
                        metavar="VHOST[/APP[/STREAM]]", help="the node to open the console on")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, suppress=True)
    formatter = argparse.RawDescriptionHelpFormatter
    # No abbreviations: the top level sees every option of every subcommand, and `history --to` would be taken
    # for an abbreviated `--token` / `--token-file`.
    parser = argparse.ArgumentParser(prog="omeconsole", epilog=exit_codes.EPILOG, formatter_class=formatter,
                                     description="Console and command line for OvenMediaEngine-style servers.",
                                     allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"omeconsole {__version__}")
    _global_options(parser, suppress=False)
    _fleet_option(parser, suppress=False)
    _select_option(parser, suppress=False)
    parser.add_argument("--replay", action="store_true",
                        help="open the console on recorded data (the history store), asking no server")
    parser.add_argument("--since", dest="replay_since", type=history_cmd.duration_argument, metavar="DURATION",
                        help="with --replay: how far back the replay reaches (default 1h): 30m, 2h, 1d")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    made: dict[str, argparse.ArgumentParser] = {}

    def add(name: str, text: str) -> argparse.ArgumentParser:
        made[name] = sub.add_parser(name, parents=[common], help=text, description=text, epilog=exit_codes.EPILOG,
                                    formatter_class=formatter)
        return made[name]

    ui = add("ui", "the terminal console (the default)")
    _select_option(ui, suppress=True)
    demo = add("demo", "the console against a built-in simulated server")
    _select_option(demo, suppress=True)
    demo.add_argument("--scenario", default="demo", help="a built-in scenario (demo, scale, empty) or a TOML file")
    demo.add_argument("--seed", type=int, default=0, help="random seed of the simulated traffic")
    demo.add_argument("--fleet", dest="demo_fleet", action="store_true",
                      help="an origin and two edges pulling its streams over OVT, in one simulator; the console "
                           "shows all three (the fleet screen)")
    ls = add("ls", "list virtual hosts, the apps of a vhost, or the streams of vhost/app")
    ls.add_argument("path", nargs="?", help="vhost or vhost/app")
    ls.add_argument("--json", action="store_true")
    stats = add("stats", "statistics of a vhost, app or stream (rates in b/s with SI prefixes, totals in IEC bytes)")
    stats.add_argument("path", help="vhost[/app[/stream]]")
    stats.add_argument("--format", choices=("text", "line", "json"), default="text",
                       help="text: a block per reading; line: one line per reading; json: JSON (lines)")
    stats.add_argument("--json", action="store_true", help="the same as --format json")
    stats.add_argument("--watch", action="store_true", help="repeat, with rates computed from byte totals")
    stats.add_argument("--interval", type=float, default=1.0, help="seconds between readings (--watch)")
    stats.add_argument("--count", type=int, default=None, help="stop after this many readings (--watch)")
    info = add("info", "what a stream is made of: source, tracks, codecs")
    info.add_argument("path", help="vhost/app/stream")
    info.add_argument("--json", action="store_true")
    cue_out = add("cue-out", "start an ad break")
    cue_out.add_argument("path", help="vhost/app/stream")
    cue_out.add_argument("--duration", type=float, required=True, help="break length in seconds")
    sends.add_options(cue_out, confirmable=True)
    cue_in = add("cue-in", "end the ad break now (the playlist is read first: is a break on air?)")
    cue_in.add_argument("path", help="vhost/app/stream")
    sends.add_options(cue_in, confirmable=True)
    id3 = add("id3", "send ID3 timed metadata")
    id3.add_argument("path", help="vhost/app/stream")
    id3.add_argument("--frame", action=_FrameAction, help="frame id (TXXX, TIT2, PRIV, ...); repeatable")
    id3.add_argument("--info", action=_FrameAction, help="TXXX description or PRIV owner, for the last --frame")
    id3.add_argument("--data", action=_FrameAction, help="the value, for the last --frame")
    id3.add_argument("--event-type", choices=("event", "video", "audio"), default="event")
    sends.add_options(id3, confirmable=True)
    send = add("send-events", "send event sets from a JSON file (- for stdin), exactly as written")
    send.add_argument("path", help="vhost/app/stream")
    send.add_argument("--file", required=True, help="a JSON event set or array of them")
    sends.add_options(send, confirmable=False)
    exporter_cmd.add_parser(add)
    alerts_cmd.add_parser(add)
    config = add("config", "configuration file")
    config.add_argument("action", choices=("path", "init"),
                        help="path: print where the config file is looked for; init: write a commented one "
                             "(0600, in a 0700 directory) unless it exists")
    history_cmd.add_parser(add)
    record_cmd.add_parser(add)
    for name in several.FLEET_COMMANDS:
        _fleet_option(made[name], suppress=True)
    for name in sends.SENDS:  # accepted only to be refused with the reason (there is no fleet-wide send)
        made[name].add_argument("--fleet", metavar="NAME", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    flags = several.flags(args)
    named = several.named_profile(args)
    if named is not None:  # `stats PROFILE:vhost/app/stream`: that profile's server
        if (args.profile not in (None, named)) or args.api_url:
            raise ConfigError(f"{named}: names a profile; --profile or --api-url cannot name another server")
        flags["profile"] = named
    return load_settings(flags)


def _run_ui(module_name: str, function: str, settings: Settings, **options: Any) -> int:
    """Start the console (or its demo), imported only now: a dynamic import keeps the commands light."""
    if importlib.util.find_spec(module_name) is None:
        complain(f"the terminal console is not available in this build ({module_name} is missing); "
                 "the command-line subcommands work: see omeconsole --help")
        return exit_codes.REFUSED
    try:
        entry = getattr(importlib.import_module(module_name), function)
    except ModuleNotFoundError as error:  # the demo's simulator is not part of this build
        complain(f"{module_name} cannot start: {error}")
        return exit_codes.REFUSED
    result = entry(settings, **options)
    return result if isinstance(result, int) else exit_codes.OK


def _config(action: str) -> int:
    path = config_path()
    if action == "path":
        say(str(path))
        return exit_codes.OK
    try:
        written = write_config_template(path)
    except OSError as error:
        complain(f"cannot write {path}: {error.strerror or error}")
        return exit_codes.USAGE
    if not written:
        complain(f"{path} exists; nothing written")
        return exit_codes.USAGE
    say(str(path))
    return exit_codes.OK


async def _dispatch(session: Session, args: argparse.Namespace) -> int:
    path = several.named_path(args)
    if args.command == "ls":
        return await cmd_ls(session.client, args, path=path)
    if args.command == "stats":
        return await cmd_stats(session.client, args, session.clock, path=path, server=several.named_profile(args))
    if args.command == "info":
        return await cmd_info(session.client, args, path=path)
    return await sends.cmd_send(session, args)


async def _run(settings: Settings, args: argparse.Namespace) -> int:
    """The command on one session; SIGINT, SIGTERM and SIGHUP stop it cleanly (a send's outcome is logged)."""
    try:
        session = connector(SystemClock())(settings)
    except ValueError as error:  # an API URL the client cannot use
        raise UsageError(str(error)) from None
    try:
        return await interruptible(lambda: _dispatch(session, args), sending=args.command in sends.SENDS)
    finally:
        await session.aclose()


def _command(args: argparse.Namespace) -> int:
    command = args.command or "ui"
    if command == "config":
        return _config(args.action)
    if args.replay and args.fleet is not None and command != "ui":
        complain(f"--replay opens the console; it does not go with {command}")
        return exit_codes.USAGE
    if args.fleet is not None or getattr(args, "servers", None):
        return several.run(args, command)
    try:
        settings = _settings(args)
    except (ConfigError, UsageError) as error:
        complain(str(error))
        return exit_codes.USAGE
    select = getattr(args, "select", None)
    if command == "demo":
        fleet = {"fleet": True} if args.demo_fleet else {}
        return _run_ui("omeconsole.ui.demo", "run_demo", settings, scenario=args.scenario, seed=args.seed,
                       select=select, **fleet)
    if args.replay_since is not None and not args.replay:
        complain("--since before the command is for --replay (history takes its own: history NODE --since 2h)")
        return exit_codes.USAGE
    if args.replay:
        if command != "ui":
            complain(f"--replay opens the console; it does not go with {command}")
            return exit_codes.USAGE
        return _run_ui("omeconsole.ui.replay.app", "run_replay", settings, since=args.replay_since,
                       named=bool(args.api_url or args.profile), select=select)
    if command == "ui":
        # No token is fine: the server answers 401 and the console asks for one.
        return console_start.run_console(settings, select)
    if command == "alerts":
        return asyncio.run(alerts_cmd.run(args))
    if select is not None:
        complain(f"--select is for the console (ui, demo), not for {command}")
        return exit_codes.USAGE
    if command == "history":
        return history_cmd.run(args, settings)
    if settings.token_value() is None:
        complain(several.no_token())
        return exit_codes.USAGE
    if command == "exporter":
        return exporter_cmd.run(settings, args)
    if command == "record":
        return record_cmd.run(args, settings)
    if settings.insecure:
        complain("warning: TLS certificate verification is off (--insecure)")
    return reported(lambda: asyncio.run(_run(settings, args)))


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # Names the terminal's encoding cannot show come out as escapes, never as a crash.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        return _command(build_parser().parse_args(argv))
    except BrokenPipeError:
        # The reader left (`| head -1`): say nothing more, and keep the interpreter's final flush quiet.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exit_codes.BROKEN_PIPE
    except KeyboardInterrupt:
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())

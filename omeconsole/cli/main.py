"""`omeconsole`: the terminal console (no subcommand), its demo, and scriptable commands.

Global options work before or after the subcommand. Settings come from flags > environment >
the config file's profile (see `omeconsole config path`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from typing import Any

from omeconsole import __version__
from omeconsole.api.client import OmeClient
from omeconsole.api.errors import OmeError
from omeconsole.cli import history_cmd, record_cmd, wait_confirm
from omeconsole.cli.commands import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, UsageError, exit_code_for, run_with_client
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import ConfigError, Settings, config_path, load_settings
from omeconsole.model.paths import NodePath

EPILOG = """exit status: 0 success, 1 the server refused or failed, 2 bad usage or configuration,
3 server unreachable or no answer, 4 a send whose outcome is unknown (check before sending again)"""


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
    parser.add_argument("--token", default=default, help="access token ($OME_ACCESS_TOKEN; prefer the config file)")
    parser.add_argument("--profile", default=default, help="server profile from the config file")
    parser.add_argument("--publisher-url", default=default, help="LL-HLS/HLS base URL ($OME_PUBLISHER_URL)")
    parser.add_argument("--insecure", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="do not verify the server's TLS certificate")
    parser.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="send nothing: cue-out, cue-in, id3 and send-events are refused")


def _node_path(text: str) -> str:
    """--select is checked while parsing, so a typo is a usage error before any screen opens."""
    try:
        NodePath.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _select_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--select", type=_node_path, default=argparse.SUPPRESS if suppress else None,
                        metavar="VHOST[/APP[/STREAM]]", help="the node to open the console on")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, suppress=True)
    parser = argparse.ArgumentParser(prog="omeconsole", epilog=EPILOG,
                                     description="Console and command line for OvenMediaEngine-style servers.")
    parser.add_argument("--version", action="version", version=f"omeconsole {__version__}")
    _global_options(parser, suppress=False)
    _select_option(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=text, description=text, epilog=EPILOG)

    ui = add("ui", "the terminal console (the default)")
    _select_option(ui, suppress=True)
    demo = add("demo", "the console against a built-in simulated server")
    _select_option(demo, suppress=True)
    demo.add_argument("--scenario", default="demo", help="a built-in scenario (demo, scale, empty) or a TOML file")
    demo.add_argument("--seed", type=int, default=0, help="random seed of the simulated traffic")
    ls = add("ls", "list virtual hosts, the apps of a vhost, or the streams of vhost/app")
    ls.add_argument("path", nargs="?", help="vhost or vhost/app")
    ls.add_argument("--json", action="store_true")
    stats = add("stats", "statistics of a vhost, app or stream")
    stats.add_argument("path", help="vhost[/app[/stream]]")
    stats.add_argument("--json", action="store_true", help="machine-readable output (JSON lines with --watch)")
    stats.add_argument("--watch", action="store_true", help="repeat, with rates computed from byte totals")
    stats.add_argument("--interval", type=float, default=1.0, help="seconds between readings (--watch)")
    stats.add_argument("--count", type=int, default=None, help="stop after this many readings (--watch)")
    info = add("info", "what a stream is made of: source, tracks, codecs")
    info.add_argument("path", help="vhost/app/stream")
    info.add_argument("--json", action="store_true")
    cue_out = add("cue-out", "start an ad break")
    cue_out.add_argument("path", help="vhost/app/stream")
    cue_out.add_argument("--duration", type=float, required=True, help="break length in seconds")
    cue_out.add_argument("--json", action="store_true")
    wait_confirm.add_options(cue_out)
    cue_in = add("cue-in", "end the ad break now")
    cue_in.add_argument("path", help="vhost/app/stream")
    cue_in.add_argument("--json", action="store_true")
    wait_confirm.add_options(cue_in)
    id3 = add("id3", "send ID3 timed metadata")
    id3.add_argument("path", help="vhost/app/stream")
    id3.add_argument("--frame", action=_FrameAction, help="frame id (TXXX, TIT2, PRIV, ...); repeatable")
    id3.add_argument("--info", action=_FrameAction, help="TXXX description or PRIV owner, for the last --frame")
    id3.add_argument("--data", action=_FrameAction, help="the value, for the last --frame")
    id3.add_argument("--event-type", choices=("event", "video", "audio"), default="event")
    id3.add_argument("--json", action="store_true")
    wait_confirm.add_options(id3)
    send = add("send-events", "send event sets from a JSON file (- for stdin), exactly as written")
    send.add_argument("path", help="vhost/app/stream")
    send.add_argument("--file", required=True, help="a JSON event set or array of them")
    send.add_argument("--json", action="store_true")
    config = add("config", "configuration file")
    config.add_argument("action", choices=("path",), help="path: print where the config file is looked for")
    history_cmd.add_parser(add)
    record_cmd.add_parser(add)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    flags = {"api_url": args.api_url, "token": args.token, "publisher_url": args.publisher_url,
             "profile": args.profile, "insecure": True if args.insecure else None,
             "read_only": True if args.read_only else None}
    return load_settings(flags)


def _run_ui(module_name: str, function: str, settings: Settings, **options: Any) -> int:
    if importlib.util.find_spec(module_name) is None:
        print(f"omeconsole: the terminal console is not available in this build ({module_name} is missing); "
              "the command-line subcommands work: see omeconsole --help", file=sys.stderr)
        return EXIT_REFUSED
    entry = getattr(importlib.import_module(module_name), function)
    result = entry(settings, **options)
    return result if isinstance(result, int) else EXIT_OK


def _scenario_problem(name_or_path: str) -> str | None:
    """The demo's scenario problem, if any, said before the screen takes over the terminal."""
    if importlib.util.find_spec("simulator") is None:
        return None  # no simulator in this build: _run_ui says so
    from omeconsole.ui.demo import scenario_problem

    return scenario_problem(name_or_path)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = args.command or "ui"
    if command == "config":
        print(config_path())
        return EXIT_OK
    try:
        settings = _settings(args)
    except ConfigError as error:
        print(f"omeconsole: {error}", file=sys.stderr)
        return EXIT_USAGE
    select = getattr(args, "select", None)
    if command == "demo":
        problem = _scenario_problem(args.scenario)
        if problem is not None:
            print(f"omeconsole: {problem}", file=sys.stderr)
            return EXIT_USAGE
        return _run_ui("omeconsole.ui.demo", "run_demo", settings, scenario=args.scenario, seed=args.seed,
                       select=select)
    if command == "ui":
        # No token is fine: the server answers 401 and the console asks for one.
        return _run_ui("omeconsole.ui.app", "run_app", settings, select=select)
    if select is not None:
        print(f"omeconsole: --select is for the console (ui, demo), not for {command}", file=sys.stderr)
        return EXIT_USAGE
    if command == "history":
        return history_cmd.run(args, settings)
    token = settings.token_value()
    if token is None:
        print(_no_token(), file=sys.stderr)
        return EXIT_USAGE
    if command == "record":
        return record_cmd.run(args, settings, token)
    if settings.read_only and command in ("cue-out", "cue-in", "id3", "send-events"):
        print("omeconsole: read-only mode (--read-only or read_only in the config): nothing is sent", file=sys.stderr)
        return EXIT_REFUSED
    if settings.insecure:
        print("omeconsole: warning: TLS certificate verification is off (--insecure)", file=sys.stderr)
    try:
        client = OmeClient(settings.api_url, token, timeout=settings.timeout, verify=not settings.insecure)
    except ValueError as error:
        print(f"omeconsole: {error}", file=sys.stderr)
        return EXIT_USAGE
    audit = AuditLog(secrets=[token])
    args.publisher_base = settings.publisher_base()
    try:
        return asyncio.run(run_with_client(client, args, audit, SystemClock()))
    except UsageError as error:
        print(f"omeconsole: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OmeError as error:
        print(f"omeconsole: {error}", file=sys.stderr)
        return exit_code_for(error)
    except KeyboardInterrupt:
        return EXIT_OK


def _no_token() -> str:
    return ("omeconsole: no access token: pass --token, set OME_ACCESS_TOKEN, or put token, token_file or "
            f"token_command in {config_path()}")


if __name__ == "__main__":
    sys.exit(main())

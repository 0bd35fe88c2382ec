"""The command line's grammar: every subcommand, its options and how their values are checked.

Kept apart from the commands' implementations, and light (argparse and the model's paths): parsing
the command line imports no subcommand (no pydantic, no HTTP client, no ad operations), so the
console's first requests and `--help` do not wait for machinery they do not run. A command's module
is imported by `main.py` when that command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime
from typing import Any

from omeconsole import __version__
from omeconsole.cli import exit_codes
from omeconsole.core.history.target import Target
from omeconsole.model.paths import NodePath

TOKEN_HELP = ("access token ($OME_ACCESS_TOKEN). Unsafe on a shared machine: every user can read a command "
              "line (ps, /proc); prefer --token-file, $OME_ACCESS_TOKEN_FILE or the config file")
FLEET_HELP = ("every server of the config's [fleets.NAME] table (each its profile's URL and token); "
              "PROFILE:vhost/app/stream names one of them")
SENDS = ("cue-out", "cue-in", "id3", "send-events")
FLEET_COMMANDS = ("ls", "stats", "info", "history", "record", "exporter")
NAMED_COMMANDS = ("ls", "stats", "info")
"""Read commands whose node may be written PROFILE:vhost/app/stream."""
BASELINE_TIMEOUT_S = 2.0
"""The longest a send waits for a first playlist read before it goes."""
DEFAULT_EXPORTER = "http://127.0.0.1:9464"
DEFAULT_LISTEN = "127.0.0.1:9464"
DEFAULT_SERVE_LISTEN = "127.0.0.1:8465"
LISTING_INTERVAL_S = 60.0
"""`record`: a full listing of 10,000 streams is ~105 requests: every 10 s (the console's default, for a
screen) it would take half of a 20 requests/s budget; a recorder gives that to samples (BENCHMARKS.md)."""

Add = Callable[[str, str], argparse.ArgumentParser]
"""Adds a subcommand: (name, one-line help) -> its parser."""



DEMO_TOKEN = "ome-access-token"
"""The simulator's access token (the command line does not import the simulator; a test holds the two equal)."""
DEMO_DESCRIPTION = (
    "the console against a built-in simulated server. The simulator listens on 127.0.0.1 on free ports "
    "(new ones each run); the console shows its API URL, publisher URL and access token on a line above the "
    "tree, and prints them when it starts and ends, so curl and a second terminal can use the same server. "
    f"The token is the simulator's own, {DEMO_TOKEN!r}: for example curl -H \"Authorization: Basic $(printf "
    f"%s {DEMO_TOKEN} | base64)\" API/v1/vhosts, or omeconsole ls --api-url API --token {DEMO_TOKEN}. "
    "Its server is its own: --api-url, --publisher-url, --token and --token-file are refused (exit 2), and the "
    "server settings of the environment (OME_API_URL, OME_ACCESS_TOKEN...) and of the config's profile are not "
    "used (no token_command is run); the other settings (theme, keymap, interval, read-only...) apply as to any "
    "server.")

def flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (None: not given)."""
    return {"api_url": args.api_url, "token": args.token, "token_file": args.token_file,
            "publisher_url": args.publisher_url, "profile": args.profile,
            "insecure": True if args.insecure else None, "read_only": True if args.read_only else None,
            "confirm_timeout": getattr(args, "confirm_timeout", None),
            "thumbnails": False if getattr(args, "no_thumbnails", False) else None}


# Value checks: a bad value is a usage error before anything runs -----------------------------------------

def duration_argument(text: str) -> float:
    """90s, 30m, 2h, 7d (or plain seconds) as seconds."""
    # The history settings' rule, imported when a duration is given (it brings pydantic).
    from omeconsole.core.history.settings import parse_duration

    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _moment(text: str) -> float:
    """ISO 8601 (local time unless it has an offset or Z) or epoch seconds, as epoch seconds."""
    stripped = text.strip()
    try:
        return float(stripped)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(stripped)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (use 2026-01-31T14:00, with an offset or Z "
                                         "for another zone than the local one, or epoch seconds)") from None
    return (moment if moment.tzinfo else moment.astimezone()).timestamp()


def _target(text: str) -> Target:
    try:
        return Target.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _node_path(text: str) -> str:
    """--select is checked while parsing, so a typo is a usage error before any screen opens."""
    try:
        NodePath.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def listen_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `[IPv6]:PORT`; argparse reports anything else as a usage error."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT (for example {DEFAULT_LISTEN}), got {text!r}")
    return host, int(port)


def _not_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def server_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected profile names separated by commas, got {text!r}")
    return names


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds")
    return value


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


# Options shared by several subcommands ---------------------------------------------------------------------

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


def _fleet_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--fleet", metavar="NAME", default=argparse.SUPPRESS if suppress else None, help=FLEET_HELP)


def _select_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--select", type=_node_path, default=argparse.SUPPRESS if suppress else None,
                        metavar="VHOST[/APP[/STREAM]]", help="the node to open the console on")
    parser.add_argument("--no-thumbnails", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="no picture in the stream view (thumbnails = false in the config)")


def _send_options(parser: argparse.ArgumentParser, *, confirmable: bool) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--servers", type=server_list, metavar="PROFILE,PROFILE",
                        help="send to each of these profiles' servers, each sent and audited on its own "
                             "(instead of --profile / --api-url); there is no fleet-wide send")
    parser.add_argument("--force", action="store_true",
                        help="send even when the server would drop it (a cue-out inside a break or not longer "
                             "than 1.5 segments, a cue-in with no break on air or too soon after the splice), when "
                             "that could not be checked (the playlist could not be read), or with an empty ID3 "
                             f"frame; without it such a send exits {exit_codes.NEEDS_FORCE} and sends nothing")
    if confirmable:
        parser.add_argument("--wait-confirm", action="store_true",
                            help="wait until the stream's LL-HLS playlist (or media, for id3) shows the send; "
                                 f"exit {exit_codes.NOT_CONFIRMED} if it does not within --confirm-timeout, "
                                 f"{exit_codes.SPLICE_NO_MARKER} when a server that writes no marker shows the "
                                 "splice as a segment cut "
                                 "(the request is never held back more than "
                                 f"{BASELINE_TIMEOUT_S:g} s for a first playlist read)")
        parser.add_argument("--confirm-timeout", type=positive_seconds, default=None, metavar="SECONDS",
                            help="seconds to wait with --wait-confirm (default: confirm_timeout in the config, 15)")


# The subcommands ---------------------------------------------------------------------------------------------

def _reads(add: Add) -> None:
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


def _sends(add: Add) -> None:
    cue_out = add("cue-out", "start an ad break (the playlist is read first: would the server drop it?)")
    cue_out.add_argument("path", help="vhost/app/stream")
    cue_out.add_argument("--duration", type=float, help="break length in seconds")
    cue_out.add_argument("--template", metavar="NAME",
                         help="a [templates.NAME] of the config: its duration, and its ID3 frames sent with the out "
                              "in one :sendEvents array (instead of --duration)")
    _send_options(cue_out, confirmable=True)
    cue_in = add("cue-in", "end the ad break now (the playlist is read first: is a break on air?)")
    cue_in.add_argument("path", help="vhost/app/stream")
    _send_options(cue_in, confirmable=True)
    id3 = add("id3", "send ID3 timed metadata")
    id3.add_argument("path", help="vhost/app/stream")
    id3.add_argument("--frame", action=_FrameAction, help="frame id (TXXX, TIT2, PRIV, ...); repeatable")
    id3.add_argument("--info", action=_FrameAction, help="TXXX description or PRIV owner, for the last --frame")
    id3.add_argument("--data", action=_FrameAction, help="the value, for the last --frame")
    id3.add_argument("--event-type", choices=("event", "video", "audio"), default="event")
    _send_options(id3, confirmable=True)
    send = add("send-events", "send event sets from a JSON file (- for stdin), exactly as written")
    send.add_argument("path", help="vhost/app/stream")
    send.add_argument("--file", required=True, help="a JSON event set or array of them")
    _send_options(send, confirmable=False)


def _exporter(add: Add) -> None:
    parser = add("exporter", "serve Prometheus metrics (/metrics) and current alerts (/alerts) for a server "
                 "(or with --fleet, every server of a fleet)")
    parser.add_argument("--listen", type=listen_address, default=listen_address(DEFAULT_LISTEN),
                        metavar="HOST:PORT", help=f"where to serve (default {DEFAULT_LISTEN}: this machine only)")
    parser.add_argument("--max-streams", type=_not_negative, default=1000, metavar="N",
                        help="streams with series of their own, busiest and newest first (default 1000); "
                             "the rest are counted in their application's series")


def _serve(add: Add) -> None:
    parser = add("serve", "the console in a browser: one console process per browser session (textual-serve)")
    parser.add_argument("--listen", type=listen_address, default=listen_address(DEFAULT_SERVE_LISTEN),
                        metavar="HOST:PORT", help=f"where to serve (default {DEFAULT_SERVE_LISTEN}: this machine "
                        "only; another address needs --auth-file)")
    parser.add_argument("--auth-file", metavar="PATH", help="a file (chmod 600) holding the password or token a "
                        "visitor must give (at least 8 characters)")
    parser.add_argument("--allow-sends", action="store_true",
                        help="let the sessions send cue-out, cue-in and ID3 (default: every session is read-only)")
    parser.add_argument("--max-sessions", type=_positive, default=4, metavar="N",
                        help="consoles open at once (default 4); a visitor over the cap is told so")
    parser.add_argument("--idle-timeout", type=positive_seconds, default=600.0, metavar="SECONDS",
                        help="a session without a key press for this long ends (default 600, at most 3600)")
    parser.add_argument("--demo", action="store_true",
                        help="each session runs the demo (its own simulated server) instead of the console")
    parser.add_argument("--scenario", default="demo", help="with --demo: a built-in scenario or a TOML file")
    parser.add_argument("--seed", type=int, default=0, help="with --demo: random seed of the simulated traffic")


def _alerts(add: Add) -> None:
    parser = add("alerts", "current alerts (firing, pending, recently resolved) from a running exporter")
    parser.add_argument("--exporter", default=DEFAULT_EXPORTER, metavar="URL",
                        help=f"the exporter to ask (default {DEFAULT_EXPORTER})")
    parser.add_argument("--json", action="store_true", help="the exporter's JSON (JSON lines with --watch)")
    parser.add_argument("--watch", action="store_true", help="keep reading; print each change as it happens")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between readings (--watch)")
    parser.add_argument("--count", type=int, default=None, help="stop after this many readings (--watch)")


def _history(add: Add) -> None:
    history = add("history", "recorded samples of a node, live or ended (from the history store; no server is asked)")
    history.add_argument("target", nargs="?", type=_target, metavar="[PROFILE:]VHOST[/APP[/STREAM]]",
                         help="the node; without it, the recorded streams and their summaries")
    since = history.add_mutually_exclusive_group()
    since.add_argument("--since", type=duration_argument, help="how far back from --to (default 1h): 90s, 30m, 2h, 7d")
    since.add_argument("--from", dest="start", type=_moment, metavar="T",
                       help="start: ISO 8601 (local time unless it says otherwise) or epoch seconds")
    history.add_argument("--to", dest="end", type=_moment, metavar="T", help="end (default now)")
    history.add_argument("--step", type=duration_argument,
                         help="one point per STEP (10s, 1m, 1h); default: every sample "
                         "as taken while kept at full resolution, else the stored tier's buckets")
    output = history.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON document")
    output.add_argument("--csv", action="store_true", help="CSV with a header row (gaps are rows of empty cells)")
    history.add_argument("--events", action="store_true",
                         help="with TARGET: only its ad breaks and alerts (also listed after its readings without it)")
    history.add_argument("--ended", action="store_true", help="without TARGET: only the streams that ended")
    history.add_argument("--db", help="the history database (default: $OMECONSOLE_HISTORY_DB, [history] path, "
                         "or history.sqlite3 in the user data directory)")


def _record(add: Add) -> None:
    record = add("record", "poll every listed node without a screen and record each sample into the history "
                 "store (for systemd; stops cleanly on SIGTERM and SIGINT)")
    record.add_argument("--db", help="the history database (default: $OMECONSOLE_HISTORY_DB, [history] path, "
                        "or history.sqlite3 in the user data directory)")
    record.add_argument("--status-every", type=duration_argument, default=60.0, metavar="SECONDS",
                        help="seconds between status lines (default 60)")
    record.add_argument("--json", action="store_true", help="status lines as JSON objects, one per line")
    record.add_argument("--listing-interval", type=duration_argument, default=LISTING_INTERVAL_S, metavar="SECONDS",
                        help=f"seconds between listings of the server (default {LISTING_INTERVAL_S:g}: new and "
                        "ended streams are seen within that, and the rest of the budget goes to samples)")


def _schedules(add: Add) -> None:
    schedule = add("schedule", "the break schedules: list their next runs, add or remove one, skip its next run, "
                   "pause or resume it (in the schedule file the scheduler watches; the config is never changed), "
                   "or check a file")
    schedule.add_argument("action", choices=("list", "add", "remove", "skip-next", "pause", "resume", "check"))
    schedule.add_argument("name", nargs="?", help="the schedule (add, remove, skip-next, pause, resume); "
                          "check: the file to check (default: the config and the schedule file)")
    schedule.add_argument("--stream", help="add: vhost/app/stream, or a pattern (default/app/*) matched at each run")
    schedule.add_argument("--template", help="add: a [templates.NAME]")
    when = schedule.add_mutually_exclusive_group()
    when.add_argument("--every", help="add: an interval (12m, 1h), counted from each local midnight")
    when.add_argument("--at", type=lambda text: [t.strip() for t in text.split(",")], metavar="HH:MM[,HH:MM]",
                      help="add: times of day")
    when.add_argument("--cron", metavar="'M H DOM MON DOW'", help="add: a five-field cron expression")
    schedule.add_argument("--offset", help="add: with --every, where in the interval (3m)")
    schedule.add_argument("--timezone", help="add: an IANA time zone (default UTC)")
    schedule.add_argument("--between", metavar="HH:MM-HH:MM", help="add: only runs within this window")
    schedule.add_argument("--count", type=int, default=3, help="list: the next runs shown per schedule (default 3)")
    schedule.add_argument("--json", action="store_true", help="list: JSON")
    _schedule_file_option(schedule)
    scheduler = add("scheduler", "run the break schedules without a screen, each planned break sent at most once "
                    "(one runner per audit log; for systemd: SIGTERM and SIGINT stop it cleanly); logs to stderr")
    scheduler.add_argument("--json", action="store_true", help="one JSON object per event on stdout")
    _schedule_file_option(scheduler)


def _schedule_file_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--schedule-file", metavar="PATH",
                        help="the schedule file ($OMECONSOLE_SCHEDULES, else schedules.toml beside the config)")


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
    parser.add_argument("--debug", action="store_true",
                        help="the console says on stderr how this process is tuned (garbage collection, "
                             "Textual compatibility) before it takes the terminal")
    parser.add_argument("--since", dest="replay_since", type=duration_argument, metavar="DURATION",
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
    demo.description = DEMO_DESCRIPTION
    _select_option(demo, suppress=True)
    demo.add_argument("--scenario", default="demo", help="a built-in scenario (demo, scale, empty) or a TOML file")
    demo.add_argument("--seed", type=int, default=0, help="random seed of the simulated traffic")
    demo.add_argument("--fleet", dest="demo_fleet", action="store_true",
                      help="an origin and two edges pulling its streams over OVT, in one simulator; the console "
                           "shows all three (the fleet screen)")
    _reads(add)
    _sends(add)
    _exporter(add)
    _serve(add)
    _alerts(add)
    config = add("config", "configuration file")
    config.add_argument("action", choices=("path", "init", "show", "validate"),
                        help="path: print where the config file is looked for; init: write one with every "
                             "setting, its default and a comment (0600, in a 0700 directory) unless it exists; "
                             "show: print the settings in effect and where each came from (flag, environment, "
                             "file and table, default; the token never shown), with the flags and --profile given; "
                             "validate: check a file (every table and key; exit 2 naming the file, table and key "
                             "of each problem)")
    config.add_argument("file", nargs="?", help="validate: the file to check (default: the config file)")
    _history(add)
    _record(add)
    _schedules(add)
    for name in FLEET_COMMANDS:
        _fleet_option(made[name], suppress=True)
    for name in SENDS:  # accepted only to be refused with the reason (there is no fleet-wide send)
        made[name].add_argument("--fleet", metavar="NAME", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser

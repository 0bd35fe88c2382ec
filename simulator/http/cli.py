"""`ome-simulator` (and `python -m simulator`): run the simulated server until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable

from simulator.http.auth import basic_header
from simulator.http.fleet import RunningFleet, start_fleet
from simulator.http.limits import HttpLimits
from simulator.http.server import (
    DEFAULT_ACCESS_TOKEN,
    DEFAULT_API_PORT,
    DEFAULT_HOST,
    DEFAULT_PUBLISHER_PORT,
    RunningSimulator,
    start_simulator,
)
from simulator.world.edition import EDITIONS, NEWEST_OSS_VERSION, OSS_FAMILIES, UnknownVersion, server_profile
from simulator.world.fault_spec import FaultSpecError, fault_spec_from_table
from simulator.world.scenario import ScenarioError, load_scenario

MAX_EDGES = 32


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ome-simulator",
        description="A simulated OvenMediaEngine-style server: management API, live traffic, LL-HLS and HLS.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default %(default)s, loopback)")
    parser.add_argument("--api-port", type=int, default=DEFAULT_API_PORT,
                        help="management API port; 0 picks a free one (default %(default)s)")
    parser.add_argument("--publisher-port", type=int, default=DEFAULT_PUBLISHER_PORT,
                        help="LL-HLS / HLS port; 0 picks a free one (default %(default)s)")
    parser.add_argument("--access-token", default=None,
                        help="API access token (default: $OME_ACCESS_TOKEN, else the sample token)")
    parser.add_argument("--scenario", default="demo",
                        help="demo (default), scale, empty, or the path of a TOML scenario file")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the traffic model (default 0)")
    parser.add_argument("--edition", choices=EDITIONS, default="enterprise",
                        help="enterprise (v2 stats, ad markers; the default) or oss (open source, v1 only)")
    parser.add_argument("--version", default=None, metavar="VERSION",
                        help=f"the open source version played: {', '.join(f + '.N' for f in OSS_FAMILIES)} "
                             f"(default the newest, {NEWEST_OSS_VERSION}); 0.19 and 0.20 accept cue events and cut "
                             "a segment, 0.21 refuses them")
    parser.add_argument("--faults", metavar="SPEC", default=None,
                        help="inject faults, e.g. latency=200ms,5xx=0.1,reset=0.05,restart=every:120s "
                             "(over the scenario's [faults] table; see the README)")
    limits = parser.add_argument_group("limits of both ports (what a client may send; see the README)")
    defaults = HttpLimits()
    limits.add_argument("--max-request-line", type=_positive_int, default=defaults.max_request_line, metavar="BYTES",
                        help="longest request target; past it 414 (default %(default)s)")
    limits.add_argument("--max-header-size", type=_positive_int, default=defaults.max_head_bytes, metavar="BYTES",
                        help="request line and headers together; past it 431 (default %(default)s)")
    limits.add_argument("--request-timeout", type=_positive_float, default=defaults.request_timeout,
                        metavar="SECONDS", help="a request must arrive whole within this; else 408 "
                                                "(default %(default)s)")
    limits.add_argument("--keep-alive-timeout", type=_positive_float, default=defaults.keep_alive_timeout,
                        metavar="SECONDS", help="an idle connection is closed after this (default %(default)s)")
    limits.add_argument("--max-connections", type=_positive_int, default=defaults.max_connections, metavar="N",
                        help="connections at once per port; past it the longest-waiting one makes room, "
                             "or 503 when all are busy (default %(default)s)")
    parser.add_argument("--fleet", type=_edge_count, default=0, metavar="EDGES",
                        help="run an origin and EDGES edges that pull its streams over OVT and serve the viewers, "
                             "edge N on the API and publisher ports + N (default 0: one server)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log accepted events and requests")
    return parser


def _edge_count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) > MAX_EDGES:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of edges from 0 to {MAX_EDGES}")
    return int(text)


def _positive_int(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return int(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text) if text.isascii() else -1.0
    except ValueError:
        value = -1.0
    if not 0 < value < 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def http_limits_from_args(args: argparse.Namespace) -> HttpLimits:
    return HttpLimits(max_request_line=args.max_request_line, max_head_bytes=args.max_header_size,
                      request_timeout=args.request_timeout, keep_alive_timeout=args.keep_alive_timeout,
                      max_connections=args.max_connections)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.access_token == "":
        print("ome-simulator: the access token must not be empty", file=sys.stderr)
        return 2
    token = args.access_token or os.environ.get("OME_ACCESS_TOKEN") or DEFAULT_ACCESS_TOKEN
    try:
        server_profile(args.edition, args.version)
        fault_spec_from_table(load_scenario(args.scenario).faults, args.faults or "")
    except (UnknownVersion, ScenarioError, FaultSpecError) as error:
        print(f"ome-simulator: {error}", file=sys.stderr)
        return 2
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(_run(args, token))
    except OSError as error:
        print(f"ome-simulator: cannot listen: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


async def _run(args: argparse.Namespace, token: str) -> None:
    running: RunningSimulator | RunningFleet
    if args.fleet:
        running = await start_fleet(
            args.scenario, edges=args.fleet, host=args.host, api_ports=_fleet_ports(args.api_port, args.fleet),
            publisher_ports=_fleet_ports(args.publisher_port, args.fleet), access_tokens=token,
            editions=args.edition, versions=args.version, seed=args.seed, faults=args.faults,
            http_limits=http_limits_from_args(args))
        servers = running.servers
    else:
        running = await start_simulator(
            args.scenario, host=args.host, api_port=args.api_port, publisher_port=args.publisher_port,
            access_token=token, seed=args.seed, edition=args.edition, version=args.version, faults=args.faults,
            http_limits=http_limits_from_args(args),
        )
        servers = [running]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    simulator = servers[0]
    world = simulator.world
    fleet = f", a fleet of an origin and {args.fleet} edges" if args.fleet else ""
    print(f"ome-simulator ({world.profile.describe()}, scenario {world.scenario.name}, "
          f"{sum(1 for _ in world.live_streams())} live streams, seed {args.seed}{fleet})")
    for index, server in enumerate(servers):
        if args.fleet:
            print("  origin" if index == 0 else f"  edge {index} (pulls every origin stream over OVT)")
        print(f"  management API  {server.api_url}   (e.g. {server.api_url}/v1/vhosts)")
        print(f"  LL-HLS / HLS    {server.publisher_url}   (e.g. {server.publisher_url}/app/stream/llhls.m3u8)")
    if token == DEFAULT_ACCESS_TOKEN:
        print(f"  header          Authorization: {basic_header(token)}")
    else:
        print("  header          Authorization: Basic base64(<your access token>)")
    if simulator.faults is not None:
        print(f"  faults          {args.faults or 'from the scenario'} (seed {args.seed})")
    print("Press Ctrl+C to stop.", flush=True)
    await stop.wait()
    await running.stop()
    print("ome-simulator stopped.", flush=True)


def _fleet_ports(first: int, edges: int) -> list[int]:
    """The origin on `first`, edge N on `first + N`; 0 stays 0 (a free port each)."""
    return [first + index if first else 0 for index in range(edges + 1)]


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (it comes with uvicorn[standard]): held LL-HLS requests wake faster."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop

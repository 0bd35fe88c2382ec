"""A fleet of 10 servers polled headless against one server, in the same run: CPU share and first data.

The servers are `ome-simulator --fleet 9` (an origin and nine edges, `demo` scenario: 8 streams each, the
edges pulling over OVT) in their own process. The console side runs in a fresh child process per variant,
variants interleaved round by round:

- `single`: one server (the origin) as a fleet of one, its dashboard on screen: the virtual host, its
  applications (expanded) and their streams (11 nodes), the first listed stream selected;
- `fleet10`: all ten servers as one `Fleet` (one session each, one `FleetBudget`), each server's
  dashboard on screen as above: ten times the single server's work under the same budget;
- `fleet10-rows`: the ten servers, each shown as the fleet's server level would show it: its virtual
  host's row and the selected stream (the fleet view of one stream), nothing expanded.

The request budget is the default, 20 requests/s for the whole fleet; interval 1 s. Measured in the
child: CPU (`time.process_time`) over `--seconds` after the first 5 s, divided by wall time; from
`Fleet.connect` to the first reading of any node on every server (a server's row: its virtual host,
read while connecting) and to the first reading of the selected stream on every server (the
streams are listed first: vhost, applications, streams, one request each, then the stream is chosen);
requests per second sent; the oldest selected reading over the window (sampled every 0.5 s).

    .venv/bin/python bench/bench_fleet.py [--rounds 3] [--seconds 30] [--append]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "BENCHMARKS.md"
TOKEN = "bench-fleet-token"
EDGES = 9
WARMUP_S = 5.0
VARIANTS = ("single", "fleet10", "fleet10-rows")


# -- the child: the console's fleet, headless ------------------------------------------------------------


async def child(urls: list[str], seconds: float, rows_only: bool) -> dict[str, float]:
    from pydantic import SecretStr

    from omeconsole.core.clock import SystemClock
    from omeconsole.core.config import Settings
    from omeconsole.core.fleet.fleet import Fleet, FleetUpdate
    from omeconsole.core.fleet.settings import FleetSettings
    from omeconsole.model.paths import NodePath

    servers = tuple(Settings(api_url=url, token=SecretStr(TOKEN), profile=f"server-{index}")
                    for index, url in enumerate(urls))
    started = time.monotonic()
    fleet = Fleet.connect(FleetSettings("bench", servers, 20.0), SystemClock())
    first: dict[str, float] = {}
    """When each server's selected stream was first read."""
    row: dict[str, float] = {}
    """When anything of each server was first read."""
    selected: dict[str, NodePath] = {}

    def follow(event: FleetUpdate) -> None:
        engine = fleet.member(event.profile).engine
        if event.update.tree_changed:
            listing = engine.listing()
            apps = [NodePath(v, a) for v, names in listing.items() for a in names]
            streams = [NodePath(v, a, s) for v, names in listing.items() for a, st in names.items() for s in st.live]
            if rows_only:  # the server's row: its virtual hosts
                engine.set_on_screen([NodePath(v) for v in listing])
            else:  # the dashboard's tree with every application expanded
                engine.set_on_screen([*(NodePath(v) for v in listing), *apps, *streams], expanded=apps)
            if event.profile not in selected and streams:
                selected[event.profile] = streams[0]
                engine.select(streams[0])
        if event.profile not in row and any(engine.node(p).latest is not None for p in event.update.changed):
            row[event.profile] = time.monotonic() - started
        path = selected.get(event.profile)
        if path is not None and event.profile not in first and engine.node(path).latest is not None:
            first[event.profile] = time.monotonic() - started

    fleet.add_listener(follow)
    running = asyncio.create_task(fleet.run())
    await asyncio.sleep(WARMUP_S)
    cpu, wall = time.process_time(), time.monotonic()
    sent = sum(member.engine.requests_sent for member in fleet)
    oldest = 0.0
    while time.monotonic() - wall < seconds:
        await asyncio.sleep(0.5)
        for profile, path in selected.items():
            age = fleet.member(profile).engine.node(path).age(time.monotonic())
            if age is not None:  # a server with no data yet is counted in `all_data_s`
                oldest = max(oldest, age)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    sent = sum(member.engine.requests_sent for member in fleet) - sent
    fleet.stop()
    await running
    await fleet.aclose()
    missing = len(urls) - len(first)
    return {"servers": float(len(urls)), "cpu_share": cpu / wall,
            "rows_s": max(row.values()) if len(row) == len(urls) else -1.0,
            "all_data_s": max(first.values()) if not missing else -1.0, "requests_per_s": sent / wall,
            "oldest_selected_s": oldest, "servers_without_data": float(missing)}


# -- the parent: the servers, the rounds, the table -----------------------------------------------------


def start_servers() -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [str(ROOT / ".venv/bin/ome-simulator"), "--fleet", str(EDGES), "--api-port", "0", "--publisher-port", "0",
         "--access-token", TOKEN, "--seed", "5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    banner = ""
    for line in process.stdout:
        banner += line
        if line.startswith("Press Ctrl+C"):
            break
    urls = re.findall(r"management API\s+(http://\S+)", banner)
    if len(urls) != EDGES + 1:
        process.kill()
        raise RuntimeError(f"the simulators did not start:\n{banner}")
    return process, urls


def run_child(urls: list[str], seconds: float, rows_only: bool) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(urls), "--seconds", str(seconds),
                           *(["--rows-only"] if rows_only else [])], capture_output=True, text=True, check=True,
                          cwd=ROOT)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _median(results: list[dict[str, float]], key: str) -> tuple[float, list[float]]:
    values = [r[key] for r in results]
    return statistics.median(values), values


def table(results: dict[str, list[dict[str, float]]]) -> list[str]:
    rows = [("Console CPU (share of one core)", "cpu_share", lambda v: f"{100 * v:.1f} %"),
            ("Connect to first data on every server (its virtual host)", "rows_s", lambda v: f"{v:.2f} s"),
            ("Connect to the selected stream read on every server", "all_data_s", lambda v: f"{v:.2f} s"),
            ("Requests sent per second (budget 20)", "requests_per_s", lambda v: f"{v:.1f}"),
            ("Oldest selected-stream reading over the window", "oldest_selected_s", lambda v: f"{v:.1f} s")]
    lines = ["| Measure | 1 server, dashboard | 10 servers, each its dashboard | 10 servers, rows + selected "
             "| ratios to 1 server |", "|---|---|---|---|---|"]
    for label, key, shown in rows:
        cells, ratios = [], []
        single = _median(results["single"], key)[0]
        for variant in VARIANTS:
            median, each = _median(results[variant], key)
            cells.append(f"{shown(median)} ({', '.join(shown(v) for v in each)})")
            if variant != "single":
                ratios.append(f"{median / single:.2f}" if single > 0 else "-")
        lines.append(f"| {label} | {' | '.join(cells)} | {' / '.join(ratios)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--append", action="store_true", help="append the table to BENCHMARKS.md")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(json.loads(args.child), args.seconds, args.rows_only))))
        return
    process, urls = start_servers()
    results: dict[str, list[dict[str, float]]] = {variant: [] for variant in VARIANTS}
    load_before = os.getloadavg()[0]
    try:
        for round_ in range(args.rounds):
            for variant in VARIANTS if round_ % 2 == 0 else reversed(VARIANTS):
                chosen = urls[:1] if variant == "single" else urls
                results[variant].append(run_child(chosen, args.seconds, variant.endswith("-rows")))
                print(f"round {round_ + 1} {variant}: {results[variant][-1]}", file=sys.stderr)
    finally:
        process.terminate()
        process.wait(10)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"Measured {when} with `.venv/bin/python bench/bench_fleet.py --rounds {args.rounds} --seconds "
             f"{args.seconds:g}` on {os.cpu_count()} cores (load average {load_before:.1f} at the start, "
             f"{os.getloadavg()[0]:.1f} at the end); median of {args.rounds} interleaved rounds (each round's "
             "figure in brackets).", "", *table(results)]
    print("\n".join(lines))
    if args.append:
        with BENCHMARKS.open("a", encoding="utf-8") as handle:
            handle.write("\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

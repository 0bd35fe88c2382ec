"""The console's fleet screen on 10 simulated servers against the console on one of them, in the same run,
each in a real pseudo-terminal (tmux, 160x50): CPU share and time to first data.

The servers are `ome-simulator --fleet 9` (an origin and nine edges, `demo` scenario, 8 streams each,
the edges pulling over OVT), one process, started once for the whole run. The variants, interleaved
round by round (the order flips every round):

- `single`: `omeconsole --api-url ORIGIN --select default/app/stream` (the one-server dashboard);
- `fleet10`: `omeconsole --fleet bench --select default/app/stream` on the ten servers (a config file
  with ten profiles and `[fleets.bench]`, the default request budget of 20 requests/s for the fleet).

First data: from launch to the screen showing a reading; for `fleet10`, to every server's row reachable
with its numbers read ("10/10 servers reachable", no "not read") and the selected stream on all ten
("on 10 of 10 servers") with a live row. CPU: the console process's utime+stime from /proc over
`--seconds`, from 5 s after its first data, divided by wall time; peak memory is its VmHWM.

    .venv/bin/python bench/bench_fleet_tui.py [--rounds 3] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench_fleet import EDGES, TOKEN, start_servers
from bench_tui import BIN, DATA_MARK, ROOT, SIZE, _cpu_seconds, _peak_rss_mb, _tmux

SELECT = "default/app/stream"
SETTLE_S = 5.0
FIRST_DATA_LIMIT_S = 60.0


@dataclass
class Run:
    variant: str
    first_data_s: float
    cpu_share: float
    peak_rss_mb: float


def fleet_config(urls: list[str], directory: Path) -> Path:
    """Ten profiles and the fleet of them, as an operator writes it (0600: it holds the token)."""
    lines = [f'[profiles.s{index}]\napi_url = "{url}"\ntoken = "{TOKEN}"\n' for index, url in enumerate(urls)]
    servers = ", ".join(f'"s{index}"' for index in range(len(urls)))
    lines.append(f"[fleets.bench]\nservers = [{servers}]\n")
    path = directory / "config.toml"
    path.write_text("\n".join(lines))
    path.chmod(0o600)
    return path


def single_ready(screen: str) -> bool:
    return DATA_MARK in screen


def fleet_ready(servers: int) -> Callable[[str], bool]:
    def ready(screen: str) -> bool:
        # The selected stream on every server (not any node's fleet view: the tree's cursor may rest elsewhere).
        return (f"{servers}/{servers} servers reachable" in screen and "not read" not in screen
                and f"{SELECT} on {servers} of {servers} servers" in screen and DATA_MARK in screen)

    return ready


def launch(variant: str, command: str, ready: Callable[[str], bool], seconds: float) -> Run:
    session = f"bench-fleet-tui-{os.getpid()}-{variant}"
    try:
        started = time.monotonic()
        _tmux("new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), "-c", str(ROOT),
              f"exec env TERM=xterm-256color {command}")
        _tmux("set-option", "-t", session, "remain-on-exit", "on")
        pid = int(_tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
        first = float("nan")
        while time.monotonic() - started < FIRST_DATA_LIMIT_S:
            if ready(_tmux("capture-pane", "-p", "-t", session)):
                first = time.monotonic() - started
                break
            time.sleep(0.02)
        if first != first:
            raise RuntimeError(f"{variant}: no data in {FIRST_DATA_LIMIT_S:g} s; its screen:\n"
                               f"{_tmux('capture-pane', '-p', '-t', session)}")
        time.sleep(SETTLE_S)
        cpu_before, wall_before = _cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        share = (_cpu_seconds(pid) - cpu_before) / (time.monotonic() - wall_before)
        return Run(variant, round(first, 2), share, round(_peak_rss_mb(pid), 1))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    process, urls = start_servers()
    runs: list[Run] = []
    try:
        with tempfile.TemporaryDirectory() as home:
            config = fleet_config(urls, Path(home))
            base = f"env OMECONSOLE_CONFIG={config} XDG_DATA_HOME={home} {BIN / 'omeconsole'}"
            variants = {
                "single": (f"{base} --api-url {urls[0]} --token {TOKEN} --select {SELECT}", single_ready),
                "fleet10": (f"{base} --fleet bench --select {SELECT}", fleet_ready(EDGES + 1)),
            }
            for round_index in range(args.rounds):
                order = list(variants) if round_index % 2 == 0 else list(reversed(variants))
                for variant in order:
                    command, ready = variants[variant]
                    run = launch(variant, command, ready, args.seconds)
                    runs.append(run)
                    print(f"round {round_index + 1} {variant}: first data {run.first_data_s:.2f} s, "
                          f"CPU {run.cpu_share:.1%}, peak {run.peak_rss_mb} MiB", file=sys.stderr)
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"tmux {SIZE[0]}x{SIZE[1]}, {args.rounds} rounds, CPU over {args.seconds:g} s from {SETTLE_S:g} s after "
          "first data; medians")
    print("| variant | first data (s) | console CPU | peak RSS (MiB) |")
    print("|---|---:|---:|---:|")
    medians = {}
    for variant in ("single", "fleet10"):
        mine = [run for run in runs if run.variant == variant]
        medians[variant] = (statistics.median(r.first_data_s for r in mine),
                            statistics.median(r.cpu_share for r in mine),
                            statistics.median(r.peak_rss_mb for r in mine))
        first, cpu, rss = medians[variant]
        print(f"| {variant} | {first:.2f} | {cpu:.1%} | {rss:.1f} |")
    single, fleet = medians["single"], medians["fleet10"]
    print(f"| fleet10 / single | {fleet[0] / single[0]:.2f}x | {fleet[1] / single[1]:.2f}x | "
          f"{fleet[2] / single[2]:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The console in a real pseudo-terminal (tmux): CPU share, peak memory, time to the first data frame.

For each scenario the simulator runs as its own process and the console (`omeconsole`, the normal
command) runs alone in a tmux pane, so the figures are the console's own. The first data frame is
the first screen on which a node shows a reading ("● live"); CPU and memory are read from /proc for
the console process over the measuring window.

    .venv/bin/python bench/bench_tui.py [--seconds 60] [--scenario demo --scenario scale] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
TOKEN = "bench-token"
SIZE = (160, 50)
DATA_MARK = "● live"
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Result:
    scenario: str
    seconds: float
    cpu_share_of_one_core: float
    peak_rss_mb: float
    first_data_s: float
    terminal: str


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _peak_rss_mb(pid: int) -> float:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) / 1024 if match else float("nan")


def _start_simulator(scenario: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--scenario", scenario, "--api-port", "0", "--publisher-port", "0",
         "--access-token", TOKEN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"management API\s+(http://\S+)", line)
        if found:
            return process, found.group(1)
    raise RuntimeError(f"the simulator did not start for scenario {scenario}")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def measure(scenario: str, seconds: float) -> Result:
    simulator, api_url = _start_simulator(scenario)
    session = f"bench-tui-{os.getpid()}-{scenario}"
    command = (f"exec env TERM=xterm-256color {BIN / 'omeconsole'} --api-url {api_url} --token {TOKEN}")
    try:
        started = time.monotonic()
        _tmux("new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), command)
        _tmux("set-option", "-t", session, "remain-on-exit", "on")  # keep a crash on screen to report it
        pid = int(_tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
        first_data = float("nan")
        while time.monotonic() - started < 30:
            if DATA_MARK in _tmux("capture-pane", "-p", "-t", session):
                first_data = time.monotonic() - started
                break
            time.sleep(0.02)
        cpu_before, wall_before = _cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        if not Path(f"/proc/{pid}").exists():
            raise RuntimeError(f"the console exited during the run; its last screen:\n"
                               f"{_tmux('capture-pane', '-p', '-t', session)}")
        cpu = _cpu_seconds(pid) - cpu_before
        wall = time.monotonic() - wall_before
        peak = _peak_rss_mb(pid)
        return Result(scenario, round(wall, 1), round(cpu / wall, 4), round(peak, 1), round(first_data, 2),
                      f"tmux {SIZE[0]}x{SIZE[1]}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
        simulator.terminate()
        simulator.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--scenario", action="append", help="demo and scale unless given")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("bench_tui: tmux is needed", file=sys.stderr)
        return 2
    results = [measure(s, args.seconds) for s in args.scenario or ["demo", "scale"]]
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return 0
    print("| scenario | window | CPU (share of one core) | peak RSS | launch to first data |")
    print("|---|---|---|---|---|")
    for r in results:
        print(f"| {r.scenario} | {r.seconds:.0f} s, {r.terminal} | {r.cpu_share_of_one_core:.1%} "
              f"| {r.peak_rss_mb:.0f} MB | {r.first_data_s:.2f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

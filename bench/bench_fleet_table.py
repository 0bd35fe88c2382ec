"""The streams table against the tree on a fleet at scale: the console's CPU share and peak memory with the
fleet's streams table (`t`, a row per stream of every server, a server column) against its fleet tree, in one
batch, each in a real pseudo-terminal (tmux 160x50).

The fleet is three simulators, each its own process (`ome-simulator`, real clock): `scale` (10,000 streams),
first in the fleet (the server the console opens on), and two `demo` servers (8 streams each). The console
is `omeconsole --fleet bench --select default/app000/s0001` (a config file with three profiles and
`[fleets.bench]`, the default request budget), with a history store of its own per launch. Variants,
interleaved round by round (the order flips every round):

- `tree`: the fleet screen as it opens (the server rows, the scale server open under its row);
- `table`: the same, with `t` pressed 2 s after the first data (10,016 rows, sorted by name).

Windows: the 30 s from the first data ("first 30 s"), then `--seconds` from 60 s after it ("steady"); CPU
is the process's utime+stime from /proc over each window divided by wall time, peak memory its VmHWM.
The report gives each figure's median with its range over the rounds, and table ÷ tree of the medians and
of each round's pair (launched one after the other, under the same load).

    .venv/bin/python bench/bench_fleet_table.py [--rounds 3] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_tui import (
    BIN,
    TOKEN,
    Launch,
    Plan,
    Window,
    _cached_bytecode,
    _start_simulator,
    run_in_tmux,
    warm_up,
)

SERVERS = (("scale", "scale"), ("demo-a", "demo"), ("demo-b", "demo"))
"""Profile and scenario of each server, in the fleet's order."""
SELECT = "default/app000/s0001"


def fleet_config(urls: list[str], directory: Path) -> Path:
    """The three profiles and the fleet of them, as an operator writes it (0600: it holds the token)."""
    lines = [f'[profiles.{profile}]\napi_url = "{url}"\ntoken = "{TOKEN}"\n'
             for (profile, _), url in zip(SERVERS, urls, strict=True)]
    names = ", ".join(f'"{profile}"' for profile, _ in SERVERS)
    lines.append(f"[fleets.bench]\nservers = [{names}]\n")
    path = directory / "config.toml"
    path.write_text("\n".join(lines))
    path.chmod(0o600)
    return path


def table_on_screen(screen: str) -> bool:
    """The table's header and a demo server's rows (what `t` must have drawn: not the tree)."""
    lines = screen.splitlines()
    return (any("server" in line and "stream" in line and "viewers" in line for line in lines)
            and any(line.lstrip("│ ").startswith("demo-") for line in lines))


def plans(seconds: float) -> dict[str, Plan]:
    def windows(name: str) -> tuple[Window, ...]:
        return Window(f"{name} first 30 s", 0.0, 30.0), Window(f"{name} steady", 60.0, seconds)

    return {"tree": Plan("tree", "fleet", 0, windows("tree"), select=SELECT),
            "table": Plan("table", "fleet", 0, windows("table"), keys=("t",), select=SELECT,
                          after_keys=table_on_screen)}


def launch(plan: Plan, config: Path, cache: Path) -> Launch:
    with tempfile.TemporaryDirectory(prefix="bench-fleet-table-") as home:
        command = (f"{_cached_bytecode(cache)} OMECONSOLE_CONFIG={config} XDG_DATA_HOME={home} "
                   f"OMECONSOLE_HISTORY_DB={home}/history.sqlite3 {BIN / 'omeconsole'} --fleet bench "
                   f"--select {plan.select}")
        return run_in_tmux(plan.group, command, plan)


def spread(values: list[float], shown: str = "{:.1%}") -> str:
    return f"{shown.format(statistics.median(values))} ({shown.format(min(values))}-{shown.format(max(values))})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the steady window")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("bench_fleet_table: tmux is needed", file=sys.stderr)
        return 2
    chosen = plans(args.seconds)
    started = [_start_simulator(scenario) for _, scenario in SERVERS]
    cache = Path(tempfile.mkdtemp(prefix="bench-fleet-table-pyc-"))
    launches: list[Launch] = []
    try:
        warm_up(cache)
        with tempfile.TemporaryDirectory() as directory:
            config = fleet_config([url for _, url in started], Path(directory))
            for round_index in range(args.rounds):
                order = list(chosen) if round_index % 2 == 0 else list(reversed(chosen))
                for name in order:
                    done = launch(chosen[name], config, cache)
                    launches.append(done)
                    print(f"round {round_index + 1} {name}: first data {done.first_data_s:.2f} s, "
                          + ", ".join(f"{window} {share:.1%}" for window, share in done.cpu.items())
                          + f", peak {done.peak_rss_mb} MB, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        for process, _ in started:
            process.terminate()
            process.wait(timeout=10)
    tree = [lch for lch in launches if lch.group == "tree"]
    table = [lch for lch in launches if lch.group == "table"]
    print(f"tmux 160x50, {args.rounds} rounds, fleet of {', '.join(p for p, _ in SERVERS)}; "
          "median (min-max over the rounds)")
    print("| figure | tree | table | table ÷ tree (medians) | table ÷ tree per round, median (min-max) |")
    print("|---|---|---|---|---|")
    for window in ("first 30 s", "steady"):
        ours = [lch.cpu[f"tree {window}"] for lch in tree]
        theirs = [lch.cpu[f"table {window}"] for lch in table]
        ratios = [b / a for a, b in zip(ours, theirs, strict=True)]
        print(f"| CPU, {window} (share of one core) | {spread(ours)} | {spread(theirs)} | "
              f"{statistics.median(theirs) / statistics.median(ours):.2f} | {spread(ratios, '{:.2f}')} |")
    ours, theirs = [lch.peak_rss_mb for lch in tree], [lch.peak_rss_mb for lch in table]
    print(f"| peak RSS (MB) | {spread(ours, '{:.0f}')} | {spread(theirs, '{:.0f}')} | "
          f"{statistics.median(theirs) / statistics.median(ours):.2f} | "
          f"{spread([b / a for a, b in zip(ours, theirs, strict=True)], '{:.2f}')} |")
    ours, theirs = [lch.first_data_s for lch in tree], [lch.first_data_s for lch in table]
    print(f"| first data (s) | {spread(ours, '{:.2f}')} | {spread(theirs, '{:.2f}')} | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

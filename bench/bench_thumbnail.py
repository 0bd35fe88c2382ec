"""The stream view with its thumbnail against without it, same batch: CPU share and peak memory (issue 29).

The console runs in a tmux pane of 160x50 (bench_tui.py's harness) against `ome-simulator --scenario demo`,
whose application `app` has jpg and png image encodes: `--select default/app/news`, Enter opens the stream
view, and the window opens 3 s later. "picture" reads and draws the thumbnail once a second (in tmux,
textual-image finds neither Sixel nor Kitty graphics: half blocks); "no picture" is the same launch with
`--no-thumbnails`. The two alternate their order each round; medians are printed.

    .venv/bin/python bench/bench_thumbnail.py [--seconds 20] [--rounds 2] [--terminal xterm]

`--terminal xterm`: the same two launches in a real xterm (as a VT340, 160x50) under an Xvfb of its own, where
the picture is Sixel (textual-image encodes it in the console's process once a second); the console runs
under `script`, whose log says when the tree and then the stream view are drawn (Enter is an XTEST key
press). CPU is the console's process over the window (/proc), peak RSS its VmHWM. Needs Xvfb, xterm and
python-xlib (make test-terminal's).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_thumbnail_xterm
import bench_tui
from bench_tui import BIN, TOKEN, Launch, Plan, Window, run_in_tmux

VARIANTS = {"picture": "", "no picture": "--no-thumbnails"}


def _start_simulator() -> tuple[subprocess.Popen[str], str, str]:
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--scenario", "demo", "--api-port", "0", "--publisher-port", "0",
         "--access-token", TOKEN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    api = publisher = None
    for line in process.stdout:
        api = api or _url(r"management API\s+(http://\S+)", line)
        publisher = publisher or _url(r"LL-HLS / HLS\s+(http://\S+)", line)
        if api and publisher:
            return process, api, publisher
    raise RuntimeError("the simulator did not start")


def _url(pattern: str, line: str) -> str | None:
    found = re.search(pattern, line)
    return found.group(1) if found else None


def launch(variant: str, seconds: float, cache: Path) -> Launch:
    plan = Plan(variant.replace(" ", "-"), "demo", 8, (Window("stream view", 3.0, seconds),), keys=("Enter",))
    simulator, api_url, publisher_url = _start_simulator()
    with tempfile.TemporaryDirectory(prefix="bench-thumbnail-history-") as history:
        try:
            return run_in_tmux(variant, f"{bench_tui._cached_bytecode(cache)} "
                               f"OMECONSOLE_HISTORY_DB={history}/history.sqlite3 {BIN / 'omeconsole'} "
                               f"--api-url {api_url} --publisher-url {publisher_url} --token {TOKEN} "
                               f"--select default/app/news {VARIANTS[variant]}", plan)
        finally:
            simulator.terminate()
            simulator.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--terminal", choices=("tmux", "xterm"), default="tmux")
    args = parser.parse_args()
    if args.terminal == "xterm":
        return bench_thumbnail_xterm.main(args.seconds, args.rounds, VARIANTS, _start_simulator)
    if shutil.which("tmux") is None:
        print("bench_thumbnail: tmux is needed", file=sys.stderr)
        return 2
    cache = Path(tempfile.mkdtemp(prefix="bench-thumbnail-pyc-"))
    launches: list[Launch] = []
    try:
        bench_tui.warm_up(cache)
        order = list(VARIANTS)
        for round_ in range(args.rounds):
            for variant in order[round_ % 2:] + order[:round_ % 2]:
                launches.append(launch(variant, args.seconds, cache))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"tmux 160x50, demo, stream view of default/app/news, {args.rounds} rounds alternating; medians")
    print("| stream view | CPU (share of one core) | peak RSS |")
    print("|---|---|---|")
    for variant in VARIANTS:
        mine = [lch for lch in launches if lch.program == variant]
        cpu = statistics.median(lch.cpu["stream view"] for lch in mine)
        rss = statistics.median(lch.peak_rss_mb for lch in mine)
        print(f"| {variant} | {cpu:.1%} | {rss:.0f} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

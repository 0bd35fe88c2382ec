"""The console's history in the TUI: what recording costs, and how fast a replay shows its first frame.

Recording: the console in a real pseudo-terminal (tmux, as bench_tui) against `ome-simulator` on
`demo` (8 streams) and `scale` (10,000 streams), once with `[history] enabled = false` and once
recording into a fresh store, alternating their order each round; CPU is the console process's
utime+stime over a window after the first data (the writer is a thread of that process, so its cost
is in the figure). The same run then opens `omeconsole --replay --since 1h` on the store the last
recording run left, and times launch -> the first screen showing the REPLAY badge and a reading,
beside the live console's launch -> first reading of the same runs.

    .venv/bin/python bench/bench_tui_history.py [--seconds 30] [--rounds 2] [--scenario demo --scenario scale]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_tui import BIN, DATA_MARK, SIZE, TOKEN, Plan, Window, _start_simulator, _tmux, run_in_tmux

SELECT = {"demo": "default/app/news", "scale": "default/app000/s0001"}
REPLAY_MARK = "REPLAY"


def _config(directory: Path, recording: bool) -> Path:
    config = directory / ("recording.toml" if recording else "not-recording.toml")
    store = directory / "history.sqlite3"
    config.write_text(f'[history]\nenabled = {"true" if recording else "false"}\npath = "{store}"\n')
    return config


def console_run(scenario: str, seconds: float, config: Path) -> tuple[float, float, str]:
    """The console's CPU share over `seconds` of steady running, its first data (s), the API URL it watched."""
    plan = Plan(scenario, scenario, 0, (Window("steady", 10.0, seconds),), select=SELECT[scenario])
    simulator, api_url = _start_simulator(scenario)
    try:
        launch = run_in_tmux("console", f"env OMECONSOLE_CONFIG={config} {BIN / 'omeconsole'} --api-url {api_url} "
                             f"--token {TOKEN} --select {plan.select}", plan)
    finally:
        simulator.terminate()
        simulator.wait(timeout=10)
    return launch.cpu["steady"], launch.first_data_s, api_url


def replay_first_frame(config: Path, api_url: str) -> float:
    session = f"bench-replay-{time.monotonic_ns()}"
    started = time.monotonic()
    _tmux("new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]),
          f"exec env TERM=xterm-256color OMECONSOLE_CONFIG={config} {BIN / 'omeconsole'} --replay --since 1h "
          f"--api-url {api_url}")
    _tmux("set-option", "-t", session, "remain-on-exit", "on")  # a refusal stays on screen to be reported
    try:
        while time.monotonic() - started < 60:
            screen = _tmux("capture-pane", "-p", "-t", session)
            if REPLAY_MARK in screen and DATA_MARK in screen:
                return time.monotonic() - started
            time.sleep(0.02)
        raise RuntimeError(f"the replay showed nothing in 60 s:\n{_tmux('capture-pane', '-p', '-t', session)}")
    finally:
        _tmux("kill-session", "-t", session)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scenario", action="append", choices=("demo", "scale"))
    args = parser.parse_args()
    scenarios = args.scenario or ["demo", "scale"]
    print(f"python {sys.version.split()[0]}; {args.rounds} rounds of {args.seconds:g} s per scenario and mode")
    print("| scenario | console CPU, not recording | recording | recording - not | live first data | "
          "replay first frame |")
    print("|---|---|---|---|---|---|")
    for scenario in scenarios:
        cpu: dict[bool, list[float]] = {False: [], True: []}
        frames: list[float] = []
        first_data: list[float] = []
        api_url = ""
        with tempfile.TemporaryDirectory() as scratch:
            directory = Path(scratch)
            for round_ in range(args.rounds):
                for recording in ((False, True) if round_ % 2 == 0 else (True, False)):
                    share, first, watched = console_run(scenario, args.seconds, _config(directory, recording))
                    cpu[recording].append(share)
                    first_data.append(first)
                    api_url = watched if recording else api_url
                frames.append(replay_first_frame(_config(directory, True), api_url))
        off, on = statistics.median(cpu[False]), statistics.median(cpu[True])
        print(f"| {scenario} | {off:.1%} | {on:.1%} | {on - off:+.1%} | {statistics.median(first_data):.2f} s | "
              f"{statistics.median(frames):.2f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

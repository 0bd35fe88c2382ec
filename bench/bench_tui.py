"""The console in a real pseudo-terminal (tmux) against its floor: CPU share, first data, peak memory.

The floor (`bench/floor_console.py`) is a bare Textual app with the console's visible widgets (its
dashboard and its stream screen as they are today) given new figures at the console's cadence and no
HTTP: what this stack costs before the console does anything. The issue's floor (`bench/floor_app.py`,
one chart, three sparklines and a small table beside the tree) runs too, for comparison with the figures
recorded before. Each phase runs the console and the floors alone in a tmux pane of 160x50, one after
the other and in another order the next round, and reports console ÷ floor:

- demo tree: the dashboard on the `demo` scenario (8 streams), the floor with 8 streams;
- demo stream view: Enter on `default/app/news` (the stream's own screen);
  (the dashboards have a stream selected too: `default/app/news`, and `default/app000/s0001` on scale)
- scale first 30 s / scale steady: the dashboard on `scale` (10,000 streams), the floor with a
  10,000-node tree, the 30 s after the first data, then `--seconds` from 60 s on;
- after N minutes of history (`--history-minutes N`, off by default): the demo stream view measured
  once the console has run N minutes (its charts then hold N minutes of samples; the floors, whose
  charts always hold 60 points, are measured 3 s after their first frame); `scale-history`: the same for
  the `scale` dashboard, whose rows on screen all keep their readings;
- scale table: the same, with `t` pressed 2 s after the first data (the streams table in the tree's place;
  the floor is the same 10,000-node tree): the table against the tree in one batch is `--phase scale --phase table`;
- first data: launch to the first screen showing a reading ("● live"); for the floor, its first frame;
- GC pauses: the console runs under `bench/gc_probe.py`, which times every collection (`gc.callbacks`).

CPU is the process's utime+stime from /proc over each window, divided by wall time; peak memory is
its VmHWM. The simulator runs as its own process (`ome-simulator --scenario NAME`, real clock).

The consoles run with their bytecode cached, as an install leaves it (pip compiles a wheel's modules;
this sandbox's PYTHONDONTWRITEBYTECODE=1 would have an editable checkout recompile every module of
ours at every launch, which the floors, whose Textual is compiled, never pay): each launch runs under
`env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=<a directory made for the batch>`, and each
console program imports `omeconsole.cli.main` and `omeconsole.ui.app` once, untimed, before the
timed launches fill that cache.

    .venv/bin/python bench/bench_tui.py [--seconds 30] [--rounds 2] [--phase demo ...] [--history-minutes 10]
        [--baseline-source DIR] [--server-latency-ms MS] [--json]

`--baseline-source DIR` adds a third program to every phase: the console package found in DIR (for
example `git archive main | tar -x -C DIR`), run with this tree's environment, for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import gc_probe

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
TOKEN = "bench-token"
SIZE = (160, 50)
DATA_MARK = "● live"
TICKS = os.sysconf("SC_CLK_TCK")
AGE = re.compile(r"  age (\d+(?:\.\d+)?) s  ")
"""The status line's data age: how old the reading on screen is when the screen is drawn and after."""
AGE_EVERY_S = 0.25


@dataclass(frozen=True)
class Window:
    name: str
    after_first: float
    """Seconds after the first data (or first frame) the window opens."""
    seconds: float


@dataclass(frozen=True)
class Plan:
    """One launch: which scenario, which keys once data is on screen, which windows to measure."""

    group: str
    scenario: str
    floor_streams: int
    windows: tuple[Window, ...]
    keys: tuple[str, ...] = ()
    select: str = "default/app/news"
    """A stream of the scenario, selected with --select (its detail, charts included, is on screen)."""
    after_keys: Callable[[str], bool] | None = None
    """What the screen must show within 10 s of the keys (else the launch fails: it measured something else)."""


@dataclass
class Launch:
    program: str
    group: str
    first_data_s: float
    peak_rss_mb: float
    cpu: dict[str, float] = field(default_factory=dict)
    ages: list[float] = field(default_factory=list)
    """The data age the status line showed, read every AGE_EVERY_S during the windows."""
    gc_longest_ms: float = float("nan")
    gc_over_50_ms: float = float("nan")
    """Collections that paused the console over 50 ms, from launch to the last window's end."""


def plans(seconds: float, history_minutes: float) -> dict[str, Plan]:
    out = {
        "demo": Plan("demo", "demo", 8, (Window("demo tree", 2.0, seconds),)),
        "stream": Plan("stream", "demo", 8, (Window("demo stream view", 3.0, seconds),), keys=("Enter",)),
        "scale": Plan("scale", "scale", 10_000, (Window("scale first 30 s", 0.0, 30.0),
                                                 Window("scale steady", 60.0, seconds)), select="default/app000/s0001"),
        # The streams table (`t`) in the tree's place on the same 10,000 streams: the floor is the tree's.
        "table": Plan("table", "scale", 10_000, (Window("scale table first 30 s", 0.0, 30.0),
                                                 Window("scale table steady", 60.0, seconds)), keys=("t",),
                      select="default/app000/s0001"),
    }
    if history_minutes > 0:
        def after(what: str) -> tuple[Window, ...]:  # one name per phase: the report's rows are by window
            return (Window(f"{what} after {history_minutes:g} min of history", history_minutes * 60, seconds),)

        out["history"] = Plan("history", "demo", 8, after("demo stream view"), keys=("Enter",))
        # The dashboard at 10,000 streams: every row on screen keeps its readings, the most the engine holds.
        out["scale-history"] = Plan("scale-history", "scale", 10_000, after("scale dashboard"),
                                    select="default/app000/s0001")
    return out


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _peak_rss_mb(pid: int) -> float:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) / 1024 if match else float("nan")


SERVER_LATENCY_MS = [0.0]
"""Added to every reply of the simulator (`--server-latency-ms`): a server across a network, not on loopback."""


def _start_simulator(scenario: str) -> tuple[subprocess.Popen[str], str]:
    faults = [f"--faults=latency={SERVER_LATENCY_MS[0]:g}ms"] if SERVER_LATENCY_MS[0] > 0 else []
    process = subprocess.Popen(
        [str(BIN / "ome-simulator"), "--scenario", scenario, "--api-port", "0", "--publisher-port", "0",
         "--access-token", TOKEN, *faults], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"management API\s+(http://\S+)", line)
        if found:
            return process, found.group(1)
    raise RuntimeError(f"the simulator did not start for scenario {scenario}")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _new_session(session: str, cwd: Path, command: str) -> None:
    """A detached tmux session running `command`; tried again after a moment when tmux refuses: the server
    whose last session was just killed may still be exiting (on a loaded machine the next launch met it)."""
    for attempt in range(5):
        try:
            _tmux("new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), "-c", str(cwd),
                  f"exec env TERM=xterm-256color {command}")
            return
        except subprocess.CalledProcessError:
            if attempt == 4:
                raise
            time.sleep(0.5)


def run_in_tmux(program: str, command: str, plan: Plan, cwd: Path = ROOT) -> Launch:
    session = f"bench-tui-{os.getpid()}-{program.replace(' ', '-')}-{plan.group}"
    try:
        started = time.monotonic()
        _new_session(session, cwd, command)
        _tmux("set-option", "-t", session, "remain-on-exit", "on")  # keep a crash on screen to report it
        pid = int(_tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
        first = float("nan")
        while time.monotonic() - started < 30:
            if DATA_MARK in _tmux("capture-pane", "-p", "-t", session):
                first = time.monotonic() - started
                break
            time.sleep(0.02)
        if first != first:
            raise RuntimeError(f"{program} showed no data in 30 s; its screen:\n"
                               f"{_tmux('capture-pane', '-p', '-t', session)}")
        first_at = time.monotonic()
        if plan.keys:
            time.sleep(2.0)  # the --select node is listed and under the cursor
            _tmux("send-keys", "-t", session, *plan.keys)
            if plan.after_keys is not None:
                _wait_for(plan.after_keys, program, session)
        launch = Launch(program, plan.group, round(first, 2), float("nan"))
        for window in plan.windows:
            time.sleep(max(0.0, first_at + window.after_first - time.monotonic()))
            _alive(program, pid, session)
            cpu_before, wall_before = _cpu_seconds(pid), time.monotonic()
            while time.monotonic() - wall_before < window.seconds:
                time.sleep(min(AGE_EVERY_S, max(0.0, wall_before + window.seconds - time.monotonic())))
                if program not in FLOORS:  # the floors' ages are made up
                    launch.ages.extend(float(age) for age in AGE.findall(_tmux("capture-pane", "-p", "-t", session)))
            _alive(program, pid, session)
            launch.cpu[window.name] = (_cpu_seconds(pid) - cpu_before) / (time.monotonic() - wall_before)
        launch.peak_rss_mb = round(_peak_rss_mb(pid), 1)
        return launch
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


Program = Callable[[Plan], Launch]


def _wait_for(shows: Callable[[str], bool], program: str, session: str) -> None:
    waited_from = time.monotonic()
    while not shows(_tmux("capture-pane", "-p", "-t", session)):
        if time.monotonic() - waited_from > 10:
            raise RuntimeError(f"{program}: the keys did not bring the expected screen; it shows:\n"
                               f"{_tmux('capture-pane', '-p', '-t', session)}")
        time.sleep(0.05)


def _alive(program: str, pid: int, session: str) -> None:
    if not Path(f"/proc/{pid}").exists():
        raise RuntimeError(f"{program} exited during the run; its last screen:\n"
                           f"{_tmux('capture-pane', '-p', '-S', '-60', '-t', session)}")


def _cached_bytecode(cache: Path) -> str:
    """The launch prefix that keeps compiled modules in `cache`, as an installed package has them."""
    return f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={cache}"


def warm_up(cache: Path, source: Path | None = None) -> None:
    """One untimed import of the console's command line and UI, which compiles them into `cache`."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import omeconsole.cli.main, omeconsole.ui.app"], check=True,
                   cwd=source or ROOT, env={**env, "PYTHONPYCACHEPREFIX": str(cache)})


def console(cache: Path, source: Path | None = None) -> Program:
    """The console of this tree, or (`source`) the `omeconsole` package of another checkout, with this
    tree's environment: a baseline run in the same batch. Bytecode is cached in `cache` (see above)."""
    name = "baseline" if source else "console"
    # Run from `source`: the probe puts the working directory first on the path, before this tree.
    def run(plan: Plan) -> Launch:
        simulator, api_url = _start_simulator(plan.scenario)
        # A history store of its own per launch: the user's store grows with every run, and its upkeep
        # (pruning once a minute) would make one launch's figures depend on the runs before it.
        with tempfile.NamedTemporaryFile(prefix="bench-tui-gc-", suffix=".log") as gc_log, \
                tempfile.TemporaryDirectory(prefix="bench-tui-history-") as history:
            try:
                launch = run_in_tmux(name, f"{_cached_bytecode(cache)} OMECONSOLE_HISTORY_DB={history}/history.sqlite3 "
                                     f"{sys.executable} "
                                     f"{ROOT / 'bench' / 'gc_probe.py'} {gc_log.name} "
                                     f"--api-url {api_url} --token {TOKEN} --select {plan.select}", plan,
                                     cwd=source or ROOT)
            finally:
                simulator.terminate()
                simulator.wait(timeout=10)
            paused = [ms for _, ms in gc_probe.pauses(gc_log.name)]
        launch.gc_longest_ms = max(paused, default=0.0)
        launch.gc_over_50_ms = sum(ms > 50 for ms in paused)
        return launch

    return run


FLOORS = {"floor": "floor_console.py", "issue floor": "floor_app.py"}
"""The floor with the console's screen as it is today, and the floor as the performance issue described it
(one chart, three sparklines, a small table): both run in every batch, each reported against the console."""


def floor(name: str) -> Program:
    def run(plan: Plan) -> Launch:
        if plan.group.endswith("history"):
            # A floor's charts hold 60 points whatever it has run: its window opens as the stream view's does,
            # not after N minutes of machine time that would measure the same thing.
            plan = replace(plan, windows=tuple(replace(w, after_first=3.0) for w in plan.windows))
        return run_in_tmux(name, f"{sys.executable} {ROOT / 'bench' / FLOORS[name]} --streams {plan.floor_streams}",
                           plan, cwd=ROOT / "bench")

    return run


def report(launches: list[Launch], chosen: dict[str, Plan], with_baseline: bool) -> None:
    def median(program: str, pick: str, group: str | None = None) -> float:
        mine = [lch for lch in launches if lch.program == program and (group is None or lch.group == group)]
        if pick.startswith("age_"):  # over every reading of every launch, not a median of medians
            ages = sorted(age for lch in mine for age in lch.ages)
            if not ages:
                return float("nan")
            return statistics.median(ages) if pick == "age_median" else ages[int(0.95 * (len(ages) - 1))]
        values = [(lch.cpu.get(pick) if pick in lch.cpu else getattr(lch, pick, None)) for lch in mine]
        known = [v for v in values if v is not None and v == v]
        return statistics.median(known) if known else float("nan")

    def line(label: str, pick: str, shown: Callable[[float], str], group: str | None = None) -> None:
        ours = median("console", pick, group)
        cells = [label, shown(ours)]
        for name in FLOORS:
            base = median(name, pick, group)
            probed = base == base  # the floors have no GC probe: their cells say so
            cells += [shown(base) if probed else "not probed", f"{ours / base:.2f}" if probed else "-"]
        if with_baseline:
            base = median("floor", pick, group)
            old = median("baseline", pick, group)
            cells += [shown(old), f"{old / base:.2f}" if base == base else "-"]
        print(f"| {' | '.join(cells)} |")

    extra = " baseline console | baseline ÷ floor |" if with_baseline else ""
    print(f"| phase | console | floor (console's screen) | console ÷ floor | issue's floor | console ÷ issue's floor |"
          f"{extra}")
    print("|---|---|---|---|---|---|" + ("---|---|" if with_baseline else ""))
    for plan in chosen.values():
        for window in plan.windows:
            line(f"{window.name} (CPU, share of one core)", window.name, lambda v: f"{v:.1%}")
    for group in chosen:
        line(f"first data / first frame, {group}", "first_data_s", lambda v: f"{v:.2f} s", group)
        line(f"data age on screen (median), {group}", "age_median", lambda v: f"{v:.1f} s", group)
        line(f"data age on screen (95th percentile), {group}", "age_p95", lambda v: f"{v:.1f} s", group)
        line(f"peak RSS, {group}", "peak_rss_mb", lambda v: f"{v:.0f} MB", group)
        line(f"longest GC pause, {group}", "gc_longest_ms", lambda v: f"{v:.0f} ms", group)
        line(f"GC pauses over 50 ms, {group}", "gc_over_50_ms", lambda v: f"{v:g}", group)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measuring window")
    parser.add_argument("--rounds", type=int, default=2, help="console and floor alternate their order each round")
    parser.add_argument("--phase", action="append",
                        choices=("demo", "stream", "scale", "table", "history", "scale-history"),
                        help="demo, stream, scale and table unless given (history: the demo's stream view, "
                             "scale-history: the scale dashboard, both after --history-minutes)")
    parser.add_argument("--history-minutes", type=float, default=0.0)
    parser.add_argument("--baseline-source", type=Path,
                        help="a checkout of other console code, run in the same batch (e.g. a `git archive` of main)")
    parser.add_argument("--server-latency-ms", type=float, default=0.0,
                        help="delay every reply of the simulator by this much (its latency fault): a remote server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    SERVER_LATENCY_MS[0] = args.server_latency_ms
    if shutil.which("tmux") is None:
        print("bench_tui: tmux is needed", file=sys.stderr)
        return 2
    available = plans(args.seconds, args.history_minutes)
    wanted = args.phase or [p for p in ("demo", "stream", "scale", "table", "history", "scale-history")
                             if p in available]
    chosen = {name: available[name] for name in wanted if name in available}
    cache = Path(tempfile.mkdtemp(prefix="bench-tui-pyc-"))
    try:
        warm_up(cache)
        programs: list[Program] = [console(cache), *(floor(name) for name in FLOORS)]
        if args.baseline_source:
            warm_up(cache, args.baseline_source.resolve())
            programs.append(console(cache, args.baseline_source.resolve()))
        launches: list[Launch] = []
        for round_ in range(args.rounds):
            for plan in chosen.values():
                # Each round starts with a different program, so none always runs first (or last).
                turn = round_ % len(programs)
                launches.extend(run(plan) for run in programs[turn:] + programs[:turn])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if args.json:
        print(json.dumps([asdict(launch) for launch in launches], indent=2))
        return 0
    print(f"tmux {SIZE[0]}x{SIZE[1]}, {args.rounds} rounds alternating the console and the floors; medians")
    report(launches, chosen, args.baseline_source is not None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

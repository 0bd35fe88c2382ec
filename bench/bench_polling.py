"""Polling, before and after, in one batch: what it costs at `scale` and how right its rates are.

Three measures, each run in a fresh child process per variant (so a variant's memory and garbage
collector start clean), variants interleaved round by round:

- `engine`: the polling engine alone on the real clock against `ome-simulator --scenario scale` (10,000
  streams) in its own process, the dashboard's view declared (a vhost row, an app row and 48 stream
  rows of that app, which is expanded; one stream selected): requests per second by kind (counted where
  the engine calls the client), CPU per second of polling and per request, the garbage collector's
  pauses (gc.callbacks), the oldest visible reading;
- `app`: the whole console (`ConsoleApp`, headless, 160x48, real clock, the real connector) against the
  same server: CPU and the garbage collector's pauses, the issue's stalls;
- `rates`: the demo scenario in process, world and console on manual clocks moved in 0.1 s steps, real
  playlist fetches (0, 2, 10 a second) between polls, the console's rate of `default/app/stream`
  against the traffic's true rate over the window each figure covers (tests/support/rate_truth.py).

`before` is another checkout of the project (`--baseline DIR`, e.g. `git archive <commit> | tar -x -C DIR`)
run by this Python; `after` is this one, with and without `gc.freeze()` after the first listing.

    .venv/bin/python bench/bench_polling.py [--baseline DIR] [--rounds 3] [--seconds 40] [--append]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench_load import ROOT, TOKEN, Server

BENCHMARKS = ROOT / "BENCHMARKS.md"
STARTUP_S = 15.0
"""The whole console's first seconds at `scale` (connect, list 10,000 streams, build the tree), measured apart."""
FETCH_RATES = (0, 2, 10)


# -- the garbage collector's pauses ---------------------------------------------------------------------


class GcPauses:
    """Every collection's duration, by generation (gc.callbacks: start and stop of each)."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        self.at: list[float] = []
        """When each pause ended (time.monotonic)."""
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append((info["generation"], time.perf_counter() - self._started))
            self.at.append(time.monotonic())

    def figures(self, seconds: float, since: float = -math.inf, until: float = math.inf,
                prefix: str = "gc") -> dict[str, float]:
        """Figures of the pauses that ended between `since` and `until` (time.monotonic), over `seconds`."""
        kept = [(g, d) for (g, d), at in zip(self.pauses, self.at, strict=True) if since < at <= until]
        full = [d for g, d in kept if g == 2]
        every = [d for _, d in kept]
        return {f"{prefix}_full_per_min": 60 * len(full) / seconds,
                f"{prefix}_full_max_ms": 1000 * max(full, default=0.0),
                f"{prefix}_max_ms": 1000 * max(every, default=0.0),
                f"{prefix}_total_ms_per_s": 1000 * sum(every) / seconds,
                f"{prefix}_over_50ms": float(sum(1 for d in every if d > 0.05))}


# -- workers (run in a child process, with PYTHONPATH set to the checkout under test) ---------------------


def _counting(client: Any, counts: Counter[str]) -> None:
    """Counts the client's calls by kind where the engine makes them (both checkouts have these)."""
    for name in ("stats", "list_vhosts", "list_apps", "list_streams", "stream_info", "detect"):
        method = getattr(client, name)

        def counted(*args: Any, _method: Callable[..., Any] = method, _name: str = name) -> Any:
            counts[_name] += 1
            return _method(*args)

        setattr(client, name, counted)


def _streams_of(engine: Any) -> dict[str, dict[str, list[str]]]:
    if hasattr(engine, "listing"):
        return {v: {a: list(s.live) for a, s in apps.items()} for v, apps in engine.listing().items()}
    return engine.tree()  # type: ignore[no-any-return]


def _start_watch() -> Any:
    """The console's garbage-collection policy told of the start (`cli/gc_policy.py`); None in a checkout that
    had the engine freeze by itself (`PollSettings.freeze_gc`)."""
    try:
        from omeconsole.cli.gc_policy import ConsoleStart
    except ImportError:
        return None
    return ConsoleStart()


async def engine_worker(url: str, seconds: float, freeze: bool) -> dict[str, float]:
    from omeconsole.api.client import OmeClient
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.polling.engine import PollingEngine, PollSettings
    from omeconsole.model.paths import NodePath

    counts: Counter[str] = Counter()
    watch = _start_watch() if freeze else None
    options = {"freeze_gc": True} if freeze and watch is None else {}  # a checkout from before cli/gc_policy.py
    async with OmeClient(url, TOKEN, timeout=5) as client:
        _counting(client, counts)
        engine = PollingEngine(client, SystemClock(), PollSettings(**options))
        if watch is not None:
            watch.engine_started(engine)
        pauses = GcPauses()
        gc.callbacks.append(pauses)
        runner = asyncio.create_task(engine.run())
        started = time.monotonic()
        while not any(s for apps in _streams_of(engine).values() for s in apps.values()):
            await asyncio.sleep(0.05)
        vhost, app = next((v, a) for v, apps in _streams_of(engine).items() for a, s in apps.items() if s)
        rows = [NodePath(vhost), NodePath(vhost, app),
                *(NodePath(vhost, app, s) for s in _streams_of(engine)[vhost][app][:48])]
        engine.select(rows[2])
        if hasattr(engine, "set_on_screen"):
            engine.set_on_screen(rows, [NodePath(vhost, app)])
        else:
            engine.set_visible(rows)
        await asyncio.sleep(max(0.0, 12 - (time.monotonic() - started)))  # the first listing, then steady
        before, cpu, start = Counter(counts), time.process_time(), time.monotonic()
        oldest = 0.0
        while time.monotonic() - start < seconds:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            oldest = max([oldest, *(age for p in rows if (age := engine.node(p).age(now)) is not None)])
        elapsed = time.monotonic() - start
        cpu = time.process_time() - cpu
        gc.callbacks.remove(pauses)
        engine.stop()
        await runner
    sent = {kind: (counts[kind] - before[kind]) / elapsed for kind in counts}
    total = sum(sent.values())
    return {"requests_per_s": total, "stats_per_s": sent.get("stats", 0.0),
            "listings_per_s": sum(v for k, v in sent.items() if k.startswith("list_")),
            "info_per_s": sent.get("stream_info", 0.0), "cpu_ms_per_s": 1000 * cpu / elapsed,
            "cpu_ms_per_request": 1000 * cpu / max(1.0, total * elapsed), "oldest_visible_s": oldest,
            "streams_listed": float(sum(len(s) for apps in _streams_of(engine).values() for s in apps.values())),
            **pauses.figures(elapsed, since=start)}


async def app_worker(url: str, seconds: float, freeze: bool) -> dict[str, float]:
    from pydantic import SecretStr

    from omeconsole.core.clock import SystemClock
    from omeconsole.core.config import Settings
    from omeconsole.core.session import connector
    from omeconsole.ui.app import CHART_GAP, REDRAW_GAP, ConsoleApp

    clock = SystemClock()
    watch = _start_watch() if freeze else None
    connect = (connector(clock, freeze_gc=True) if freeze and "freeze_gc" in inspect.signature(connector).parameters
               else connector(clock))
    app = ConsoleApp(Settings(api_url=url, token=SecretStr(TOKEN)), connect, clock, redraw_gap=REDRAW_GAP,
                     chart_gap=CHART_GAP, **({"start_watch": watch} if watch is not None else {}))
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    begun = time.monotonic()
    async with app.run_test(headless=True, size=(160, 48)):
        await asyncio.sleep(STARTUP_S)  # connected, listed, the tree built
        cpu, start = time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        elapsed = time.monotonic() - start
        cpu = time.process_time() - cpu
    gc.callbacks.remove(pauses)
    return {"cpu_ms_per_s": 1000 * cpu / elapsed, **pauses.figures(elapsed, since=start),
            **pauses.figures(start - begun, until=start, prefix="startup")}


async def rates_worker(fetches_per_s: int, seconds: float) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    import random

    from fake_clock import FakeClock
    from rate_truth import errors, play
    from sim_support import TEST_TOKEN, running_simulator

    from omeconsole.api.client import OmeClient
    from omeconsole.core.polling.engine import PollingEngine, PollSettings
    from omeconsole.model.paths import NodePath
    from simulator.world.clock import ManualClock

    world, console = ManualClock(), FakeClock()
    async with running_simulator(clock=world) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, console, PollSettings(), rng=random.Random(1))
        run = await play(sim, engine, console, NodePath("default", "app", "stream"), fetches_per_s=fetches_per_s,
                         seconds=seconds, also_advance=(world,))
    found = sorted(errors(run))
    return {"rates": float(len(found)), "max": max(found), "p95": found[int(0.95 * (len(found) - 1))],
            "median": statistics.median(found)}


# -- the batch ----------------------------------------------------------------------------------------


def run_worker(checkout: Path | None, *args: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout or ROOT) + os.pathsep + str(ROOT / "bench"))
    with tempfile.TemporaryDirectory() as home:  # no user config or data for the app
        env.update(XDG_CONFIG_HOME=home, XDG_DATA_HOME=home, OMECONSOLE_CONFIG=f"{home}/none.toml")
        done = subprocess.run([sys.executable, __file__, "--worker", *args], env=env, cwd=checkout or ROOT,
                              capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"worker {args} ({checkout or 'this checkout'}) failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def median_cells(rounds: list[dict[str, float]], key: str, scale: float = 1.0, digits: int = 1) -> str:
    values = [r[key] * scale for r in rounds]
    middle = statistics.median(values)
    spread = f" ({min(values):.{digits}f}-{max(values):.{digits}f})" if len(values) > 1 else ""
    return f"{middle:.{digits}f}{spread}"


def batch(baseline: Path | None, rounds: int, seconds: float) -> str:
    variants: dict[str, tuple[Path | None, bool]] = {}
    if baseline is not None:
        variants["before"] = (baseline, False)
    variants["after"] = (None, False)
    variants["after + gc.freeze"] = (None, True)
    engine: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    app: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for _ in range(rounds):
        server = Server(scenario="scale", seed=1)
        try:
            url = f"http://127.0.0.1:{server.api_port}"
            for name, (checkout, freeze) in variants.items():
                flag = ["--freeze"] if freeze else []
                engine[name].append(run_worker(checkout, "engine", url, str(seconds), *flag))
                app[name].append(run_worker(checkout, "app", url, str(seconds), *flag))
        finally:
            server.stop()
    rate_variants = {"before": baseline} if baseline is not None else {}
    rate_variants["after"] = None
    rates = {name: {f: run_worker(checkout, "rates", str(f), "40") for f in FETCH_RATES}
             for name, checkout in rate_variants.items()}
    return report(engine, app, rates, baseline, rounds, seconds)


def report(engine: dict[str, list[dict[str, float]]], app: dict[str, list[dict[str, float]]],
           rates: dict[str, dict[int, dict[str, float]]], baseline: Path | None, rounds: int, seconds: float) -> str:
    names = list(engine)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    command = f"`.venv/bin/python bench/bench_polling.py --rounds {rounds} --seconds {seconds:g}" + (
        f" --baseline {baseline}`" if baseline else "`")
    lines = [f"Measured {stamp} with {command} on the shared 2-core machine (load average {load:.1f} at the end); "
             f"median of {rounds} interleaved rounds (range in brackets), each variant a fresh process.", "",
             "| Engine alone, `scale`, 50 rows on screen | " + " | ".join(names) + " |",
             "|---|" + "---|" * len(names)]
    rows = [("Requests / s, all", "requests_per_s", 1.0, 1), ("  statistics", "stats_per_s", 1.0, 1),
            ("  listings", "listings_per_s", 1.0, 2), ("  stream info", "info_per_s", 1.0, 2),
            ("CPU ms per second of polling", "cpu_ms_per_s", 1.0, 1),
            ("CPU ms per request", "cpu_ms_per_request", 1.0, 2),
            ("Oldest reading on screen, s", "oldest_visible_s", 1.0, 1),
            ("Full collections per minute", "gc_full_per_min", 1.0, 1),
            ("Longest full collection, ms", "gc_full_max_ms", 1.0, 1),
            ("GC time, ms per second", "gc_total_ms_per_s", 1.0, 2)]
    for label, key, scale, digits in rows:
        lines.append(f"| {label} | " + " | ".join(median_cells(engine[n], key, scale, digits) for n in names) + " |")
    lines += ["", "| Whole console (headless app), `scale`, 160x48 | " + " | ".join(names) + " |",
              "|---|" + "---|" * len(names)]
    for label, key, scale, digits in [(f"First {STARTUP_S:g} s: longest GC pause, ms", "startup_max_ms", 1.0, 1),
                                      (f"First {STARTUP_S:g} s: pauses over 50 ms", "startup_over_50ms", 1.0, 0),
                                      ("Then: CPU ms per second", "cpu_ms_per_s", 1.0, 1),
                                      ("Then: full collections per minute", "gc_full_per_min", 1.0, 1),
                                      ("Then: longest GC pause, ms", "gc_max_ms", 1.0, 1),
                                      ("Then: pauses over 50 ms", "gc_over_50ms", 1.0, 0),
                                      ("Then: GC time, ms per second", "gc_total_ms_per_s", 1.0, 2)]:
        lines.append(f"| {label} | " + " | ".join(median_cells(app[n], key, scale, digits) for n in names) + " |")
    lines += ["", "| Rate of `default/app/stream` vs the true rate, 40 s | " + " | ".join(
        f"{n}, {f} fetches/s" for n in rates for f in FETCH_RATES) + " |",
        "|---|" + "---|" * (len(rates) * len(FETCH_RATES))]
    for label, key in [("max abs(ours - truth) / truth", "max"), ("p95", "p95"), ("median", "median")]:
        lines.append(f"| {label} | " + " | ".join(f"{100 * rates[n][f][key]:.2f} %" for n in rates
                                                 for f in FETCH_RATES) + " |")
    lines.append("| rates compared (in and out) | " + " | ".join(
        f"{rates[n][f]['rates']:.0f}" for n in rates for f in FETCH_RATES) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of the project: the 'before'")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--append", action="store_true", help="append the tables to BENCHMARKS.md")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--freeze", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "rates":
            figures = asyncio.run(rates_worker(int(rest[0]), float(rest[1])))
        else:
            worker = engine_worker if kind == "engine" else app_worker
            figures = asyncio.run(worker(rest[0], float(rest[1]), args.freeze))
        print(json.dumps(figures))
        return
    text = batch(args.baseline, args.rounds, args.seconds)
    print(text)
    if args.append:
        with BENCHMARKS.open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()

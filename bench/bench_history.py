"""History store: recorder cost at `scale`, database growth per stream per day, `history` query times.

Part 1 runs the simulator's `scale` scenario (10,000 streams) in its own process on the real clock and,
alternately, two children for `--seconds` each after a warm-up: the baseline polls every listed node
with the console's engine and the default budget (20 requests/s) and stores nothing; the recorder is
`omeconsole record` itself. CPU is utime + stime of the child from /proc over the measured window.
The recorder's database then gives bytes per row of each table (SQLite's dbstat), from which growth
per stream per day at each tier follows for the sampling the budget allows.

Part 2 writes 30 days of one stream straight into a store through the writer (the last day sampled every
second, the 29 days before once a minute: the 1-minute tier holds the same rows either way) and times
`omeconsole history` for 1 hour and 30 days, against the floor of selecting the same rows with sqlite3.

    .venv/bin/python bench/bench_history.py [--seconds 120] [--warmup 40] [--rounds 2] [--skip-scale]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench_polling import TOKEN, start_simulator

from omeconsole.api.client import OmeClient
from omeconsole.cli.main import main as omeconsole_main
from omeconsole.cli.parser import LISTING_INTERVAL_S
from omeconsole.core.clock import SystemClock
from omeconsole.core.history.engine_source import EngineSampleSource
from omeconsole.core.history.observations import ObservedSample, ServerId
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.replay import ReplayCursor, ReplaySource
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine, PollSettings
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

BIN = Path(sys.executable).parent
TICKS = os.sysconf("SC_CLK_TCK")
DAY = 86_400


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


# -- the baseline child: the same polling, nothing stored -------------------------------------------------

async def poll_only(url: str) -> None:
    """Every listed node on "screen" under the default budget, as the recorder does, with no store."""
    clock = SystemClock()
    async with OmeClient(url, TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(history_seconds=10, listing_interval=LISTING_INTERVAL_S))
        source = EngineSampleSource(engine, clock, ServerId.from_url(url))
        samples = [0]

        def count(observation: object) -> None:
            samples[0] += isinstance(observation, ObservedSample)

        def follow(update: EngineUpdate) -> None:
            if update.tree_changed or update.connection_changed:
                engine.set_visible(source.listed())

        source.subscribe(count)
        engine.add_listener(follow)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        runner = asyncio.create_task(engine.run())
        await stop.wait()
        engine.stop()
        await runner
        print(json.dumps({"event": "stopped", "samples": samples[0], "requests": engine.requests_sent}), flush=True)


# -- part 1: recorder at scale --------------------------------------------------------------------------

def run_child(kind: str, url: str, db: Path, warmup: float, seconds: float) -> dict[str, Any]:
    environment = {**os.environ, "OMECONSOLE_HISTORY_DB": str(db), "OME_API_URL": url, "OME_ACCESS_TOKEN": TOKEN,
                   "OMECONSOLE_CONFIG": str(db.parent / "none.toml")}
    if kind == "record":
        argv = [str(BIN / "omeconsole"), "record", "--json", "--status-every", str(seconds + warmup + 60)]
    else:
        argv = [sys.executable, __file__, "--child-poll", url]
    process = subprocess.Popen(argv, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(warmup)
    cpu_before, wall_before = cpu_seconds(process.pid), time.monotonic()
    time.sleep(seconds)
    cpu, wall = cpu_seconds(process.pid) - cpu_before, time.monotonic() - wall_before
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    if process.returncode != 0:
        raise SystemExit(f"{kind} failed ({process.returncode}): {err[-2000:]}")
    last = json.loads(out.strip().splitlines()[-1])
    return {"cpu_share": cpu / wall, "last": last, "wall": warmup + seconds}


def table_bytes(db: Path) -> dict[str, tuple[int, int]]:
    """(bytes of the table and its indexes, rows) per table."""
    owner = {"samples_at": "samples", "buckets_age": "buckets", "series_last_seen": "series",
             "lifecycle_at": "lifecycle"}
    with sqlite3.connect(db) as raw:
        sizes: dict[str, int] = {}
        for name, size in raw.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            sizes[table] = sizes.get(table, 0) + size
        rows = {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("samples", "buckets", "series", "lifecycle")}
    return {t: (sizes.get(t, 0), rows[t]) for t in rows}


def growth(db: Path, samples_per_s: float, streams: int) -> list[str]:
    """Bytes per stream per day at each tier, for the sampling interval the budget gave each stream."""
    sizes = table_bytes(db)
    per_row = {t: (size / rows if rows else 0.0) for t, (size, rows) in sizes.items()}
    every = streams / samples_per_s
    settings = HistorySettings()
    lines = [f"- bytes per row (table and its indexes): samples {per_row['samples']:.0f}, tier buckets "
             f"{per_row['buckets']:.0f}, series (summary) {per_row['series']:.0f}, lifecycle "
             f"{per_row['lifecycle']:.0f}; {sizes['samples'][1]:,} samples rows, {sizes['buckets'][1]:,} bucket rows, "
             f"{sizes['series'][1]:,} nodes",
             f"- each of {streams:,} streams sampled every {every:,.0f} s ({samples_per_s:.1f} samples/s in all)"]
    rows_day = {"full resolution": DAY / every, **{f"{t.step} s": DAY / max(every, t.step) for t in settings.tiers}}
    keep = {"full resolution": settings.full_resolution, **{f"{t.step} s": t.keep for t in settings.tiers}}
    kinds = {"full resolution": "samples", **{f"{t.step} s": "buckets" for t in settings.tiers}}
    steady_total = 0.0
    for name, rows in rows_day.items():
        written = rows * per_row[kinds[name]]
        kept = written * keep[name] / DAY
        steady_total += kept * streams
        one_second = (DAY / max(1, 1 if name == "full resolution" else int(name.split()[0]))) * per_row[kinds[name]]
        lines.append(f"- {name}: {rows:,.0f} rows/stream/day = {written / 1024:,.1f} KiB/stream/day written, "
                     f"kept {keep[name] / 3600:g} h: {kept / 1024:,.1f} KiB/stream at steady state "
                     f"(a stream sampled every second: {one_second / 1024**2:,.2f} MiB/day)")
    lines.append(f"- steady state for {streams:,} streams: {steady_total / 1024**3:,.2f} GiB "
                 f"(cap {settings.max_size / 1024**3:g} GiB)")
    return lines


def part_scale(seconds: float, warmup: float, rounds: int) -> list[str]:
    simulator, url = start_simulator()
    results: dict[str, list[dict[str, Any]]] = {"poll": [], "record": []}
    directory = Path(tempfile.mkdtemp(prefix="bench-history-"))
    last_db = directory / "none"
    try:
        for index in range(rounds):
            for kind in ("poll", "record"):
                db = directory / f"{kind}-{index}.sqlite3"
                results[kind].append(run_child(kind, url, db, warmup, seconds))
                if kind == "record":
                    last_db = db
    finally:
        simulator.terminate()
        simulator.wait(10)
    poll = [r["cpu_share"] for r in results["poll"]]
    record = [r["cpu_share"] for r in results["record"]]
    final = results["record"][-1]["last"]
    samples_per_s = final["samples"] / results["record"][-1]["wall"]
    lines = [
        "| process | CPU share of one core (median; rounds) | samples/s |",
        "|---|---|---|",
        f"| baseline: same polling, nothing stored | {100 * statistics.median(poll):.1f} % "
        f"({', '.join(f'{100 * p:.1f}' for p in poll)}) | "
        f"{statistics.median(r['last']['samples'] / r['wall'] for r in results['poll']):.1f} |",
        f"| `omeconsole record` | {100 * statistics.median(record):.1f} % "
        f"({', '.join(f'{100 * p:.1f}' for p in record)}) | {samples_per_s:.1f} |",
        f"| record / baseline | {statistics.median(record) / statistics.median(poll):.2f} | |",
        "",
        f"- writer thread CPU: {final['writer_cpu_s']:.2f} s over {results['record'][-1]['wall']:.0f} s "
        f"({100 * final['writer_cpu_s'] / results['record'][-1]['wall']:.2f} % of a core)",
        f"- offer -> commit: p50 {1000 * final['write_p50_s']:.0f} ms, p99 {1000 * final['write_p99_s']:.0f} ms "
        f"(batches of up to 1 s); one batch's transaction: p50 {1000 * final['transaction_p50_s']:.1f} ms, "
        f"max {1000 * final['transaction_max_s']:.1f} ms; dropped {final['dropped']}, lost {final['lost']}",
    ]
    lines += growth(last_db, samples_per_s, 10_000)
    return lines


# -- part 2: history of one stream over 1 hour and 30 days --------------------------------------------------

def _stats(at: float, second: int) -> NodeStats:
    created = datetime.fromtimestamp(at - second - 10, UTC)
    return NodeStats(
        created=created, last_updated=datetime.fromtimestamp(at, UTC), total_bytes_in=second * 560_000,
        total_bytes_out=second * 25_000_000, connections_in={"rtmp": 1},
        connections_out={"llhls": 40 + second % 17, "webrtc": 12}, total_connections=52 + second % 17,
        max_total_connections=80, max_total_connection_time=created, avg_throughput_in_bps=4_480_000,
        avg_throughput_out_bps=200_000_000, max_throughput_in_bps=5_000_000, max_throughput_out_bps=230_000_000,
        last_throughput_in_bytes=560_000, last_throughput_out_bytes=25_000_000)


SERVER = "127.0.0.1:8081"


def synthesise(db: Path, end: float) -> tuple[int, float]:
    server, path = ServerId.from_url(f"http://{SERVER}"), NodePath("default", "app", "stream")
    start = end - 30 * DAY
    seconds = [*range(0, 29 * DAY, 60), *range(29 * DAY, 30 * DAY)]
    writer = HistoryWriter.start(db, HistorySettings(), now=lambda: end)
    began = time.perf_counter()
    for index, second in enumerate(seconds):
        at = start + second
        sample = Sample(at=at, rate_in_bps=4_480_000.0, rate_out_bps=200_000_000.0 + second % 17,
                        viewers=52 + second % 17, stats=_stats(at, second))
        while not writer.offer(ObservedSample(server, path, sample, at)):
            writer.flush()
        if index % 10_000 == 0:
            writer.flush()
    writer.flush()
    elapsed = time.perf_counter() - began
    writer.close()
    HistoryWriter.start(db, HistorySettings(), now=lambda: end).close()  # prune as the recorder would
    return len(seconds), elapsed


def timed(function: Any, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return 1000 * statistics.median(times)


def part_history() -> list[str]:
    directory = Path(tempfile.mkdtemp(prefix="bench-history-q-"))
    db = directory / "history.sqlite3"
    end = float(int(time.time()))
    count, elapsed = synthesise(db, end)
    os.environ.update({"OMECONSOLE_HISTORY_DB": str(db), "OMECONSOLE_CONFIG": str(directory / "none.toml")})

    def history(*args: str) -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            assert omeconsole_main(["history", "default/app/stream", *args]) == 0

    def floor(table: str, since: float) -> None:
        with sqlite3.connect(db) as raw:
            column = "at" if table == "samples" else "start"
            step = "" if table == "samples" else " AND step = 60"
            raw.execute(f"SELECT * FROM {table} WHERE series_id = 1 AND {column} >= ?{step}",
                        (since,)).fetchall()

    sizes = table_bytes(db)
    lines = [f"- synthesised {count:,} samples (30 days) through the writer in {elapsed:.1f} s "
             f"({count / elapsed:,.0f} samples/s); the store: {db.stat().st_size / 1024**2:.1f} MiB, "
             f"{sizes['samples'][1]:,} full-resolution rows, {sizes['buckets'][1]:,} bucket rows", "",
             "| query | `omeconsole history` | floor (sqlite3 SELECT of the same rows) | ratio |", "|---|---|---|---|"]
    for label, args, table, since in (
            ("1 h, text (3,600 samples)", ["--since", "1h"], "samples", end - 3600),
            ("1 h, --json", ["--since", "1h", "--json"], "samples", end - 3600),
            ("30 d, text (43,200 one-minute buckets)", ["--since", "30d"], "buckets", end - 30 * DAY),
            ("30 d, --json", ["--since", "30d", "--json"], "buckets", end - 30 * DAY),
            ("30 d, --step 1h (720 points)", ["--since", "30d", "--step", "1h"], "buckets", end - 30 * DAY)):
        ours, bare = timed(lambda a=args: history(*a)), timed(lambda t=table, s=since: floor(t, s))
        lines.append(f"| {label} | {ours:.1f} ms | {bare:.1f} ms | {ours / bare:.1f} |")
    lines += ["", "| what the console will call | time | floor | ratio |", "|---|---|---|---|"]
    stream = NodePath("default", "app", "stream")
    with HistoryReader(db) as reader:
        window = timed(lambda: reader.window(SERVER, stream, 3600, now=end))
        lines.append(f"| chart at start: `HistoryReader.window` of 1 h (3,600 samples into 30 s points) | "
                     f"{window:.1f} ms | {timed(lambda: floor('samples', end - 3600)):.1f} ms | "
                     f"{window / timed(lambda: floor('samples', end - 3600)):.1f} |")

        def cold() -> None:
            replay = ReplaySource(reader, SERVER, ReplayCursor(SystemClock(), end - 30 * DAY, end), now=end)
            replay.node_at(stream, end - 12 * 3600)
            replay.listing_at(end - 12 * 3600)

        replay = ReplaySource(reader, SERVER, ReplayCursor(SystemClock(), end - 30 * DAY, end), now=end)
        moment = [end - 12 * 3600]

        def warm() -> None:
            moment[0] += 1
            replay.node_at(stream, moment[0])

        lines.append(f"| replay, a new `ReplaySource`: listing and one node 12 h back (10 s buckets) | "
                     f"{timed(cold):.1f} ms | | |")
        lines.append(f"| replay playing: the same node one second later (its window is loaded) | "
                     f"{timed(warm, 101):.2f} ms | | |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--warmup", type=float, default=40.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--child-poll", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_poll:
        asyncio.run(poll_only(args.child_poll))
        return
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if not args.skip_scale:
        print("\n".join(part_scale(args.seconds, args.warmup, args.rounds)))
    print()
    print("\n".join(part_history()))
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

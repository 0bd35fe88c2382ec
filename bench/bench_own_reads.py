"""The console's own playlist reads, against the simulator's counting (which counts as the real 0.19.0 does).

The demo's `backup` stream (nobody watches it) is read once a simulated second for `--seconds`, as the
playlist follower reads the selected stream (a plain read on a connection closed after it, entered in the
ledger), and its statistics are read after each: what the server counted (bytes out, peak connections),
what the ledger counted, the out rate a reading shows without taking the console's reads off (what the
console showed before) and with (what it shows now). Then the shared journal's cost: the CPU time of the
first `mark` of a process that finds another's `--journal-reads` reads in the journal, and of a mark that
finds one new read.

Everything runs on the simulator's ManualClock and a FakeClock for the console, so the figures do not
depend on this machine's speed (the CPU times do).

    .venv/bin/python bench/bench_own_reads.py [--seconds 60] [--journal-reads 18000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.api.own_reads import OwnReads
from omeconsole.api.own_reads_journal import Journal
from omeconsole.api.publisher import PublisherReader
from omeconsole.core.polling.own_share import AudienceWindow
from omeconsole.core.polling.rates import RateWindow
from omeconsole.model.paths import NodePath
from simulator.world.clock import ManualClock

BACKUP = NodePath("default", "app", "backup")


async def following(seconds: int) -> None:
    world, console = ManualClock(), FakeClock()
    async with running_simulator(clock=world) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        client.own_reads.monotonic = console.monotonic
        reader = PublisherReader(sim.publisher_url, "app", "backup", own=client.own_reads)
        shown, raw = AudienceWindow(), RateWindow()
        world.advance(20)
        first = await client.stats(BACKUP)
        raw_rates: list[float] = []
        shown_rates: list[float] = []
        try:
            for _ in range(seconds):
                world.advance(1)
                console.advance(1)
                await reader.chunklist()
                sample = await shown.read(client, BACKUP, console)
                plain = raw.sample(await client.stats(BACKUP), console.monotonic())
                raw_rates += [plain.rate_out_bps] if plain.rate_out_bps is not None else []
                shown_rates += [sample.rate_out_bps] if sample.rate_out_bps is not None else []
        finally:
            await reader.aclose()
        last = await client.stats(BACKUP)
        counted = (last.total_bytes_out or 0) - (first.total_bytes_out or 0)
        ledger = client.own_reads.bytes_read(BACKUP)
        reads = client.own_reads.reads_done
        print(f"{reads} reads of default/app/backup in {seconds} s (nobody else reads it)")
        print(f"  server counted {counted} bytes out ({counted / max(reads, 1):.0f} a read); the ledger "
              f"{ledger} ({ledger / max(counted, 1):.4f}x); peak connections on the server "
              f"{last.max_total_connections}")
        print(f"  out rate without taking the console's reads off: median {_median(raw_rates) / 1000:.2f} kb/s, "
              f"max {max(raw_rates, default=0) / 1000:.2f} kb/s")
        print(f"  out rate shown: max {max(shown_rates, default=0):.1f} b/s; bytes out shown "
              f"{sample.stats.total_bytes_out}; peak shown {sample.stats.max_total_connections} "
              f"(taken off: {sample.own_bytes_out} bytes, {sample.own_peak} of the peak)")


def journal_cost(reads: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "journal.jsonl"
        clock = FakeClock()
        writer, reader = OwnReads(clock.monotonic), OwnReads(clock.monotonic)
        writer.share(Journal(path))
        reader.share(Journal(path))
        started = time.process_time()
        for _ in range(reads):
            writer.closed(writer.opened("default", "app", "backup", url="u", cap=1 << 22), 880, url="u")
        written = time.process_time() - started
        started, marks = time.process_time(), 0
        while reader.bytes_read(BACKUP) < 880 * reads:  # a mark reads at most MAX_READ_BYTES of it
            reader.mark()
            marks += 1
        first = time.process_time() - started
        writer.closed(writer.opened("default", "app", "backup", url="u", cap=1 << 22), 880, url="u")
        started = time.process_time()
        reader.mark()
        one = time.process_time() - started
        print(f"journal: {reads} reads written in {written * 1e6 / reads:.0f} us CPU a read ({path.stat().st_size} "
              f"bytes); a process that starts then takes them in over {marks} marks, {first * 1000:.1f} ms CPU in all; "
              f"a mark with one "
              f"new read {one * 1e6:.0f} us")


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--journal-reads", type=int, default=18_000)
    args = parser.parse_args()
    asyncio.run(following(args.seconds))
    journal_cost(args.journal_reads)


if __name__ == "__main__":
    main()

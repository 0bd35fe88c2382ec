"""History store: what an ad break's or alert's span costs the writer, beside a sample.

Writes 10,000 spans (each told open, then ended: 20,000 observations over 100 streams) through the history
writer into a fresh store, and, in the same batch, 20,000 samples of the same 100 streams; alternates the two
`--rounds` times and prints the writer thread's CPU, its batch transactions' median and the bytes used. A console
tells a span a few times an hour per stream (a break's splice, its correction, its return; an alert firing and
resolving), so this is far more than a console writes: it shows the cost per span, and that a span's write does
not grow with the spans already stored (the take-over of a span still open is an index lookup).

    .venv/bin/python bench/bench_history_spans.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from history_support import SERVER, T0, Reading, observed

from omeconsole.core.history.observations import Observation, ObservedSpan
from omeconsole.core.history.settings import HistorySettings
from omeconsole.core.history.writer import HistoryWriter
from omeconsole.model.paths import NodePath

COUNT = 10_000
STREAMS = 100


def observations(kind: str) -> list[Observation]:
    found: list[Observation] = []
    for index in range(COUNT):
        path = NodePath("default", "app", f"s{index % STREAMS}")
        if kind == "spans":
            found += [ObservedSpan(SERVER, f"run-{index}", "ad break", path, T0 + index, None, "", "", "sent"),
                      ObservedSpan(SERVER, f"run-{index}", "ad break", path, T0 + index, T0 + index + 30, "", "",
                                   "sent")]
        else:
            found += [observed(Reading(T0 + index, index, index, 1), path),
                      observed(Reading(T0 + index + 0.5, index, index, 1), path)]
    return found


def run(kind: str) -> str:
    batch = observations(kind)
    with tempfile.TemporaryDirectory() as directory:
        writer = HistoryWriter.start(Path(directory) / "history.sqlite3", HistorySettings(), now=lambda: T0 + 2 * COUNT)
        for item in batch:
            writer.offer(item)
        stats = writer.close()
    return (f"{kind:<8} {len(batch):,} observations: writer CPU {stats.writer_cpu_s:.3f} s "
            f"({stats.writer_cpu_s / len(batch) * 1e6:.1f} µs each), transaction p50 "
            f"{(stats.transaction_p50_s or 0.0) * 1000:.0f} ms over {stats.batches} batches, "
            f"{stats.used_bytes / 1024:,.0f} KiB used")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for kind in ("samples", "spans"):
            print(run(kind), flush=True)


if __name__ == "__main__":
    main()

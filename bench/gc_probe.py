"""Run `omeconsole` with its garbage collections timed: `gc_probe.py LOG [console arguments...]`.

Each collection appends one line to LOG, `<generation> <pause in ms>`, from `gc.callbacks` (start and
stop of every collection, timed with `perf_counter`), so `bench_tui.py` can report the longest pause and
how many passed 50 ms. The console is imported from the working directory first (a baseline checkout
run from its own directory is measured the same way).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any


def install(log_path: str) -> None:
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 (open for the whole process)
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            log.write(f"{info['generation']} {(time.perf_counter() - started[0]) * 1000:.2f}\n")

    gc.callbacks.append(timed)


def pauses(log_path: str) -> list[tuple[int, float]]:
    """The (generation, ms) of every collection logged so far."""
    out = []
    with open(log_path) as log:
        for line in log:
            generation, ms = line.split()
            out.append((int(generation), float(ms)))
    return out


def main() -> int:
    install(sys.argv[1])
    sys.argv = ["omeconsole", *sys.argv[2:]]
    sys.path.insert(0, os.getcwd())
    from omeconsole.cli.main import main as console  # imported once the path is set

    return console()


if __name__ == "__main__":
    raise SystemExit(main())

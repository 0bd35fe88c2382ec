"""The median and the range of `bench_tui.py --json` launches: per program and window its CPU share, and per
round console ÷ floor and, when the batch has both, the table ÷ the tree (`--phase scale --phase table`).

A round of bench_tui launches every program once per phase; the k-th launch of a program in a phase is its
k-th round, so the ratios pair launches of the same round (run one after the other, under the same load).

    .venv/bin/python bench/bench_tui.py --phase scale --phase table --rounds 3 --json > launches.json
    .venv/bin/python bench/tui_spread.py launches.json
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def spread(values: list[float], shown: str) -> str:
    if not values:
        return "-"
    return (f"{shown.format(statistics.median(values))} "
            f"({shown.format(min(values))}-{shown.format(max(values))})")


def main(path: str) -> int:
    launches = json.loads(Path(path).read_text())
    # program -> window -> CPU share per round
    cpu: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rss: dict[tuple[str, str], list[float]] = defaultdict(list)
    for launch in launches:
        for window, share in launch["cpu"].items():
            cpu[launch["program"]][window].append(share)
        rss[launch["program"], launch["group"]].append(launch["peak_rss_mb"])
    windows = list(cpu["console"])
    print("median (min-max) over the rounds")
    print("| window | console | floor | console ÷ floor, per round |")
    print("|---|---|---|---|")
    for window in windows:
        ours, floors = cpu["console"][window], cpu["floor"][window]
        ratios = [a / b for a, b in zip(ours, floors, strict=False)]
        print(f"| {window} (CPU) | {spread(ours, '{:.1%}')} | {spread(floors, '{:.1%}')} | "
              f"{spread(ratios, '{:.2f}')} |")
    pairs = [("scale first 30 s", "scale table first 30 s"), ("scale steady", "scale table steady")]
    for tree, table in pairs:
        if tree in cpu["console"] and table in cpu["console"]:
            ours, theirs = cpu["console"][tree], cpu["console"][table]
            per_round = [b / a for a, b in zip(ours, theirs, strict=False)]
            normalised = [(b / fb) / (a / fa) for a, b, fa, fb in
                          zip(ours, theirs, cpu["floor"][tree], cpu["floor"][table], strict=False)]
            print(f"| table ÷ tree, {tree.removeprefix('scale ')} | raw {spread(per_round, '{:.2f}')} | "
                  f"| each ÷ its floor {spread(normalised, '{:.2f}')} |")
    for (program, group), values in sorted(rss.items()):
        print(f"| peak RSS, {program}, {group} | {spread(values, '{:.0f} MB')} | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))

"""The widgets as they were at a git revision, importable beside today's, for before/after benchmarks.

`load_baseline(rev)` writes the revision's tree model, tree widget and chart into a temporary
directory as `old_tree_model`, `old_node_tree` and `old_throughput_chart` (the tree widget's import of
the tree model pointed at the old copy) and puts it on `sys.path`, so one process measures both.
`parser`, `loaded` and `row` are the options, the loading and the table row both benchmarks share.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = {
    "old_tree_model": "omeconsole/core/tree_model.py",
    "old_node_tree": "omeconsole/ui/widgets/node_tree.py",
    "old_throughput_chart": "omeconsole/ui/widgets/throughput_chart.py",
}


def default_baseline() -> str:
    """Where this branch left main: the code before the widget changes."""
    done = subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("no merge base with main: give --baseline REV")
    return done.stdout.strip()


def parser(description: str | None, count: str, default_count: int) -> argparse.ArgumentParser:
    """The options both before/after benchmarks take: how many operations, rounds, which baseline."""
    made = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    made.add_argument(f"--{count}", type=int, default=default_count)
    made.add_argument("--rounds", type=int, default=3, help="rounds alternate which of the two goes first")
    made.add_argument("--baseline", help="git revision of the old code (default: the merge base with main)")
    return made


def loaded(args: argparse.Namespace) -> str:
    """Loads the baseline the arguments name (or the default) and returns its revision."""
    rev: str = args.baseline or default_baseline()
    load_baseline(rev)
    return rev


def row(label: str, before: list[float], after: list[float]) -> str:
    """`| label | median (p90) | median (p90) | after / before |`"""
    def shown(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} ({statistics.quantiles(values, n=10)[-1]:.1f})"

    ratio = statistics.median(after) / statistics.median(before)
    return f"| {label} | {shown(before)} | {shown(after)} | {ratio:.2f} |"


def load_baseline(rev: str) -> Path:
    directory = Path(tempfile.mkdtemp(prefix="omeconsole-baseline-"))
    for module, path in FILES.items():
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode != 0:
            raise SystemExit(f"{path} at {rev}: {shown.stderr.strip()}")
        source = shown.stdout.replace("from omeconsole.core.tree_model import", "from old_tree_model import")
        (directory / f"{module}.py").write_text(source)
    sys.path.insert(0, str(directory))
    return directory

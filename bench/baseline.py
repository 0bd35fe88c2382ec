"""The widgets as they were at a git revision, importable beside today's, for before/after benchmarks.

`load_baseline(rev)` writes the revision's tree model, tree widget and chart into a temporary
directory as `old_tree_model`, `old_node_tree` and `old_throughput_chart` (the tree widget's import of
the tree model pointed at the old copy) and puts it on `sys.path`, so one process measures both.
"""

from __future__ import annotations

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

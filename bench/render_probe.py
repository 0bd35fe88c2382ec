"""Run `omeconsole` (or `bench/floor_console.py`) with each widget's drawing counted and timed: what a redraw costs.

    .venv/bin/python bench/render_probe.py OUT [--floor] [console arguments...]

Run it in a terminal (tmux) as the console would be. After 10 s (the first screen is up) it counts, and
every 2 s rewrites OUT with, per widget: `render_lines` calls a second, the rows they covered and the
milliseconds of CPU a second they took; Textual's content renders (`_render_content`, a cache miss); and
for the node tree the rows Textual asked it to paint (`NodeTree.render_line`), the labels it looked up and
built, and the rows it drew anew (`draw_row`); for the floor, Textual's `Tree.render_line`. It patches
Textual's and the console's methods (Textual 8.2.8): a measuring tool, not part of the console.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WARM = 10.0
counted: collections.defaultdict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
since: list[float] = []


def _count(key: str, started: float, rows: int = 1) -> None:
    if since:
        entry = counted[key]
        entry[0] += rows
        entry[1] += time.perf_counter() - started


def timed(owner: Any, name: str, key: str) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _count(key, started)

    setattr(owner, name, wrapper)


def install_widgets() -> None:
    from textual.widget import Widget

    render_lines = Widget.render_lines

    def counting_render_lines(self: Widget, crop: Any) -> Any:
        started = time.perf_counter()
        try:
            return render_lines(self, crop)
        finally:
            name = f"{type(self).__name__}#{self.id}" if self.id else type(self).__name__
            _count(f"render_lines {name}", started)
            _count(f"rows covered {name}", time.perf_counter(), crop.height)

    Widget.render_lines = counting_render_lines  # type: ignore[method-assign]
    timed(Widget, "_render_content", "Widget._render_content (all widgets)")


def install_tree() -> None:
    from omeconsole.ui.widgets import node_tree, tree_drawing, tree_labels

    timed(node_tree.NodeTree, "render_line", "NodeTree.render_line (rows painted)")
    timed(tree_labels.TreeLabels, "label", "TreeLabels.label (labels looked up)")
    timed(tree_drawing, "draw_row", "draw_row (rows drawn anew)")
    timed(tree_labels, "node_label", "node_label (labels built)")


def report(out: str) -> None:
    time.sleep(WARM)
    since.append(time.monotonic())
    while True:
        time.sleep(2)
        elapsed = time.monotonic() - since[0]
        lines = [f"seconds counted: {elapsed:.1f}"]
        for key, (calls, seconds) in sorted(counted.items()):
            lines.append(f"{key:48s} per s {calls / elapsed:8.1f}  ms/s {1000 * seconds / elapsed:7.2f}")
        Path(out).write_text("\n".join(lines) + "\n")


def main() -> int:
    out, args = sys.argv[1], sys.argv[2:]
    install_widgets()
    threading.Thread(target=report, args=(out,), daemon=True).start()
    if args[:1] == ["--floor"]:
        from textual.widgets import Tree

        timed(Tree, "render_line", "Tree.render_line (rows painted)")
        sys.path.insert(0, str(Path(__file__).parent))
        sys.argv = ["floor_console.py", *args[1:]]
        from floor_console import main as run_floor

        return run_floor()
    install_tree()
    sys.argv = ["omeconsole", *args]
    from omeconsole.cli.main import main as console

    return console()


if __name__ == "__main__":
    raise SystemExit(main())

"""The floor: a bare Textual app with the console's visible widgets, updated once a second, no HTTP.

What the console cannot go below on this stack: a tree (Textual's own), one plotext chart of 60
points, three sparklines, a small table and a footer, every one of them given new data each second
(the labels of the tree rows on screen, the chart rebuilt, the sparklines and table cells replaced).
`--streams 10000` gives the tree the `scale` scenario's shape (4 hosts x 25 applications x 100
streams); the default is the `demo` shape (8 streams). Tree rows show "● live" like the console's, so
`bench_tui.py` finds the floor's first frame the way it finds the console's first data.

    .venv/bin/python bench/floor_app.py [--streams 10000]
"""

from __future__ import annotations

import argparse
import math
import random
from collections import deque
from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Sparkline, Static, Tree
from textual_plotext import PlotextPlot

DEMO_SHAPE = {"default": {"app": ["backup", "news", "sports", "stream"],
                          "live": ["church", "concert", "lobby-cam", "studio-b"]}}


def scale_shape() -> dict[str, dict[str, list[str]]]:
    return {f"vh{v}": {f"app{a:03d}": [f"s{a:03d}{s:02d}" for s in range(100)] for a in range(25)} for v in range(4)}


def fill_tree(tree: Tree[str], shape: dict[str, dict[str, list[str]]], *, label_parents: bool) -> None:
    """Hosts, applications and streams, all open, the root hidden. A node with data gets new figures each
    second: the streams, and (`label_parents`) the hosts and applications as the console's tree has them."""
    tree.show_root = False
    for vhost, apps in shape.items():
        host = tree.root.add(vhost, data=vhost if label_parents else None, expand=True)
        for app, names in apps.items():
            branch = host.add(app, data=app if label_parents else None, expand=True)
            for name in names:
                branch.add_leaf(name, data=name)


class FloorApp(App[None]):
    CSS = """
    #tree { width: 72; }
    #side { width: 1fr; }
    #header { height: 2; padding: 0 1; }
    PlotextPlot { height: 12; }
    Sparkline { height: 1; margin: 0 1; }
    DataTable { height: 8; }
    """
    BINDINGS = [("q", "quit", "Quit"), ("p", "pause", "Pause"), ("r", "refresh_now", "Refresh"),
                ("s", "sort", "Sort"), ("slash", "filter", "Filter")]

    def __init__(self, shape: dict[str, dict[str, list[str]]]) -> None:
        super().__init__()
        self.shape = shape
        self.random = random.Random(7)
        self.history: deque[float] = deque(maxlen=60)
        self.ticks = 0

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Tree("servers", id="tree")
            with Vertical(id="side"):
                yield Static(id="header")
                yield PlotextPlot()
                yield Sparkline([], id="spark-in")
                yield Sparkline([], id="spark-out")
                yield Sparkline([], id="spark-viewers")
                yield DataTable(id="table")
        yield Footer()

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        fill_tree(tree, self.shape, label_parents=False)
        table = self.query_one(DataTable)
        table.add_column("protocol", key="protocol")
        table.add_column("connections", key="connections")
        for protocol in ("llhls", "hlsv3", "webrtc", "srt"):
            table.add_row(protocol, "0", key=protocol)
        tree.focus()
        self.tick()
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.ticks += 1
        rate = 5e6 + 4e5 * math.sin(self.ticks / 6) + self.random.uniform(-1e5, 1e5)
        self.history.append(rate)
        tree = self.query_one(Tree)
        top = int(tree.scroll_offset.y)
        for line in range(top, top + tree.size.height):
            node = tree.get_node_at_line(line)
            if node is not None and node.data is not None:
                viewers = self.random.randint(0, 500)
                node.set_label(f"{node.data}  ● live  {viewers} viewers  in {rate / 1e6:.2f} Mb/s  "
                               f"out {viewers * rate / 1e9:.2f} Gb/s")
        self.query_one("#header", Static).update(f"stream default/app/news  ● live  in {rate / 1e6:.2f} Mb/s")
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.plot(list(range(-len(self.history) + 1, 1)), [r / 1e6 for r in self.history], marker="braille")
        plt.title("bit rate in")
        plot.refresh()
        data = list(self.history)
        self.query_one("#spark-in", Sparkline).data = data
        self.query_one("#spark-out", Sparkline).data = [r * 30 for r in data]
        self.query_one("#spark-viewers", Sparkline).data = [r / 1e4 for r in data]
        table = self.query_one(DataTable)
        for protocol in ("llhls", "hlsv3", "webrtc", "srt"):
            table.update_cell(protocol, "connections", str(self.random.randint(0, 50)))

    def action_pause(self) -> None:
        pass

    def action_refresh_now(self) -> None:
        self.tick()

    def action_sort(self) -> None:
        pass

    def action_filter(self) -> None:
        pass


def run_floor(floor: Callable[[dict[str, dict[str, list[str]]]], App[None]], description: str | None) -> int:
    """A floor's command line: `--streams 8` (the `demo` shape) or `--streams 10000` (the `scale` shape)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, choices=(8, 10_000), default=8)
    args = parser.parse_args()
    floor(scale_shape() if args.streams == 10_000 else DEMO_SHAPE).run()
    return 0


def main() -> int:
    return run_floor(FloorApp, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())

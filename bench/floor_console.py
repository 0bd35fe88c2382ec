"""The floor as the console's screen is today: the same visible widgets, stock Textual, no HTTP.

`floor_app.py` is the floor the performance issue described (a tree, one plotext chart, three sparklines,
a small table, a footer). The console's dashboard has since grown: two plotext charts (in and out), two
sparkline rows with their numbers, inbound and outbound connection bars, a totals panel, a source and
tracks panel, a status line and a footer beside the tree; Enter opens the stream's own screen with the
same detail at full width under a breadcrumb. This app draws that picture from made-up readings, with
Textual's stock widgets (Tree, PlotextPlot, Sparkline, Static, Footer), at the console's cadence: every
panel given new figures once a second, the two charts rebuilt every 2 s (the console's `CHART_GAP`), the
status line's data age every second. A hidden screen is not updated (the console's is not either).

    .venv/bin/python bench/floor_console.py [--streams 10000]
"""

from __future__ import annotations

import math
import random
from collections import deque

from floor_app import fill_tree, run_floor
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, Sparkline, Static, Tree
from textual.widgets.tree import TreeNode
from textual_plotext import PlotextPlot

CHART_GAP_TICKS = 2
"""The console rebuilds its charts every 2 s (omeconsole.live.pace.CHART_GAP)."""
PROTOCOLS_IN = ("srt",)
PROTOCOLS_OUT = ("hlsv3", "llhls", "srt", "webrtc")

CSS = """
#body { height: 1fr; }
#tree { width: 75; }
Detail { width: 1fr; }
#header { height: 1; padding: 0 1; }
#charts { height: 1fr; min-height: 8; }
PlotextPlot { width: 1fr; }
.spark-row { height: 1; padding: 0 1; }
.spark-row > .caption { width: 5; }
.spark-row > Sparkline { width: 1fr; }
.spark-row > .numbers { width: auto; padding-left: 1; }
#bars { height: auto; }
#bars-in { height: 4; }
#bars-out { height: 7; }
#lower { height: auto; }
StreamScreen #lower { layout: horizontal; }
.panel { width: 1fr; height: auto; border: round $primary; padding: 0 1; text-wrap: nowrap; }
#status, #breadcrumb { height: 1; padding: 0 1; }
"""


class Readings:
    """Made-up figures moving like a stream's: one step per second."""

    def __init__(self) -> None:
        self.random = random.Random(7)
        self.ticks = 0
        self.rate_in: deque[float] = deque(maxlen=60)
        self.rate_out: deque[float] = deque(maxlen=60)

    def step(self) -> None:
        self.ticks += 1
        self.rate_in.append(3e6 + 2e5 * math.sin(self.ticks / 6) + self.random.uniform(-5e4, 5e4))
        self.rate_out.append(self.rate_in[-1] * (28 + 3 * math.sin(self.ticks / 9)))

    def count(self, high: int) -> int:
        return self.random.randint(0, high)


def mbps(value: float) -> str:
    return f"{value / 1e6:.2f} Mb/s"


class Detail(Vertical):
    """The console's NodeDetail: header, two charts, two sparkline rows, bars, totals, tracks."""

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="charts"):
            yield PlotextPlot(id="chart-in")
            yield PlotextPlot(id="chart-out")
        for caption in ("in", "out"):
            with Horizontal(classes="spark-row"):
                yield Label(caption, classes="caption")
                yield Sparkline([], id=f"spark-{caption}")
                yield Label("", id=f"numbers-{caption}", classes="numbers")
        with Horizontal(id="bars"):
            yield Static(id="bars-in", classes="panel")
            yield Static(id="bars-out", classes="panel")
        with Vertical(id="lower"):
            yield Static(id="totals", classes="panel")
            yield Static(id="tracks", classes="panel")

    def on_mount(self) -> None:
        self.query_one("#bars-in").border_title = "inbound (providers)"
        self.query_one("#bars-out").border_title = "outbound (publishers)"
        self.query_one("#totals").border_title = "totals"
        self.query_one("#tracks").border_title = "source and tracks"

    def show(self, readings: Readings) -> None:
        rate_in, rate_out = readings.rate_in[-1], readings.rate_out[-1]
        viewers = readings.count(40)
        self.query_one("#header", Static).update(
            f"stream default/app/news  ● live  srt  {viewers} viewers  in {mbps(rate_in)}  out {mbps(rate_out)}")
        if readings.ticks % CHART_GAP_TICKS == 1:
            for name, series in (("in", readings.rate_in), ("out", readings.rate_out)):
                plt = self.query_one(f"#chart-{name}", PlotextPlot).plt
                plt.clear_data()
                plt.plot(list(range(-len(series) + 1, 1)), [r / 1e6 for r in series], marker="braille")
                plt.title(f"bit rate {name} · last 1 min")
                plt.xlim(-60, 0)
                plt.xticks([-60, -45, -30, -15, 0], ["-60s", "-45s", "-30s", "-15s", "now"])
                self.query_one(f"#chart-{name}", PlotextPlot).refresh()
        for name, series in (("in", readings.rate_in), ("out", readings.rate_out)):
            self.query_one(f"#spark-{name}", Sparkline).data = list(series)
            self.query_one(f"#numbers-{name}", Label).update(
                f"{mbps(series[-1])}  min {min(series) / 1e6:.2f}  max {max(series) / 1e6:.2f}")
        for name, protocols, rest in (("in", PROTOCOLS_IN, "9 more at 0"), ("out", PROTOCOLS_OUT, "4 more at 0")):
            panel = self.query_one(f"#bars-{name}", Static)
            panel.update(self._bars(readings, protocols, rest, panel.content_size.width))
        self.query_one("#totals", Static).update("\n".join((
            f"bytes in            {readings.ticks * 0.37:.2f} MiB",
            f"bytes out           {readings.ticks * 10.4:.2f} MiB",
            f"rate in / out       {mbps(rate_in)} / {mbps(rate_out)}",
            f"peak in / out       {mbps(max(readings.rate_in))} / {mbps(max(readings.rate_out))}",
            f"server avg in / out {mbps(sum(readings.rate_in) / len(readings.rate_in))} / "
            f"{mbps(sum(readings.rate_out) / len(readings.rate_out))}",
            f"server max in / out {mbps(max(readings.rate_in))} / {mbps(max(readings.rate_out))}",
            f"connections         {viewers}",
            f"peak connections    {viewers + 5} at 2026-11-25 08:06:15 +0000",
            "created             2026-11-25 08:06:12 +0000",
            f"last updated        2026-11-25 08:{readings.ticks // 60 % 60:02d}:{readings.ticks % 60:02d} +0000",
            "read                every 1.0 s",
            f"data age            0.{readings.count(9)} s")))
        self.query_one("#tracks", Static).update("\n".join((
            "source SRT",
            "track codec         size     fps bit rate    keyframes",
            f"video H264          1280x720 30  {mbps(rate_in - 128e3)}   30 frames",
            "audio AAC 48kHz 2ch n/a      n/a 128.00 kb/s n/a",
            "data  n/a           n/a      n/a n/a         n/a")))

    @staticmethod
    def _bars(readings: Readings, protocols: tuple[str, ...], rest: str, width: int) -> str:
        counts = {protocol: readings.count(20) + 1 for protocol in protocols}
        widest, room = max(counts.values()), max(10, width - 10) if width > 20 else 20
        lines = [f"{protocol:<6} {'█' * (room * count // widest):<{room}} {count:>2}"
                 for protocol, count in counts.items()]
        return "\n".join((*lines, rest))


class StreamScreen(Screen[None]):
    """The console's stream screen: breadcrumb, the detail at full width, status line, footer."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Static("127.0.0.1:40811 / default / app / news", id="breadcrumb")
        yield Detail()
        yield Static(id="status")
        yield Footer()


class FloorConsoleApp(App[None]):
    CSS = CSS
    BINDINGS = [Binding("enter", "open_stream", "Open", priority=True),
                *(Binding(key, f"noop('{name}')", name) for key, name in (
                    ("o", "Cue-out"), ("i", "Cue-in"), ("m", "ID3"), ("a", "Ad break"), ("p", "Pause"),
                    ("r", "Refresh"), ("w", "Window"), ("e", "Export"), ("slash", "Filter"), ("s", "Sort"),
                    ("question_mark", "Help"))),
                Binding("q", "quit", "Quit")]

    def __init__(self, shape: dict[str, dict[str, list[str]]]) -> None:
        super().__init__()
        self.shape = shape
        self.readings = Readings()

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield Tree("servers", id="tree")
            yield Detail()
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        fill_tree(tree, self.shape, label_parents=True)
        tree.focus()
        self.tick()
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.readings.step()
        screen = self.screen
        if not isinstance(screen, StreamScreen):
            self._label_visible_rows(screen.query_one(Tree))
        screen.query_one(Detail).show(self.readings)
        screen.query_one("#status", Static).update(
            f"● connected  127.0.0.1:40811   DEMO   every 1 s  age 0.{self.readings.count(9)} s  "
            "enterprise 0.20.5.0-1 (v2)  sort: name  default/app/news")

    def _label_visible_rows(self, tree: Tree[str]) -> None:
        rate = self.readings.rate_in[-1]
        top = int(tree.scroll_offset.y)
        for line in range(top, top + tree.size.height):
            node: TreeNode[str] | None = tree.get_node_at_line(line)
            if node is not None and node.data is not None:
                viewers = self.readings.count(500)
                node.set_label(f"{node.data}  ● live  srt  {viewers} viewers  in {mbps(rate)}  "
                               f"out {mbps(viewers * rate / 10)}")

    def action_open_stream(self) -> None:
        if not isinstance(self.screen, StreamScreen):
            self.push_screen(StreamScreen())

    def action_noop(self, name: str) -> None:
        """The console's keys, in its footer; what they do is not part of the floor."""


def main() -> int:
    return run_floor(FloorConsoleApp, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())

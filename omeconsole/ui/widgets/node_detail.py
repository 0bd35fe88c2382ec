"""Everything about one node: header with badges, bit-rate chart, sparklines, connection bars, totals,
and for a stream its source and tracks.

Used by the dashboard (beside the tree) and by the full-screen node view. Widgets are composed once
and updated in place; nothing is mounted or removed per tick, and a hidden detail is not redrawn.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.model.nodes import NodeView
from omeconsole.ui.badges import name_text, node_badges
from omeconsole.ui.widgets.chart_scale import WINDOWS
from omeconsole.ui.widgets.connection_bars import ConnectionBars
from omeconsole.ui.widgets.rate_sparkline import RateSparkline
from omeconsole.ui.widgets.stream_info_panel import StreamInfoPanel
from omeconsole.ui.widgets.throughput_chart import Series, ThroughputChart
from omeconsole.ui.widgets.totals_panel import TotalsPanel

LEVEL_WORDS = {"vhost": "virtual host", "app": "application", "stream": "stream"}


def chart_series(view: NodeView, now: float, window: float) -> list[Series]:
    """In and out bit rates of the last `window` seconds, against seconds before now."""
    recent = view.history[bisect_left(view.history, now - window, key=lambda s: s.at):]
    xs = [round(s.at - now, 3) for s in recent]
    return [
        Series("bit rate in", xs, [s.rate_in_bps for s in recent], "rate-in"),
        Series("bit rate out", xs, [s.rate_out_bps for s in recent], "rate-out"),
    ]


class NodeDetail(VerticalScroll):
    """Call `show(view, now)` after each engine update; it redraws only what changed."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._drawn_at: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="detail-header")
        yield ThroughputChart(id="detail-chart")
        with Vertical(id="detail-sparks"):
            yield RateSparkline("in", "rate-in", id="spark-in")
            yield RateSparkline("out", "rate-out", id="spark-out")
        with Horizontal(id="detail-connections"):
            yield ConnectionBars("inbound (providers)", PROVIDER_PROTOCOLS, id="bars-in")
            yield ConnectionBars("outbound (publishers)", PUBLISHER_PROTOCOLS, id="bars-out")
        with Horizontal(id="detail-lower"):
            yield TotalsPanel(id="detail-totals")
            yield StreamInfoPanel(id="detail-info")

    def clear(self, message: str) -> None:
        """Nothing selected: only the message shows."""
        self._drawn_at = None
        self.query_one("#detail-header", Static).update(Text(message, style=self.app.theme_variables.get("muted", "")))
        self.add_class("-empty")

    def show(self, view: NodeView, now: float, window: float = WINDOWS[0]) -> None:
        """`window`: seconds of history the chart and sparklines show, ending now."""
        if not self.is_mounted or not self.display:
            return
        colours = self.app.theme_variables
        header = Text(f"{LEVEL_WORDS[view.path.level]} ", style=colours.get("muted", ""))
        header.append_text(name_text(str(view.path), colours))
        header.append("  ")
        header.append_text(node_badges(view, colours))
        if view.error:
            header.append(f"\n{view.error}", style=colours.get("state-stale", ""))
        self.query_one("#detail-header", Static).update(header, layout=False)
        self.remove_class("-empty")
        latest = view.latest
        key = (view.path, view.state, latest.at if latest else None, self.app.theme, window)
        self.query_one(TotalsPanel).show(view, now)
        info = self.query_one(StreamInfoPanel)
        info.display = view.path.level == "stream"
        if info.display:
            info.show(view.info)
        chart = self.query_one(ThroughputChart)
        chart.window = window
        chart_gap = float(getattr(self.app, "chart_gap", 0.0))
        if key == self._drawn_at:
            chart.flush(now, chart_gap)  # a chart update held back by its gap is drawn once the gap has passed
            return
        same_node = self._drawn_at is not None and self._drawn_at[0] == view.path
        self._drawn_at = key
        # Another node's chart is drawn at once; the same node's new points may wait for the gap.
        series = chart_series(view, latest.at if latest else now, window)
        chart.set_series(series, now=now, min_gap=chart_gap if same_node else 0.0)
        self.query_one("#spark-in", RateSparkline).show(series[0].ys)
        self.query_one("#spark-out", RateSparkline).show(series[1].ys)
        stats = latest.stats if latest else None
        self.query_one("#bars-in", ConnectionBars).show(stats.connections_in if stats else None, fresh=not same_node)
        self.query_one("#bars-out", ConnectionBars).show(stats.connections_out if stats else None, fresh=not same_node)

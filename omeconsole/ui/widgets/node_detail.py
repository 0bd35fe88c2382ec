"""Everything about one node: header with badges, bit-rate chart, sparklines, connection bars, totals,
and for a stream its source and tracks.

Used by the dashboard (beside the tree) and by the full-screen node view. Widgets are composed once
and updated in place; nothing is mounted or removed per tick, and a hidden detail is not redrawn.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.model.nodes import NodeView
from omeconsole.ui.badges import node_badges
from omeconsole.ui.widgets.connection_bars import ConnectionBars
from omeconsole.ui.widgets.rate_sparkline import RateSparkline
from omeconsole.ui.widgets.stream_info_panel import StreamInfoPanel
from omeconsole.ui.widgets.throughput_chart import Series, ThroughputChart
from omeconsole.ui.widgets.totals_panel import TotalsPanel

LEVEL_WORDS = {"vhost": "virtual host", "app": "application", "stream": "stream"}


def chart_series(view: NodeView, now: float) -> list[Series]:
    """In and out bit rates against seconds before now."""
    xs = [round(s.at - now, 3) for s in view.history]
    return [
        Series("in", xs, [s.rate_in_bps for s in view.history], "rate-in"),
        Series("out", xs, [s.rate_out_bps for s in view.history], "rate-out"),
    ]


class NodeDetail(VerticalScroll):
    """Call `show(view, now)` after each engine update; it redraws only what changed."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._drawn_at: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="detail-header")
        yield ThroughputChart(title="bit rate in / out", id="detail-chart")
        with Vertical(id="detail-sparks"):
            yield RateSparkline("in", id="spark-in")
            yield RateSparkline("out", id="spark-out")
        with Horizontal(id="detail-connections"):
            yield ConnectionBars("inbound (providers)", PROVIDER_PROTOCOLS, id="bars-in")
            yield ConnectionBars("outbound (publishers)", PUBLISHER_PROTOCOLS, id="bars-out")
        with Horizontal(id="detail-lower"):
            yield TotalsPanel(id="detail-totals")
            yield StreamInfoPanel(id="detail-info")

    def clear(self, message: str) -> None:
        """Nothing selected: only the message shows."""
        self._drawn_at = None
        self.query_one("#detail-header", Static).update(Text(message, style="dim"))
        self.add_class("-empty")

    def show(self, view: NodeView, now: float) -> None:
        if not self.is_mounted or not self.display:
            return
        colours = self.app.theme_variables
        header = Text(f"{LEVEL_WORDS[view.path.level]} ", style="dim")
        header.append(str(view.path), style="bold")
        header.append("  ")
        header.append_text(node_badges(view, colours))
        if view.error:
            header.append(f"\n{view.error}", style=colours.get("state-stale", ""))
        self.query_one("#detail-header", Static).update(header, layout=False)
        self.remove_class("-empty")
        latest = view.latest
        key = (view.path, view.state, latest.at if latest else None, self.app.theme)
        self.query_one(TotalsPanel).show(view, now)
        info = self.query_one(StreamInfoPanel)
        info.display = view.path.level == "stream"
        if info.display:
            info.show(view.info)
        chart = self.query_one(ThroughputChart)
        chart_gap = float(getattr(self.app, "chart_gap", 0.0))
        if key == self._drawn_at:
            chart.flush(now, chart_gap)  # a chart update held back by its gap is drawn once the gap has passed
            return
        same_node = self._drawn_at is not None and self._drawn_at[0] == view.path
        self._drawn_at = key
        # Another node's chart is drawn at once; the same node's new points may wait for the gap.
        chart.set_series(chart_series(view, latest.at if latest else now), now=now,
                         min_gap=chart_gap if same_node else 0.0)
        self.query_one("#spark-in", RateSparkline).show([s.rate_in_bps for s in view.history])
        self.query_one("#spark-out", RateSparkline).show([s.rate_out_bps for s in view.history])
        stats = latest.stats if latest else None
        self.query_one("#bars-in", ConnectionBars).show(stats.connections_in if stats else None)
        self.query_one("#bars-out", ConnectionBars).show(stats.connections_out if stats else None)

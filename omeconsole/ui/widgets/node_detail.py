"""Everything about one node: header with badges, bit-rate chart, viewers chart, sparklines, connection bars, totals,
and for a stream its source and tracks.

Used by the dashboard (beside the tree) and by the full-screen node view. Widgets are composed once
and updated in place; nothing is mounted or removed per tick, and a hidden detail is not redrawn.
The data comes in through `show(view, now, window, notes)`; when the panels do not all fit, the last
line says which are below the fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.core.chart_scale import WINDOWS
from omeconsole.live.pace import chart_gap_for
from omeconsole.live.playback import Playback
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.readings import Sample
from omeconsole.ui.badges import badge_parts, name_text
from omeconsole.ui.fitting import Part, chosen, joined
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, PaletteFollower
from omeconsole.ui.widgets.connection_bars import ConnectionBars
from omeconsole.ui.widgets.event_list import EventList, ShownEvents, chart_marks
from omeconsole.ui.widgets.playback_panel import PlaybackPanel
from omeconsole.ui.widgets.rate_sparkline import RateSparkline
from omeconsole.ui.widgets.stream_info_panel import StreamInfoPanel
from omeconsole.ui.widgets.throughput_chart import ChartMark, Series, ThroughputChart
from omeconsole.ui.widgets.totals_panel import TotalsPanel
from omeconsole.ui.widgets.viewers_series import viewers_chart

WIDE_DETAIL = 120
"""From this width the totals and the source and tracks sit side by side."""
LEVEL_WORDS = {"vhost": "virtual host", "app": "application", "stream": "stream"}
ESSENTIAL = 2
"""The header's parts up to this priority (state, viewers, rates) are kept before the node's whole path."""
BARS_IN, BARS_OUT = "inbound (providers)", "outbound (publishers)"


def chart_series(view: NodeView, now: float, window: float) -> list[Series]:
    """In and out bit rates of the last `window` seconds, against seconds before now: from the node's
    compact series (an hour long), else from its full readings."""
    since = now - window
    if len(view.series):
        columns = view.series.columns(since)
        at, rate_in, rate_out = columns.at, columns.rate_in_bps, columns.rate_out_bps
    else:
        recent: Sequence[Sample] = [s for s in view.history if s.at >= since]
        at = [s.at for s in recent]
        rate_in, rate_out = [s.rate_in_bps for s in recent], [s.rate_out_bps for s in recent]
    xs = [round(t - now, 3) for t in at]
    return [Series("bit rate in", xs, rate_in, "rate-in"), Series("bit rate out", xs, rate_out, "rate-out")]


def ended_clock(view: NodeView) -> str:
    """When an ended stream was last seen live, as the server's last reading says (`12:03:04`, local time);
    "time not known" without one. Its chart ends there and its panels are what was last known then."""
    latest = view.latest
    moment = None if latest is None else (latest.stats.last_recv or latest.stats.last_updated)
    return "time not known" if moment is None else moment.astimezone().strftime("%H:%M:%S")


def header_line(view: NodeView, colours: dict[str, str], width: int | None, now: float | None = None) -> Text:
    """`stream default/app/news  ● live  srt  21 viewers · 1 relay  in 2.97 Mb/s  out 66.40 Mb/s  up 3 min 05 s`
    in `width` columns: the least useful parts go first (the level's word, the console's own reads, the
    other connections, the input, the uptime; see `badges.badge_parts`); when even the viewers or a rate
    would go, the path gives way to the node's name (the tree or the breadcrumb says where it is). `now`:
    the screen's instant (a stream's uptime)."""
    level = Part(Text(LEVEL_WORDS[view.path.level], style=colours.get("muted", "")), 7)
    parts: list[Part] = []
    kept: set[int] = set()
    for shown in (str(view.path), view.path.name):
        parts = [level, Part(name_text(shown, colours), 0, separator=" "),
                 *badge_parts(view, colours, own=True, now=now)]
        kept = chosen(parts, width)
        if all(part.priority > ESSENTIAL for index, part in enumerate(parts) if index not in kept):
            break
    return joined(parts, kept)


def header_text(view: NodeView, colours: dict[str, str], notes: Text | None, width: int | None = None,
                now: float | None = None) -> Text:
    """The header line fitted to `width` (see `header_line`), then the screen's notes and the node's error
    (each cut with `…` by the stylesheet)."""
    header = header_line(view, colours, width, now)
    if notes:
        header.append("\n")
        header.append_text(notes)
    if view.error:
        header.append("\n")
        header.append_text(name_text(view.error, colours, style=colours.get("state-stale", "")))
    return header


class NodeDetail(VerticalScroll):
    """Call `show(view, now, window)` after each engine update; it redraws only what changed."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def __init__(self, *, chart_gap: float = 0.0, fold_hint: str = "scroll", **options: Any) -> None:
        """`chart_gap`: seconds between rebuilds of the same node's chart (see `ThroughputChart`);
        `fold_hint`: how to reach what is below the fold, said after the list of it."""
        super().__init__(**options)
        self._chart_gap = chart_gap
        self._fold_hint = fold_hint
        self._drawn_at: tuple[object, ...] | None = None
        self._fold = ("", "")
        self._header: Text | None = None
        self._headed: tuple[NodeView, Text | None, float] | None = None
        """What the header was last made of: it is fitted again when the detail's width changes."""
        self._palette = PaletteFollower(self, self._draw_header_again)

    def compose(self) -> ComposeResult:
        yield Static(id="detail-header")
        yield ThroughputChart(id="detail-chart")
        yield ThroughputChart(panels=1, id="detail-viewers")
        yield EventList(id="detail-events")
        with Vertical(id="detail-sparks"):
            yield RateSparkline("in", "rate-in", id="spark-in")
            yield RateSparkline("out", "rate-out", id="spark-out")
        with Horizontal(id="detail-connections"):
            yield ConnectionBars(BARS_IN, PROVIDER_PROTOCOLS, id="bars-in")
            yield ConnectionBars(BARS_OUT, PUBLISHER_PROTOCOLS, id="bars-out")
        with Horizontal(id="detail-lower"):
            yield TotalsPanel(id="detail-totals")
            yield StreamInfoPanel(id="detail-info")
        yield PlaybackPanel(id="detail-playback")
        yield Static(id="detail-fold")

    def clear(self, message: str | Text) -> None:
        """No node selected: only the message shows (a string in muted colour, or text as styled)."""
        self._drawn_at = None
        self._headed = None
        shown = message if isinstance(message, Text) else Text(message, style=self._palette.built_with()["muted"])
        self._show_header(shown)
        self.add_class("-empty")

    def _show_header(self, text: Text) -> None:
        """The header's height is its number of lines (it does not wrap): only a change of that needs the
        screen laid out again, and a layout pass repaints every widget of the screen."""
        if text == self._header:
            return
        lines = text.plain.count("\n")
        relayout = self._header is None or self._header.plain.count("\n") != lines
        self._header = text
        self.query_one("#detail-header", Static).update(text, layout=relayout)

    def show(self, view: NodeView, now: float, window: float = WINDOWS[0], notes: Text | None = None,
             events: ShownEvents | None = None, playback: Playback | None = None) -> None:
        """`window`: seconds of history the chart and sparklines show, ending now; `notes`: a line under the
        header (an ad break, alerts) the screen composed; `events`: what happened to the node (on the chart
        and listed under it); `playback`: a stream's playback URLs."""
        if not self.is_mounted or not self.display:
            return
        self._headed = (view, notes, now)
        self._show_header(header_text(view, self._palette.built_with(), notes, self._header_width(), now))
        self.remove_class("-empty")
        latest = view.latest
        key = (view.path, view.state, latest.at if latest else None, self.app.theme, window)
        self.query_one(TotalsPanel).show(view, now)
        ended = view.state is NodeState.ENDED
        last_known = ended_clock(view) if ended else None
        info = self.query_one(StreamInfoPanel)
        info.display = view.path.level == "stream"
        if info.display:
            info.show(view.info, last_known)
        urls = self.query_one(PlaybackPanel)
        urls.display = playback is not None and not ended
        urls.show(playback)
        chart, viewers = self.query_one("#detail-chart", ThroughputChart), self.query_one("#detail-viewers",
                                                                                           ThroughputChart)
        reference = latest.at if latest else now
        marks = self._show_events(events, reference)
        if key == self._drawn_at:  # an update held back by its gap is drawn once the gap has passed
            for each in (chart, viewers):
                each.show(None, window=window, marks=marks, ended=last_known, now=now, min_gap=self._chart_gap)
            return
        same_node = self._drawn_at is not None and self._drawn_at[0] == view.path
        self._drawn_at = key
        # Another node's chart is drawn at once; the same node's new points may wait for the gap.
        series = chart_series(view, reference, window)
        gap = chart_gap_for(self._chart_gap, same_node=same_node)
        chart.show(series, window=window, marks=marks, ended=last_known, now=now, min_gap=gap)
        viewers.show([viewers_chart(view, reference, window)], window=window, marks=marks, ended=last_known, now=now,
                     min_gap=gap)
        spark_in, spark_out = self.query_one("#spark-in", RateSparkline), self.query_one("#spark-out", RateSparkline)
        spark_in.show(series[0].ys, fresh=not same_node, xs=series[0].xs, window=window)
        spark_out.show(series[1].ys, fresh=not same_node, xs=series[1].xs, window=window)
        for spark in (spark_in, spark_out):  # the same width of bars: a column is the same instant in both
            spark.pad_numbers_to(max(spark_in.numbers_width, spark_out.numbers_width))
        # An ended stream shows its connections as last known (its last reading), and says so.
        shown = view.latest if ended else view.current
        stats = shown.stats if shown else None
        for selector, title, counts in (("#bars-in", BARS_IN, stats.connections_in if stats else None),
                                        ("#bars-out", BARS_OUT, stats.connections_out if stats else None)):
            bars = self.query_one(selector, ConnectionBars)
            bars.border_title = f"{title}, last known" if ended else title
            bars.show(counts, fresh=not same_node)
        self.call_after_refresh(self._say_what_is_below)

    def _show_events(self, events: ShownEvents | None, reference: float) -> Sequence[ChartMark]:
        """The events in the list, and as the charts' marks (against the instant their series are drawn
        against)."""
        listed = self.query_one(EventList)
        if events is None:
            listed.display = False
            return ()
        listed.show(events)
        return chart_marks(events, reference)

    def _header_width(self) -> int | None:
        """The header's columns (its padding off); None before the first layout."""
        width = self.scrollable_content_region.width - self.query_one("#detail-header").styles.padding.width
        return width if width > 0 else None

    def on_resize(self) -> None:
        # Totals beside the source and tracks when there is room for both, one above the other otherwise.
        self.set_class(self.size.width >= WIDE_DETAIL, "-wide")
        self._draw_header_again()

    def watch_virtual_size(self) -> None:
        # A panel shown or hidden changes the content's height after the redraw that asked for it: the fold's words
        # are judged again on the layout that results (else a fold said for a taller panel stayed once it went).
        self.call_after_refresh(self._say_what_is_below)

    def watch_show_vertical_scrollbar(self) -> None:
        # The scrollbar comes and goes with the panels' height without resizing the detail: the header is fitted
        # again to the columns beside it (a header fitted while the scrollbar stood stayed cut once it had gone).
        self._draw_header_again()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def _draw_header_again(self) -> None:
        """The header fitted to the width it has now, in the colours the detail has now; the fold's line too."""
        if self._headed is not None:
            view, notes, now = self._headed
            self._show_header(header_text(view, self._palette.built_with(), notes, self._header_width(), now))
        self.call_after_refresh(self._say_what_is_below)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.call_after_refresh(self._say_what_is_below)

    def _say_what_is_below(self) -> None:
        """The last line names the panels that do not fit (whole or in part), so nothing is hidden silently."""
        if not self.is_mounted:
            return
        fold = self.query_one("#detail-fold", Static)
        # Whether the fold shows is judged without its own row: judged with it, a fold shown once (while a taller
        # panel stood) hid the last row of panels that fit exactly, and so stayed, with a scrollbar for its row.
        bottom = self.scroll_y + self.scrollable_content_region.height
        shown = [widget_title for widget_title in self._panels() if widget_title[0].display]
        if all(self._bottom_of(widget) <= bottom for widget, _ in shown):
            below: list[str] = []
        else:  # the fold's row covers the last row of the content
            below = [title for widget, title in shown if self._bottom_of(widget) > bottom - 1]
        words = f"↓ below: {', '.join(below)} ({self._fold_hint})" if below else ""
        muted = self._palette.built_with()["muted"]
        if (words, muted) != self._fold:  # the same words in another theme's colour are drawn again too
            self._fold = (words, muted)
            fold.display = bool(words)
            fold.update(Text(words, style=muted, no_wrap=True, overflow="ellipsis"))

    def _bottom_of(self, widget: Widget) -> int:
        """Where `widget` ends, in rows from the top of this container's content."""
        top = 0
        node: Widget | None = widget
        while node is not None and node is not self:
            top += node.virtual_region.y
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return top + widget.outer_size.height

    def _panels(self) -> list[tuple[Widget, str]]:
        return [(self.query_one("#detail-chart"), "chart"), (self.query_one("#detail-viewers"), "viewers chart"),
                (self.query_one(EventList), "events"),
                (self.query_one("#detail-sparks"), "sparklines"),
                (self.query_one("#bars-in"), "inbound"), (self.query_one("#bars-out"), "outbound"),
                (self.query_one(TotalsPanel), "totals"), (self.query_one(StreamInfoPanel), "source and tracks"),
                (self.query_one(PlaybackPanel), "playback")]

"""Every shipped theme holds its text to WCAG AA: 4.5:1 for text, 3:1 for bars, lines and symbols.

Two ways: the theme's colour pairs as the widgets use them (text colours on every background they sit
on), and what the widgets actually draw: the tree (cursor focused and not), the detail (header,
sparklines, connection bars, totals, source and tracks, chart axes), the status line, the banner, the
footer and the help table are rendered in each theme and every cell's colours are measured.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Horizontal
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Footer

from omeconsole.model.nodes import AppStreams, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo, TrackInfo
from omeconsole.model.server import LinkState, ServerInfo
from omeconsole.ui.screens.help import HelpScreen, help_entries
from omeconsole.ui.themes import BUILTIN_THEME_DIR, contrast_ratio, load_themes
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import Banner, StatusBar, StatusLine

THEMES = load_themes([BUILTIN_THEME_DIR]).themes
TEXT, GRAPHIC = 4.5, 3.0
T0 = datetime(2026, 1, 1, tzinfo=UTC)
NEWS = NodePath("default", "app", "news")
TEXT_COLOURS = ("foreground", "muted", "rate-in", "rate-out", "state-live", "state-ended", "state-stale",
                "state-unknown", "accent", "footer-key-foreground")


def resolved(theme_name: str) -> dict[str, str]:
    theme = next(t for t in THEMES if t.name == theme_name)
    return {**theme.to_color_system().generate(), **theme.variables}


def over(base: str, layer: str) -> str:
    """`layer` (which may be translucent) painted over the opaque `base`."""
    top = Color.parse(layer)
    return Color.parse(base).blend(top.with_alpha(1.0), top.a).hex


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
def test_text_colours_on_every_background_they_sit_on(theme: str) -> None:
    colours = resolved(theme)
    backgrounds = {name: colours[name] for name in ("background", "surface", "panel")}
    backgrounds["hovered row"] = over(colours["surface"], colours["block-hover-background"])
    failures = [f"{fg} {colours[fg]} on {bg} {value}: {contrast_ratio(colours[fg], value):.2f}"
                for fg in TEXT_COLOURS for bg, value in backgrounds.items()
                if contrast_ratio(colours[fg], value) < TEXT]
    assert failures == []


def stats(viewers: int) -> NodeStats:
    return NodeStats(created=T0, last_updated=T0, total_bytes_in=10**9, total_bytes_out=10**11,
                     connections_in={"srt": 1}, connections_out={"llhls": viewers, "webrtc": 3},
                     total_connections=viewers + 3, max_total_connections=40, max_total_connection_time=T0,
                     avg_throughput_in_bps=5_000_000, avg_throughput_out_bps=9_000_000,
                     max_throughput_in_bps=6_000_000, max_throughput_out_bps=12_000_000,
                     last_throughput_in_bytes=1, last_throughput_out_bytes=1)


def view(path: NodePath, state: NodeState = NodeState.LIVE) -> NodeView:
    history = tuple(Sample(at=float(t), rate_in_bps=5e6 + 1e5 * (t % 3), rate_out_bps=9e7 + 1e6 * (t % 5),
                           viewers=30 + t % 4, stats=stats(30 + t % 4)) for t in range(40))
    info = StreamInfo(name=path.name, source_type="Srt", source_url="srt://10.0.0.1:9999", created=T0,
                      tracks=(TrackInfo(id=0, type="Video", codec="H264", width=1920, height=1080, framerate=30.0,
                                        bitrate=5_000_000, keyframe_interval=30),))
    return NodeView(path=path, state=state, latest=history[-1], history=history, info=info,
                    error="the last request timed out" if state is NodeState.STALE else None)


STATES = {NodePath("default", "app", "gone"): NodeState.ENDED, NodePath("default", "app", "slow"): NodeState.STALE,
          NodePath("default", "app", "new"): NodeState.UNKNOWN}


def view_of(path: NodePath) -> NodeView:
    state = STATES.get(path, NodeState.LIVE)
    return NodeView(path=path, state=state) if state is NodeState.UNKNOWN else view(path, state)


class Gallery(App[None]):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "omeconsole" / "ui" / "app.tcss")

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.wanted_theme = theme

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield NodeTree(id="tree")
            yield NodeDetail(id="detail")
        yield Banner(id="banner")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.wanted_theme
        listing = {"default": {"app": AppStreams(("news", "slow", "new"), ended=("gone",))}}
        tree = self.query_one(NodeTree)
        tree.show(listing, view_of, 40.0)
        tree.focus()
        tree.select_path(NEWS)
        self.query_one(NodeDetail).show(view(NEWS), 40.0)
        server = ServerInfo(edition="enterprise", version="0.20", git_version="x", stats_api="v2",
                            events_supported=True)
        self.query_one(StatusBar).show(StatusLine(connection=LinkState("connected", "ok", server), selected="x",
                                                  paused=True, interval=1.0, data_age=0.4, sort="name",
                                                  filter="news"))
        self.query_one(Banner).show(LinkState("unreachable", "cannot connect", next_retry_at=3.0), 0.0)


GRAPHICS = (range(0x2500, 0x2600), range(0x2800, 0x2900))
"""Box drawing, blocks and shapes (bars, frames, ●■▲▶▼) and braille (chart lines): non-text contrast."""


def measure(widget: Widget) -> list[str]:
    """Every drawn cell of `widget` whose colours fall short, described for the failure message."""
    failures = []
    default = widget.rich_style
    for y, strip in enumerate(widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))):
        for segment in strip:
            failures.extend(_check(widget, y, segment, default))
    return failures


def _check(widget: Widget, y: int, segment: Segment, default: Any) -> list[str]:
    text = segment.text.strip()
    style = segment.style
    if not text or style is None:
        return []
    fg, bg = style.color or default.color, style.bgcolor or default.bgcolor
    if fg is None or bg is None:
        return [f"{type(widget).__name__} line {y}: {text!r} has no colour of its own"]
    graphic = all(any(ord(c) in block for block in GRAPHICS) for c in text if not c.isspace())
    need = GRAPHIC if graphic else TEXT
    ratio = contrast_ratio(Color.from_rich_color(fg), Color.from_rich_color(bg))
    if ratio < need:
        return [f"{type(widget).__name__} line {y}: {text[:24]!r} {fg.name} on {bg.name} {ratio:.2f}"]
    return []


def leaves(app: App[Any]) -> list[Widget]:
    """The widgets that draw (containers only hold them; the tree draws its own rows)."""
    return [w for w in app.screen.query("*").results(Widget) if w.display and w.size.area and not w.is_container]


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
async def test_what_the_widgets_draw_holds_aa(theme: str) -> None:
    app = Gallery(theme)
    async with app.run_test(size=(170, 50)) as pilot:
        await pilot.pause()
        failures = [f for widget in leaves(app) for f in measure(widget)]
        app.set_focus(None)  # the tree's cursor when the tree has not the focus
        await pilot.pause()
        failures += [f"(blurred) {f}" for f in measure(app.query_one(NodeTree))]
        await app.push_screen(HelpScreen(help_entries(app.screen)))
        await pilot.pause()
        failures += [f for widget in leaves(app) for f in measure(widget)]
        assert failures == []

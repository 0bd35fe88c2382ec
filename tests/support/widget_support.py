"""A gallery of the console's widgets fed made-up data (no server): for contrast and snapshot tests.

The tree lists a live, a stale, an ended and a never-read stream, and names that are hostile; the
detail shows a stream with five minutes of history holding a gap and a moment's outlier.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Footer

from omeconsole.model.nodes import AppStreams, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo, TrackInfo
from omeconsole.model.server import LinkState, ServerInfo
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR, load_themes
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import Banner, StatusBar, StatusLine

THEMES = load_themes([BUILTIN_THEME_DIR]).themes
T0 = datetime(2026, 1, 1, tzinfo=UTC)
NEWS = NodePath("default", "app", "news")
NOW = 300.0


def stats(viewers: int) -> NodeStats:
    return NodeStats(created=T0, last_updated=T0, total_bytes_in=10**9, total_bytes_out=10**11,
                     connections_in={"srt": 1}, connections_out={"llhls": viewers, "webrtc": 3},
                     total_connections=viewers + 3, max_total_connections=40, max_total_connection_time=T0,
                     avg_throughput_in_bps=5_000_000, avg_throughput_out_bps=9_000_000,
                     max_throughput_in_bps=6_000_000, max_throughput_out_bps=12_000_000,
                     last_throughput_in_bytes=1, last_throughput_out_bytes=1)


def rate_in(t: int) -> float | None:
    if 120 <= t < 150:
        return None  # no reading: a gap
    return 3e7 if t == 200 else 5e6 + 1e5 * (t % 3)  # at 200 s, a moment's outlier


def view(path: NodePath, state: NodeState = NodeState.LIVE) -> NodeView:
    history = tuple(Sample(at=float(t), rate_in_bps=rate_in(t), rate_out_bps=9e7 + 1e6 * (t % 5),
                           viewers=30 + t % 4, stats=stats(30 + t % 4)) for t in range(int(NOW) + 1))
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


class Gallery(PaletteApp[None]):
    CSS_PATH = str(Path(__file__).resolve().parents[2] / "omeconsole" / "ui" / "app.tcss")

    def __init__(self, theme: str, window: float = 60.0) -> None:
        super().__init__()
        self.wanted_theme = theme
        self.window = window

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
        listing = {"default": {"app": AppStreams(("news", "slow", "new", "bidi\u202etxt.exe"), ended=("gone",)),
                               "ctl\x1b[2J": AppStreams(("s",))}}
        tree = self.query_one(NodeTree)
        tree.show(listing, view_of, NOW)
        tree.focus()
        tree.select_path(NEWS)
        self.query_one(NodeDetail).show(view(NEWS), NOW, self.window)
        server = ServerInfo(edition="enterprise", version="0.20", git_version="x", stats_api="v2",
                            events_supported=True)
        self.query_one(StatusBar).show(StatusLine(connection=LinkState("connected", "ok", server), selected="x",
                                                  paused=True, interval=1.0, data_age=0.4, sort="name",
                                                  filter="news"))
        self.query_one(Banner).show(LinkState("unreachable", "cannot connect", next_retry_at=3.0), 0.0)

"""The node tree widget as a user drives it: keys, mouse, scrolling, and what it costs at 10,000 streams.

A small host app feeds the real widget a listing and node views directly (no server needed): the
widget's public interface is data in (`show`) and messages out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Static
from wait_support import settled

from omeconsole.core.tree_model import SortOrder
from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.tree_drawing import ServerLine

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
DEMO: Listing = {"default": {"app": AppStreams(("news", "backup", "sports")),
                             "live": AppStreams(("concert", "church"))}}


def big_listing(apps: int = 100, streams: int = 100) -> dict[str, dict[str, AppStreams]]:
    return {f"v{v}": {f"app{a:02d}": AppStreams(tuple(f"s{s:03d}" for s in range(streams)))
                      for a in range(apps // 4)} for v in range(4)}


class Views:
    """Node views by path, counting every node the tree asked about."""

    def __init__(self) -> None:
        self.asked: Counter[NodePath] = Counter()
        self.states: dict[NodePath, NodeState] = {}

    def __call__(self, path: NodePath) -> NodeView:
        self.asked[path] += 1
        return NodeView(path=path, state=self.states.get(path, NodeState.UNKNOWN))


class TreeHost(PaletteApp[None]):
    CSS = "NodeTree { width: auto; max-width: 100%; height: 1fr; }"

    def __init__(self, listing: Listing, views: Callable[[NodePath], NodeView] | None = None) -> None:
        super().__init__()
        self.listing = listing
        self.views = views or Views()

    def compose(self) -> ComposeResult:
        yield NodeTree(id="tree")

    def on_mount(self) -> None:
        tree = self.query_one(NodeTree)
        tree.show(self.listing, self.views, 0.0)
        tree.focus()


def tree_of(app: App[Any]) -> NodeTree:
    return app.query_one(NodeTree)


def screen_text(tree: NodeTree) -> list[str]:
    return [strip.text.rstrip() for strip in tree.render_lines(Region(0, 0, tree.size.width, tree.size.height))]


def of(kind: type[Message], messages: list[Message]) -> list[Any]:
    """The messages of one kind, each once (the hook sees a bubbling message at every level it reaches)."""
    return list({id(m): m for m in messages if isinstance(m, kind)}.values())


async def test_keys_move_open_and_close_like_a_file_tree() -> None:
    """j/k move, l opens or steps in, h closes or steps out, Enter opens the node's own view."""
    messages: list[Message] = []
    app = TreeHost(DEMO)
    async with app.run_test(size=(80, 20), message_hook=messages.append) as pilot:
        tree = tree_of(app)
        assert tree.cursor_path == NodePath("default")
        await pilot.press("j", "j")
        assert tree.cursor_path == NodePath("default", "app", "backup")
        await pilot.press("h")  # on a stream: to its application
        assert tree.cursor_path == NodePath("default", "app")
        await pilot.press("h")  # on an open application: close it
        assert NodePath("default", "app", "news") not in tree.paths()
        assert tree.cursor_path == NodePath("default", "app")
        await pilot.press("l")  # open it again
        assert NodePath("default", "app", "news") in tree.paths()
        await pilot.press("l")  # already open: step to its first child
        assert tree.cursor_path == NodePath("default", "app", "backup")
        await pilot.press("k", "left", "left")  # up to "app", close it, up to "default"
        assert tree.cursor_path == NodePath("default")
        assert not tree.is_expanded(NodePath("default", "app"))
        await pilot.press("end")
        assert tree.cursor_path == NodePath("default", "live", "concert")
        await pilot.press("home", "down", "space")
        assert tree.is_expanded(NodePath("default", "app"))
        await pilot.press("enter")
        await settled(pilot)
        assert [m.path for m in of(NodeTree.Opened, messages)] == [NodePath("default", "app")]
        assert [m.expanded for m in of(NodeTree.Toggled, messages)] == [False, True, False, True]
        highlighted = [m.path for m in of(NodeTree.Highlighted, messages)]
        assert highlighted[:4] == [NodePath("default"), NodePath("default", "app"),
                                   NodePath("default", "app", "backup"), NodePath("default", "app")]


async def test_a_click_moves_the_cursor_and_a_second_click_opens() -> None:
    messages: list[Message] = []
    app = TreeHost(DEMO)
    async with app.run_test(size=(80, 20), message_hook=messages.append) as pilot:
        tree = tree_of(app)
        await pilot.click(NodeTree, offset=(8, 3))  # "news"
        assert tree.cursor_path == NodePath("default", "app", "news")
        assert not of(NodeTree.Opened, messages)
        await pilot.click(NodeTree, offset=(8, 3))
        await settled(pilot)
        assert [m.path for m in of(NodeTree.Opened, messages)] == [NodePath("default", "app", "news")]
        await pilot.click(NodeTree, offset=(2, 1))  # the ▼ of "app"
        assert not tree.is_expanded(NodePath("default", "app"))
        assert screen_text(tree)[1].startswith("├─▶ app")


async def test_the_tree_draws_guides_and_shows_outside_names_as_data() -> None:
    """A stream name from the server is shown, never obeyed: ESC and bidi controls appear as escapes."""
    hostile: Listing = {"default": {"app": AppStreams(("evil\x1b[2Jname", "rtl\u202etxt.exe", "ok"))}}
    app = TreeHost(hostile)
    async with app.run_test(size=(80, 10)) as pilot:
        await settled(pilot)
        lines = screen_text(tree_of(app))
        assert lines[0].startswith("▼ default")
        assert lines[1].startswith("└─▼ app")
        assert lines[2].startswith("  ├─ evil\\x1b[2Jname")
        assert lines[4].startswith("  └─ rtl⟨U+202E⟩txt.exe")
        assert all("\x1b" not in line and "\u202e" not in line for line in lines)


async def test_ten_thousand_streams_cost_the_rows_on_screen() -> None:
    """Only the rows drawn are looked at; a change off screen draws nothing new."""
    views = Views()
    listing = big_listing()
    app = TreeHost(listing, views)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = tree_of(app)
        await settled(pilot)
        on_screen = set(tree.visible_paths())
        assert len(on_screen) == 30
        assert set(views.asked) <= on_screen
        views.asked.clear()
        changed = {**listing, "v3": {**listing["v3"], "app24": AppStreams(("s999", *listing["v3"]["app24"].live))}}
        tree.show(changed, views, 1.0)
        await settled(pilot)
        assert set(views.asked) <= on_screen, "the new stream is far below: no label built for it"
        await pilot.press("end")
        await settled(pilot)
        assert tree.cursor_path == NodePath("v3", "app24", "s999")
        assert NodePath("v3", "app24", "s999") in tree.visible_paths()
        assert len(views.asked) < 100


async def test_visible_rows_are_reported_when_they_change() -> None:
    messages: list[Message] = []
    app = TreeHost(big_listing(apps=4, streams=50), Views())
    async with app.run_test(size=(60, 12), message_hook=messages.append) as pilot:
        await settled(pilot)
        first = of(NodeTree.VisibleRowsChanged, messages)[-1].paths
        assert first[0] == NodePath("v0") and len(first) == 12
        await pilot.press("pagedown", "pagedown")
        await settled(pilot)
        latest = of(NodeTree.VisibleRowsChanged, messages)[-1].paths
        assert tree_of(app).cursor_path in latest and NodePath("v0") not in latest


async def test_the_cursor_keeps_its_node_and_its_place_on_screen_when_rows_come_and_go() -> None:
    listing = big_listing(apps=4, streams=50)
    views = Views()
    app = TreeHost(listing, views)
    async with app.run_test(size=(60, 12)) as pilot:
        tree = tree_of(app)
        assert tree.select_path(NodePath("v0", "app00", "s030"))
        await settled(pilot)
        row_on_screen = tree.visible_paths().index(NodePath("v0", "app00", "s030"))
        more = tuple(f"a{i}" for i in range(5)) + listing["v0"]["app00"].live
        tree.show({**listing, "v0": {"app00": AppStreams(more)}}, views, 1.0)
        await settled(pilot)
        assert tree.cursor_path == NodePath("v0", "app00", "s030")
        assert tree.visible_paths().index(NodePath("v0", "app00", "s030")) == row_on_screen
        gone = tuple(n for n in more if n != "s030")
        tree.show({**listing, "v0": {"app00": AppStreams(gone)}}, views, 2.0)
        assert tree.cursor_path == NodePath("v0", "app00"), "gone: the nearest ancestor still shown"


async def test_filter_and_sort_are_view_options_of_the_tree() -> None:
    app = TreeHost(DEMO)
    async with app.run_test(size=(80, 20)) as pilot:
        tree = tree_of(app)
        tree.filter_text = "CONC"
        await settled(pilot)
        assert tree.paths() == [NodePath("default"), NodePath("default", "live"),
                                NodePath("default", "live", "concert")]
        tree.filter_text = ""
        tree.node_order = SortOrder.VIEWERS  # nothing read yet: name order among equals
        await settled(pilot)
        assert len(tree.paths()) == 8


async def test_the_tree_s_width_comes_from_its_first_listing_s_names() -> None:
    narrow = TreeHost({"v": {"a": AppStreams(("s",))}})
    async with narrow.run_test(size=(150, 10)) as pilot:
        await settled(pilot)
        short = tree_of(narrow).size.width
        widest = max(cell_len(line) for line in screen_text(tree_of(narrow)))
        assert widest < short < 85, "a blank column at the tree's right edge"
    wide = TreeHost({"v": {"a": AppStreams(("a-longer-stream-name-than-others",))}})
    async with wide.run_test(size=(150, 10)) as pilot:
        await settled(pilot)
        assert tree_of(wide).size.width >= short + 20
        assert "a-longer-stream-name-than-others  ? waiting" in "\n".join(screen_text(tree_of(wide)))


async def test_names_longer_than_the_cap_are_cut_and_the_badges_start_in_one_column() -> None:
    long = "a-stream-name-much-longer-than-any-tree-should-make-room-for"
    app = TreeHost({"v": {"a": AppStreams(("s", long))}})
    async with app.run_test(size=(200, 10)) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        lines = screen_text(tree)
        assert tree.size.width < 110
        assert any(line.startswith("  ├─ a-stream-name-much-longer-") and "…  ? waiting" in line for line in lines)
        assert len({line.index("? waiting") for line in lines if "? waiting" in line}) == 1, lines


async def test_streams_coming_and_going_leave_the_screen_laid_out_and_the_tree_as_wide() -> None:
    """A stream starting or ending changes the tree's rows, not the panes beside it: no new layout (which
    redraws the whole screen), the tree never narrows when the stream with the longest name ends and never
    widens for a longer one (its name is cut with `…`)."""
    listing: Listing = {"default": {"app": AppStreams(("news", "a-long-stream-name"))}}
    app = TreeHost(listing)
    async with app.run_test(size=(150, 20)) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        width = tree.size.width
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app, layouts.append)
        tree.show({"default": {"app": AppStreams(("news", "a-long-stream-name", "sport"))}}, app.views, 1.0)
        await settled(pilot)
        assert "sport" in "\n".join(screen_text(tree))
        tree.show({"default": {"app": AppStreams(("news", "sport"))}}, app.views, 2.0)
        await settled(pilot)
        assert "a-long-stream-name" not in "\n".join(screen_text(tree))
        assert (tree.size.width, layouts) == (width, [])
        tree.show({"default": {"app": AppStreams(("news", "sport", "an-even-longer-stream-name"))}}, app.views, 3.0)
        await settled(pilot)
        assert (tree.size.width, layouts) == (width, [])
        assert "an-even-longer-st…  ? waiting" in "\n".join(screen_text(tree))


async def test_rows_beyond_the_tree_s_height_bring_its_scroll_bar_and_can_be_reached() -> None:
    app = TreeHost({"default": {"app": AppStreams(("s00",))}})
    async with app.run_test(size=(150, 8)) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        assert not tree.show_vertical_scrollbar
        many = tuple(f"s{n:02d}" for n in range(20))
        tree.show({"default": {"app": AppStreams(many)}}, app.views, 1.0)
        await settled(pilot)
        assert tree.show_vertical_scrollbar
        await pilot.press("end")
        assert screen_text(tree)[-1].startswith("  └─ s19 ")


async def test_selecting_the_node_under_the_cursor_keeps_it_selected() -> None:
    """A screen showing another server's tree of the same shape selects the node it had: the cursor's row
    does not move, and the tree still says which node it is on."""
    app = TreeHost(DEMO)
    async with app.run_test(size=(60, 12)) as pilot:
        tree = tree_of(app)
        stream = NodePath("default", "app", "backup")
        assert tree.select_path(stream)
        await settled(pilot)
        assert tree.select_path(stream) and tree.cursor_path == stream
        await settled(pilot)
        assert tree.cursor_path == stream


FLEET = ("origin", "edge-1", "edge-2")


def server_lines(current_label: str = "") -> list[ServerLine]:
    return [ServerLine(profile, Text(f"{profile}  ● connected{current_label}"), len(profile) + 13)
            for profile in FLEET]


async def test_a_fleets_tree_has_a_row_per_server_on_top_with_the_current_one_open() -> None:
    """The servers are the top level; the current server's hosts are under its row, the others are closed rows.
    ← from a host goes up to its server, ← there closes it, → opens it again; Enter on another server asks
    the screen to move there (the tree does not switch by itself: the screen says which server is current)."""
    messages: list[Message] = []
    app = TreeHost(DEMO)
    async with app.run_test(size=(80, 20), message_hook=messages.append) as pilot:
        tree = tree_of(app)
        tree.show_servers(server_lines(), "origin")
        await settled(pilot)
        lines = screen_text(tree)
        assert lines[0].startswith("▼ origin  ● connected") and lines[1].startswith("└─▼ default")
        assert [line.split()[1] for line in lines if line.startswith(("▶", "▼"))] == list(FLEET)
        assert lines.index("▶ edge-1  ● connected") == len(tree.paths()) + 1, "edge-1 right after origin's nodes"
        assert NodePath("default") in tree.paths() and all(p.vhost != "origin" for p in tree.paths())

        assert tree.select_path(NodePath("default"))
        await pilot.press("left", "left")  # the host closes, then up to its parent: its server
        assert tree.cursor_path is None and tree.cursor_line is not None and screen_text(tree)[tree.cursor] \
            .startswith("▼ origin")
        await pilot.press("left")  # the open server closes
        assert screen_text(tree)[:3] == ["▶ origin  ● connected", "▶ edge-1  ● connected", "▶ edge-2  ● connected"]
        assert tree.visible_paths() == [], "a closed server shows (and asks the server for) no node"
        await pilot.press("right")
        assert screen_text(tree)[1].startswith("└─▶ default"), "open again, its host as the operator left it"

        tree.select_server("edge-2")
        await pilot.press("enter")
        opened = of(NodeTree.ServerOpened, messages)
        assert [m.profile for m in opened] == ["edge-2"]
        assert screen_text(tree)[0].startswith("▼ origin"), "still on origin until the screen moves"
        tree.show_servers(server_lines(), "edge-2")
        await settled(pilot)
        lines = screen_text(tree)
        assert lines[:3] == ["▶ origin  ● connected", "▶ edge-1  ● connected", "▼ edge-2  ● connected"]
        assert lines[3].startswith("└─▶ default"), "edge-2's hosts under its row (the host closed as before)"
        assert tree.cursor == 2, "the cursor stays on the server it opened"


async def test_an_applications_ended_streams_are_one_closed_group_that_opens_and_closes() -> None:
    ended: Listing = {"default": {"app": AppStreams(("news",), ended=("gone", "aired"))}}
    app = TreeHost(ended)
    async with app.run_test(size=(80, 20)) as pilot:
        tree = tree_of(app)
        names = [line.split("?")[0].rstrip() for line in screen_text(tree)[:5]]
        assert names == ["▼ default", "└─▼ app", "  ├─ news", "  └─▶ ended  2 streams", ""], "after the live ones"
        assert NodePath("default", "app", "gone") not in tree.paths()
        await pilot.press("end", "right")  # the group, opened
        names = [line.split("?")[0].rstrip() for line in screen_text(tree)[3:6]]
        assert names == ["  └─▼ ended  2 streams", "    ├─ aired", "    └─ gone"]
        assert tree.paths()[-2:] == [NodePath("default", "app", "aired"), NodePath("default", "app", "gone")]
        assert tree.visible_paths() == [NodePath("default"), NodePath("default", "app"),
                                        NodePath("default", "app", "news")], "ended streams are not polled"
        await pilot.press("end")
        assert tree.cursor_path == NodePath("default", "app", "gone")
        await pilot.press("left")  # up to its group
        assert tree.cursor_path is None and "ended  2 streams" in screen_text(tree)[tree.cursor]
        await pilot.press("left")  # the group closes
        assert NodePath("default", "app", "gone") not in tree.paths()
        assert tree.select_path(NodePath("default", "app", "aired")), "selecting an ended stream opens its group"
        assert tree.cursor_path == NodePath("default", "app", "aired")


class BusyViews:
    """Every stream live with wide figures: three-digit rates, thousands of viewers, relays and pushes."""

    def __call__(self, path: NodePath) -> NodeView:
        stats = NodeStats(created=EPOCH, last_updated=EPOCH, total_bytes_in=0, total_bytes_out=0,
                          connections_in={"webrtc": 1}, connections_out={"llhls": 4321, "ovt": 16, "push": 3},
                          total_connections=4340, max_total_connections=4340, max_total_connection_time=EPOCH,
                          avg_throughput_in_bps=0, avg_throughput_out_bps=0, max_throughput_in_bps=0,
                          max_throughput_out_bps=0, last_throughput_in_bytes=0, last_throughput_out_bytes=0)
        sample = Sample(at=1.0, rate_in_bps=209_210_000.0, rate_out_bps=977_770_000.0, viewers=4321, stats=stats)
        return NodeView(path=path, state=NodeState.LIVE, latest=sample, history=(sample,))


RATE = re.compile(r"\b(in|out) (\S+)(?: (\S+))?")


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48), (200, 60)])
async def test_badges_keep_their_columns_and_never_touch_what_is_beside_the_tree(size: tuple[int, int]) -> None:
    """An ad break's and alerts' marks on wide rows, the tree at half the screen (as on the dashboard): every
    row ends before the tree's last column, every rate shown is whole with its unit, and the badges of every
    row start in the same column."""
    listing: Listing = {"default": {"app": AppStreams(("news", "a-stream-name-longer-than-most"))}}

    class Beside(PaletteApp[None]):
        CSS = "Horizontal { height: 1fr; } NodeTree { width: auto; max-width: 50%; } #beside { width: 1fr; }"

        def compose(self) -> ComposeResult:
            with Horizontal():
                yield NodeTree(id="tree")
                yield Static("20 Mb/s┤", id="beside")

        def on_mount(self) -> None:
            tree = self.query_one(NodeTree)
            tree.fit_to(self.size.width, compact=self.size.width < 140)
            tree.show(listing, BusyViews(), 1.0, marks_of=lambda path: ("AD 0:24", "⚑ 2") if path.stream else ())

    app = Beside()
    async with app.run_test(size=size) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        lines = [strip.text for strip in tree.render_lines(Region(0, 0, tree.size.width, tree.size.height))]
        rows = [line for line in lines if line.strip()]
        assert len(rows) == 4
        edge = tree.size.width - tree.styles.scrollbar_size_vertical - 1 if tree.show_vertical_scrollbar \
            else tree.size.width - 1
        assert all(line[edge] == " " for line in rows), rows
        for line in rows:
            for _direction, figure, unit in RATE.findall(line):
                assert re.fullmatch(r"[\d.]+", figure) and unit in ("b/s", "kb/s", "Mb/s", "Gb/s"), line
        streams = [line for line in rows if "├─" in line or "└─" in line][1:]
        assert all("AD 0:24" in line and "● live" in line for line in streams), streams
        assert len({line.index("AD 0:24") for line in streams}) == 1, streams

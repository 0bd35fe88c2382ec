"""The node tree repaints what changed on screen and nothing else: a row is painted again when its label
reads differently, not when a reading arrives with the same figures, and not on a clock tick.

"Painted" is what Textual asks of the widget through its Line API (`render_line` per row on screen).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from wait_support import settled
from widget_support import stats

from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.widgets.node_tree import NodeTree

LISTING: Listing = {"default": {"app": AppStreams(("news", "backup", "sports", "slow"))}}
NEWS, BACKUP, SPORTS, SLOW = (NodePath("default", "app", name) for name in ("news", "backup", "sports", "slow"))


class PaintedTree(NodeTree):
    """The real tree, noting the rows Textual asks it to paint."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.painted: list[int] = []

    def render_line(self, y: int) -> Strip:
        self.painted.append(y)
        return super().render_line(y)


class Readings:
    """The streams' latest readings, as the engine's view of each node."""

    def __init__(self) -> None:
        self.viewers = {NEWS: 10, BACKUP: 20, SPORTS: 30, SLOW: 40}
        self.at = dict.fromkeys(self.viewers, 1.0)
        self.stale = {SLOW}

    def read(self, path: NodePath, at: float, viewers: int) -> None:
        self.at[path], self.viewers[path] = at, viewers

    def __call__(self, path: NodePath) -> NodeView:
        if path not in self.viewers:
            return NodeView(path=path, state=NodeState.UNKNOWN)
        viewers = self.viewers[path]
        latest = Sample(at=self.at[path], rate_in_bps=5e6, rate_out_bps=9e7, viewers=viewers, stats=stats(viewers))
        return NodeView(path=path, state=NodeState.STALE if path in self.stale else NodeState.LIVE, latest=latest)


class Host(PaletteApp[None]):
    CSS = "PaintedTree { width: 1fr; height: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.readings = Readings()

    def compose(self) -> ComposeResult:
        yield PaintedTree(id="tree")

    def on_mount(self) -> None:
        tree = self.query_one(PaintedTree)
        tree.show(LISTING, self.readings, 1.0)
        tree.focus()


def rows(tree: NodeTree) -> list[str]:
    return [strip.text.rstrip() for strip in tree.render_lines(Region(0, 0, tree.size.width, tree.size.height))]


def row_of(tree: NodeTree, path: NodePath) -> int:
    index = tree.index_of(path)
    assert index is not None
    return index


async def test_only_rows_whose_label_reads_differently_are_painted_again() -> None:
    app = Host()
    async with app.run_test(size=(100, 10)) as pilot:
        tree = app.query_one(PaintedTree)
        readings = app.readings
        await settled(pilot)
        before = rows(tree)
        assert "10 viewers" in before[row_of(tree, NEWS)]
        tree.painted.clear()

        tree.show(LISTING, readings, 2.0, set())  # a clock tick: nothing new, nothing turned stale
        await pilot.pause()
        assert tree.painted == [], "a tick that changes no label paints no row"

        readings.read(NEWS, 3.0, 11)  # news has a new figure
        readings.read(BACKUP, 3.0, 20)  # backup was read again and reads the same
        tree.show(LISTING, readings, 3.0, {NEWS, BACKUP})
        await pilot.pause()
        assert tree.painted == [row_of(tree, NEWS)]
        after = rows(tree)
        assert "11 viewers" in after[row_of(tree, NEWS)]
        assert [line for i, line in enumerate(after) if i != row_of(tree, NEWS)] == \
               [line for i, line in enumerate(before) if i != row_of(tree, NEWS)], "every other row as it was"
        tree.painted.clear()

        tree.show(LISTING, readings, 3.5, set())
        await pilot.pause()
        assert tree.painted == [], "news, painted with its new figure, is not painted again at the next tick"

        readings.stale.add(SPORTS)  # no new reading, but sports turned stale (as slow is): the tick shows it
        tree.show(LISTING, readings, 4.0, set())
        await pilot.pause()
        assert tree.painted == [row_of(tree, SPORTS)]
        assert "stale" in rows(tree)[row_of(tree, SPORTS)]


async def test_the_cursor_moving_paints_the_two_rows_it_leaves_and_reaches() -> None:
    app = Host()
    async with app.run_test(size=(100, 10)) as pilot:
        tree = app.query_one(PaintedTree)
        await settled(pilot)
        tree.painted.clear()
        await pilot.press("down")
        assert sorted(tree.painted) == [0, 1]


async def test_a_theme_change_paints_every_row_in_the_new_colours() -> None:
    app = Host()
    async with app.run_test(size=(100, 10)) as pilot:
        tree = app.query_one(PaintedTree)
        await settled(pilot)
        dark = tree.render_lines(Region(0, 0, tree.size.width, 1))[0]
        tree.painted.clear()
        app.theme = "textual-light"
        await pilot.pause()
        assert set(range(tree.size.height)) <= set(tree.painted)
        light = tree.render_lines(Region(0, 0, tree.size.width, 1))[0]
        assert light.text == dark.text and list(light) != list(dark), "the same words in other colours"

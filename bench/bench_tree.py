"""The node tree at 10,000 streams: CPU per redraw and per listing change, the widget before and after.

Both widgets run in one process, in rounds that alternate old and new, each hosted alone by a headless
Textual app (160x50, the tree 72 columns wide) and fed the way the dashboard feeds it: the `scale`
scenario's shape (4 hosts x 25 applications x 100 streams) as the engine lists it, readings for the
streams on screen, and the ended-stream tracking's output. The old widget is loaded from git (the
merge base with main unless `--baseline` says otherwise). An operation is one data update as the
dashboard applies it, then drawing the tree's rows; its CPU time is `time.process_time()`.

- redraw: the 50 streams on screen have new readings (the listing is unchanged);
- listing change: one application's list changed (a stream ended, another started), readings too;
- re-sort by viewers: sorted by viewers, readings changed, and the 5 s re-sort is due.

    .venv/bin/python bench/bench_tree.py [--ops 30] [--rounds 3] [--baseline REV]
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from baseline import loaded, parser, row
from textual.app import ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from omeconsole.core.tree_model import SortOrder
from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from omeconsole.ui import badges
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR, load_themes
from omeconsole.ui.widgets.node_tree import NodeTree

SIZE = (160, 50)
T0 = datetime(2026, 1, 1, tzinfo=UTC)
EngineTree = dict[str, dict[str, list[str]]]
SCENARIOS = ("redraw", "listing change", "re-sort by viewers")


def scale_tree() -> EngineTree:
    return {f"vh{v}": {f"app{a:03d}": [f"s{a:03d}{s:02d}" for s in range(100)] for a in range(25)} for v in range(4)}


def stats(viewers: int, total: int) -> NodeStats:
    return NodeStats(created=T0, last_updated=T0, total_bytes_in=total, total_bytes_out=total * 9,
                     connections_in={"srt": 1}, connections_out={"llhls": viewers}, total_connections=viewers,
                     max_total_connections=viewers, max_total_connection_time=T0, avg_throughput_in_bps=0,
                     avg_throughput_out_bps=0, max_throughput_in_bps=0, max_throughput_out_bps=0,
                     last_throughput_in_bytes=0, last_throughput_out_bytes=0)


class Readings:
    """The engine's side: a reading per polled node, new readings for the nodes on screen each second."""

    def __init__(self) -> None:
        self.latest: dict[NodePath, Sample] = {}

    def tick(self, paths: list[NodePath], now: float) -> frozenset[NodePath]:
        for i, path in enumerate(paths):
            viewers = (hash(path) + int(now) * (i + 1)) % 500
            self.latest[path] = Sample(at=now, rate_in_bps=4e6 + viewers * 1e3, rate_out_bps=viewers * 4e6,
                                       viewers=viewers, stats=stats(viewers, int(now) * 10**6))
        return frozenset(paths)

    def view(self, path: NodePath) -> NodeView:
        latest = self.latest.get(path)
        return NodeView(path, NodeState.LIVE if latest else NodeState.UNKNOWN, latest)


class Host(PaletteApp[None]):
    """One tree, fed as the dashboard feeds it; `update` is one data redraw."""

    def __init__(self, readings: Readings) -> None:
        super().__init__()
        self.readings = readings

    def on_mount(self) -> None:
        for theme in load_themes([BUILTIN_THEME_DIR]).themes:
            self.register_theme(theme)
        self.theme = "ome-dark"

    @property
    def tree(self) -> Widget:
        return self.query_one("#tree")

    def update(self, tree: EngineTree, changed: frozenset[NodePath], tree_changed: bool, order: SortOrder,
               now: float) -> None:
        raise NotImplementedError

    def visible(self) -> list[NodePath]:
        raise NotImplementedError


class NewHost(Host):
    CSS = "#tree { width: 72; height: 1fr; }"
    WIDGET: type[Widget] = NodeTree
    """The virtual tree widget hosted: today's, or a baseline's of the same interface (`show`)."""

    def __init__(self, readings: Readings) -> None:
        super().__init__(readings)
        self._tree: EngineTree | None = None
        self._listing: Listing = {}

    def listing(self, tree: EngineTree) -> Listing:
        """The engine's listing shape (AppStreams per app), made once per tree object as the engine does."""
        if tree is not self._tree:
            self._tree = tree
            self._listing = {v: {a: AppStreams(tuple(streams)) for a, streams in apps.items()}
                             for v, apps in tree.items()}
        return self._listing

    def compose(self) -> ComposeResult:
        yield self.WIDGET(id="tree")

    def update(self, tree: EngineTree, changed: frozenset[NodePath], tree_changed: bool, order: SortOrder,
               now: float) -> None:
        widget: Any = self.query_one("#tree")
        widget.node_order = order
        widget.show(self.listing(tree), self.readings.view, now, changed)
        widget.visible_paths()

    def visible(self) -> list[NodePath]:
        widget: Any = self.query_one("#tree")
        return [p for p in widget.visible_paths() if p.level == "stream"]


def virtual_host(widget: type[Widget]) -> Callable[[Readings], Host]:
    """A baseline whose tree is already the virtual one: hosted exactly as today's."""
    return type("BaselineHost", (NewHost,), {"WIDGET": widget})


def old_host(modules: dict[str, Any]) -> Callable[[Readings], Host]:
    old_tree_model, old_node_tree = modules["old_tree_model"], modules["old_node_tree"]

    class OldHost(Host):
        """The widget and the dashboard's redraw as they were (labels cached per node, as the app did)."""

        CSS = "#tree { width: 72; height: 1fr; }"

        def __init__(self, readings: Readings) -> None:
            super().__init__(readings)
            self.labels: dict[NodePath, tuple[tuple[object, ...], Any]] = {}
            self.sorted_at = -1e9

        def compose(self) -> ComposeResult:
            yield old_node_tree.NodeTree(id="tree")

        def label(self, path: NodePath) -> Any:
            view = self.readings.view(path)
            key = (view.state, view.latest.at if view.latest else None, False, False, self.theme)
            cached = self.labels.get(path)
            if cached is None or cached[0] != key:
                cached = self.labels[path] = (key, badges.node_label(view, self.theme_variables))
            return cached[1]

        def update(self, tree: EngineTree, changed: frozenset[NodePath], tree_changed: bool, order: SortOrder,
                   now: float) -> None:
            widget = self.query_one("#tree")
            old_order = old_tree_model.SortOrder(order.value)
            resort = old_order is not old_tree_model.SortOrder.NAME and now - self.sorted_at >= 5.0
            rebuilt = False
            if tree_changed or resort:
                self.sorted_at = now
                listing = old_tree_model.with_ended(tree, ())
                shape = old_tree_model.arrange(listing, self.readings.view, "", old_order)
                rebuilt = widget.rebuild(shape, self.label)
            if not rebuilt:
                widget.relabel(changed, self.label)
            widget.visible_paths()

        def visible(self) -> list[NodePath]:
            return [p for p in self.query_one("#tree").visible_paths() if p.level == "stream"]

    return OldHost


async def measure(factory: Callable[[Readings], Host], scenario: str, ops: int) -> list[float]:
    """CPU milliseconds of each of `ops` operations."""
    readings = Readings()
    host = factory(readings)
    tree = scale_tree()
    order = SortOrder.VIEWERS if scenario == "re-sort by viewers" else SortOrder.NAME
    spent: list[float] = []
    async with host.run_test(size=SIZE) as pilot:
        now = 0.0
        host.update(tree, frozenset(), True, order, now)
        await pilot.pause()
        for op in range(-3, ops):  # three to warm up
            now += 5.0 if order is SortOrder.VIEWERS else 1.0
            changed_tree = False
            if scenario == "listing change":
                vhost, app = f"vh{op % 4}", f"app{(op * 7) % 25:03d}"
                names = tree[vhost][app]
                tree = {**tree, vhost: {**tree[vhost], app: [*names[1:], f"new{op}"]}}
                changed_tree = True
            gc.collect()
            started = time.process_time()
            changed = readings.tick(host.visible(), now)
            host.update(tree, changed, changed_tree, order, now)
            await pilot.pause()
            widget = host.tree
            widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
            if op >= 0:
                spent.append((time.process_time() - started) * 1000)
    return spent


async def main() -> int:
    args = parser(__doc__, "ops", 30).parse_args()
    rev = loaded(args)
    import old_node_tree  # type: ignore[import-not-found]
    import old_tree_model  # type: ignore[import-not-found]

    before = virtual_host(old_node_tree.NodeTree) if hasattr(old_node_tree.NodeTree, "show") else \
        old_host({"old_tree_model": old_tree_model, "old_node_tree": old_node_tree})
    factories = {"before": before, "after": NewHost}
    results: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        for scenario in SCENARIOS:
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for which in order:
                results.setdefault((scenario, which), []).extend(await measure(factories[which], scenario, args.ops))
    print(f"baseline {rev[:10]}; {args.rounds} rounds x {args.ops} operations, alternating; CPU ms per operation")
    print("| operation | before: median (p90) | after: median (p90) | after / before |")
    print("|---|---|---|---|")
    for scenario in SCENARIOS:
        print(row(scenario, results[(scenario, "before")], results[(scenario, "after")]))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))

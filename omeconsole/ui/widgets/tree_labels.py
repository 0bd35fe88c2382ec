"""The labels of the node tree's rows: built only for rows drawn, cached by what they show.

A node's label is its name, marks and badges (`badges.node_label`); an ended stream's says its recorded
life when the screen knows it ("■ ended  ended 3 h 02 min ago — peak 812 viewers, …"); an "ended" group
says how many it holds; a server's row is the label the screen gave (its health and totals).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.cells import cell_len
from rich.text import Text
from textual.cache import LRUCache

from omeconsole.core.text import visible
from omeconsole.core.tree_rows import Row
from omeconsole.core.tree_servers import Line, ServerRow
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.badges import STATE_MARKS, Marks, name_text, node_label
from omeconsole.ui.widgets.tree_drawing import unknown_view

ViewOf = Callable[[NodePath], NodeView]
"""What the tree reads about a node it draws (the engine's read-only view)."""
MarksOf = Callable[[NodePath], Marks]
"""Flags a node shows after its name (an ad break, alerts): the screen decides what they are."""
EndedNote = Callable[[NodePath], str | None]
"""What an ended stream's row says of its life (None: nothing recorded; its last readings are shown)."""


def _no_marks(_path: NodePath) -> Marks:
    return ()


def _no_note(_path: NodePath) -> str | None:
    return None


def ended_label(path: NodePath, note: str, colours: Mapping[str, str]) -> Text:
    """`keynote  ■ ended 3 h 02 min ago — peak 812 viewers, 14.16 GiB out, 1 h 52 min live`."""
    label = name_text(path.name, colours)
    label.append("  ")
    label.append(f"{STATE_MARKS[NodeState.ENDED][0]} ", style=colours.get(f"state-{NodeState.ENDED.value}", ""))
    label.append(visible(note), style=colours.get("muted", ""))
    return label


def group_label(held: int, colours: Mapping[str, str]) -> Text:
    label = Text("ended", style=f"bold {colours.get('muted', '')}")
    label.append(f"  {held:,} stream{'s' if held != 1 else ''}", style=colours.get("muted", ""))
    return label


class TreeLabels:
    """What the tree reads (the views, marks and notes of its screen) and the labels it built from them."""

    def __init__(self) -> None:
        self.view_of: ViewOf = unknown_view
        self.marks_of: MarksOf = _no_marks
        self.ended_note: EndedNote = _no_note
        self.servers: dict[str, Text] = {}
        self._cache: LRUCache[NodePath, tuple[tuple[object, ...], Text]] = LRUCache(512)
        self.badge_width = 0
        """The widest badges of a live node built so far (the tree's width follows it)."""

    def feed(self, view_of: ViewOf, marks_of: MarksOf | None, ended_note: EndedNote | None) -> None:
        self.view_of = view_of
        self.marks_of = marks_of or _no_marks
        self.ended_note = ended_note or _no_note

    def clear(self, *, widths: bool = False) -> None:
        self._cache.clear()
        if widths:
            self.badge_width = 0

    def shows(self, row: Row, compact: bool, theme: str) -> tuple[object, ...]:
        """What a node's label shows: it is built again only when this changes."""
        view = self.view_of(row.path)
        latest = view.latest
        note = self.ended_note(row.path) if row.ended else None
        return (view.state, latest.at if latest else None, view.info.source_type if view.info else None,
                compact, theme, self.marks_of(row.path), row.ended, note)

    def is_old(self, row: Row, compact: bool, theme: str) -> bool:
        cached = self._cache.get(row.path)
        return cached is None or cached[0] != self.shows(row, compact, theme)

    def label(self, line: Line, compact: bool, theme: str, colours: Mapping[str, str]) -> tuple[object, Text]:
        """The row's label and its cache key (what it shows)."""
        if isinstance(line, ServerRow):
            shown = self.servers.get(line.profile, Text())
            return ("server", line.profile, shown.plain, theme), shown
        if line.group:
            return ("group", line.held, theme), group_label(line.held, colours)
        key = self.shows(line, compact, theme)
        cached = self._cache.get(line.path)
        if cached is not None and cached[0] == key:
            return cached
        note = key[-1]
        if isinstance(note, str):
            label = ended_label(line.path, note, colours)
        else:
            label = node_label(self.view_of(line.path), colours, compact=compact, marks=self.marks_of(line.path))
            self.badge_width = max(self.badge_width, label.cell_len - cell_len(visible(line.path.name)) - 2)
        self._cache[line.path] = (key, label)
        return key, label

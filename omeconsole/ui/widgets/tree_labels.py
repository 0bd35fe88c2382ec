"""The labels of the node tree's rows: built only for rows drawn, cached by what they show.

A label built again that reads as before is the same object as before, so the tree keeps the row's drawn
picture and does not repaint it.

A node's label is its name, marks and badges (`badges.node_label`); an ended stream's says its recorded
life when the screen knows it ("■ ended  ended 3 h 02 min ago — peak 812 viewers, …"); an "ended" group
says how many it holds; a server's row is the label the screen gave (its health and totals).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import cast

from rich.text import Text

from omeconsole.core.text import visible
from omeconsole.core.tree_rows import Row
from omeconsole.core.tree_servers import Line, ServerRow
from omeconsole.model.nodes import STATE_MARKS, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.badges import Marks, name_text, node_label
from omeconsole.ui.widgets.tree_drawing import TreeColumns, unknown_view

ViewOf = Callable[[NodePath], NodeView]
"""What the tree reads about a node it draws (the engine's read-only view)."""
MarksOf = Callable[[NodePath], Marks]
"""Flags a node shows after its name (an ad break, alerts): the screen decides what they are."""
EndedNote = Callable[[NodePath], str | None]
"""What an ended stream's row says of its life (None: nothing recorded; its last readings are shown)."""
KEPT = 512
"""Labels kept (the least recently drawn go first): a few screens of rows."""


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
        self._cache: OrderedDict[NodePath, tuple[tuple[object, ...], Text]] = OrderedDict()
        self.columns: TreeColumns | None = None
        """Where names end and how wide the badges may be (the tree decides it once per screen size)."""

    def feed(self, view_of: ViewOf, marks_of: MarksOf | None, ended_note: EndedNote | None) -> None:
        self.view_of = view_of
        self.marks_of = marks_of or _no_marks
        self.ended_note = ended_note or _no_note

    def clear(self) -> None:
        self._cache.clear()

    def shows(self, row: Row, compact: bool, theme: str) -> tuple[object, ...]:
        """What a node's label shows: it is built again only when this changes. The row's depth, place among
        its siblings and toggle set the columns before its label, so the room left for its name."""
        view = self.view_of(row.path)
        latest = view.latest
        note = self.ended_note(row.path) if row.ended else None
        return (view.state, latest.at if latest else None, view.info.source_type if view.info else None,
                compact, theme, self.marks_of(row.path), row.ended, self.columns, row.depth, len(row.lasts),
                row.expandable, note)

    def relabel(self, rows: Iterable[tuple[int, Row]], compact: bool, theme: str,
                colours: Mapping[str, str]) -> list[int]:
        """Bring these rows' labels up to date (each with its index); the indices of those that now read
        differently (their rows need repainting)."""
        moved = []
        for index, row in rows:
            cached = self._cache.get(row.path)
            if self.label(row, compact, theme, colours) is not (cached[1] if cached is not None else None):
                moved.append(index)
        return moved

    def label(self, line: Line, compact: bool, theme: str, colours: Mapping[str, str]) -> Text:
        """The row's label: the cached one while what it shows is unchanged, and while a new one reads the same."""
        if isinstance(line, ServerRow):
            return self.servers.get(line.profile, Text())
        if line.group:
            return group_label(line.held, colours)
        key = self.shows(line, compact, theme)
        cached = self._cache.get(line.path)
        if cached is not None and cached[0] == key:
            self._cache.move_to_end(line.path)
            return cached[1]
        note = key[-1]
        if isinstance(note, str):
            label = ended_label(line.path, note, colours)
        else:
            columns = self.columns
            label = node_label(self.view_of(line.path), colours, compact=compact, marks=cast(Marks, key[5]),
                               name_room=columns.name_room(line) if columns else None,
                               badge_room=columns.badge_room if columns else None)
        if cached is not None and cached[1] == label:
            label = cached[1]  # a new reading with the same figures: the drawn row stays as it is
        self._cache[line.path] = (key, label)
        self._cache.move_to_end(line.path)
        if len(self._cache) > KEPT:
            self._cache.popitem(last=False)
        return label

"""How one row of the node tree is drawn, and how wide its names and badges can be.

Pure functions of a row (from `core/tree_model.TreeRows`), its label and the styles of one drawing pass;
`NodeTree` caches what they return.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from omeconsole.core.text import visible
from omeconsole.core.tree_model import AppBranch
from omeconsole.core.tree_servers import Line
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.badges import node_badges, state_text

EXPANDED, COLLAPSED = "▼ ", "▶ "
GUIDE_WIDTH = 2
"""Columns per level of indentation."""


@dataclass(frozen=True, slots=True)
class RowStyles:
    """The tree's component styles, looked up once per drawing pass."""

    base: Style
    guides: Style
    hover: Style
    cursor: Style
    cursor_blurred: Style


def unknown_view(path: NodePath) -> NodeView:
    return NodeView(path=path, state=NodeState.UNKNOWN)


def draw_row(row: Line, label: Text, *, width: int, styles: RowStyles, row_index: int, hover: bool,
             on_cursor: bool, focused: bool, console: Console) -> Strip:
    """Guides, the ▶/▼ toggle and the label; the row number and the toggle ride in the style's meta for clicks."""
    line_style = styles.base
    if hover:
        line_style += styles.hover
    line_style += Style(meta={"row": row_index})
    guides = styles.guides
    text = Text(style=line_style, no_wrap=True, end="")
    for last in row.lasts[1:-1]:
        text.append("  " if last else "│ ", style=guides)
    if row.depth:
        text.append("└─" if row.lasts[-1] else "├─", style=guides)
    if row.expandable:
        text.append(EXPANDED if row.expanded else COLLAPSED, style=guides + Style(meta={"toggle": True}))
    else:
        text.append(" ")
    shown = label.copy()
    if on_cursor:
        # On the cursor every span takes the cursor's colours, so a coloured badge never sits on a
        # background of its own colour; the words and symbols still say the state.
        shown.stylize(styles.cursor if focused else styles.cursor_blurred)
        shown.pad_right(max(0, width - text.cell_len - shown.cell_len))
    text.append_text(shown)
    if text.cell_len > width:  # cut where the tree ends, and visibly: never a number without its unit
        text.truncate(width, overflow="ellipsis")
    return Strip(list(text.render(console))).adjust_cell_length(width, line_style)


def widest_name(app: AppBranch) -> int:
    """The widest of an application's row and its streams' rows, up to the end of the name."""
    widest = GUIDE_WIDTH + len(EXPANDED) + cell_len(visible(app.path.name))
    for stream in app.streams:
        widest = max(widest, 2 * GUIDE_WIDTH + cell_len(visible(stream)))
    for stream in app.ended:  # under the "ended" group
        widest = max(widest, 3 * GUIDE_WIDTH + cell_len(visible(stream)))
    return widest


def unknown_badge_width(colours: Mapping[str, str], *, compact: bool) -> int:
    """The badges of a node not read yet: the least a row's badges take."""
    unknown = unknown_view(NodePath("v", "a", "s"))
    badges = Text.assemble(state_text(unknown.state, colours), "  n/a viewers") if compact \
        else node_badges(unknown, colours)
    return badges.cell_len

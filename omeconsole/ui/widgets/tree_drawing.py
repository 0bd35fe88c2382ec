"""How one row of the node tree is drawn, which drawn rows are kept, and how wide the tree must be.

Pure functions of a row (from `core/tree_model.TreeRows`), its label and the styles of one drawing pass;
`NodeTree` keeps what they return in its `DrawnRows`. A fleet's server rows come as `ServerLine`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from omeconsole.core.text import visible
from omeconsole.core.tree_model import AppBranch, VhostBranch
from omeconsole.core.tree_servers import Line
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath

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


@dataclass(frozen=True)
class ServerLine:
    """A server's row as the screen wants it drawn: its profile and its label (health and totals)."""

    profile: str
    label: Text
    needed: int
    """The columns of the label the tree makes room for (the rest may be cut)."""


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
    text.append_text(shown)
    if text.cell_len >= width:  # cut where the tree ends, visibly, and a blank column before what is beside it
        text.truncate(max(1, width - 1), overflow="ellipsis")
    return Strip(list(text.render(console))).adjust_cell_length(width, line_style)


class DrawnRows:
    """The strips of the rows on screen, each with what it was drawn from: a row whose place (cursor,
    hover, focus, width, styles) and label are unchanged is not drawn again."""

    def __init__(self) -> None:
        self._drawn: dict[int, tuple[tuple[object, ...], Text, Strip]] = {}

    def strip(self, index: int, row: Line, label: Text, *, width: int, styles: RowStyles, hover: bool,
              on_cursor: bool, focused: bool, console: Console) -> Strip:
        """Row `index`'s strip: the one kept when drawn from the same place and label, else drawn anew."""
        place = (row, on_cursor, on_cursor and focused, hover, width, styles)
        drawn = self._drawn.get(index)
        if drawn is not None and drawn[0] == place and (drawn[1] is label or drawn[1] == label):
            return drawn[2]
        strip = draw_row(row, label, width=width, styles=styles, row_index=index, hover=hover, on_cursor=on_cursor,
                         focused=focused, console=console)
        self._drawn[index] = (place, label, strip)
        return strip

    def keep_on_screen(self, top: int, height: int) -> None:
        """Scrolled away: only the rows in view stay (checked once the cache holds two screens' worth)."""
        if len(self._drawn) > 2 * max(1, height):
            self._drawn = {index: kept for index, kept in self._drawn.items() if top <= index < top + height}

    def clear(self) -> None:
        self._drawn.clear()


def prefix_width(row: Line) -> int:
    """The columns before a row's label: its guides and its ▶/▼ toggle (or a space), as `draw_row` draws them."""
    return GUIDE_WIDTH * max(0, len(row.lasts) - 2) + (GUIDE_WIDTH if row.depth else 0) \
        + (len(EXPANDED) if row.expandable else 1)


def widest_name(app: AppBranch) -> int:
    """The widest of an application's row and its streams' rows, up to the end of the name."""
    widest = GUIDE_WIDTH + len(EXPANDED) + cell_len(visible(app.path.name))
    for stream in app.streams:
        widest = max(widest, 2 * GUIDE_WIDTH + 1 + cell_len(visible(stream)))
    for stream in app.ended:  # under the "ended" group
        widest = max(widest, 3 * GUIDE_WIDTH + 1 + cell_len(visible(stream)))
    return widest


NAME_CAP = 40
"""The column where names end at most: a longer name is cut with `…` (the detail's header has it whole)."""
NAME_LEAST = 12
"""The column names may always reach, however little room the screen leaves."""
BADGE_ROOM = {False: cell_len("● live  webrtc  9,999 viewers  in 999.99 Mb/s  out 999.99 Mb/s"),
              True: cell_len("◐ stalled  99,999 viewers")}
"""The columns kept for a row's marks and badges, full and compact (a wider row leaves its least useful
badges out, see `badges.badge_parts`)."""
BADGE_LEAST = cell_len("▲ stale  999 viewers")
"""The badges' columns a long name leaves them at least."""
NARROWEST = 24


@dataclass(frozen=True)
class TreeColumns:
    """Where a row's parts go: the tree's width, the column where names end (the badges start two after
    it on every row) and the columns of the badges. Decided once per screen size (`tree_columns`)."""

    width: int
    name_end: int
    badge_room: int

    def name_room(self, row: Line) -> int:
        return self.name_end - prefix_width(row)


def tree_columns(name_widths: Iterable[int], vhosts: Iterable[VhostBranch], servers: Sequence[ServerLine],
                 room: int, *, compact: bool) -> TreeColumns:
    """The tree's columns for a screen leaving it `room` columns: its names (`name_widths`: the widest of each
    application branch, up to `NAME_CAP`), two spaces, the badges' reserved columns and one blank column
    before the panes beside it; under a fleet's server level one level deeper, and a server's row shows at
    least what its label `needed` (the rest is cut). Where the room is short the names are cut before the
    badges go below `BADGE_LEAST`."""
    depth = GUIDE_WIDTH if servers else 0
    names = min(NAME_CAP, max([NAME_LEAST, max(name_widths, default=0) + depth,
                               *(depth + len(EXPANDED) + cell_len(visible(vhost.path.name)) for vhost in vhosts)]))
    badges = BADGE_ROOM[compact]
    wanted = max([names + 2 + badges + 1, *(len(EXPANDED) + server.needed + 1 for server in servers)])
    width = max(NARROWEST, min(wanted, room))
    name_end = min(names, max(NAME_LEAST, width - 3 - BADGE_LEAST))
    return TreeColumns(width, name_end, max(0, width - name_end - 3))

"""The streams table's rows: one per stream of a listing, filtered and sorted by any column, cells as text.

A row is a stream of a server (`TableRow`): one server's table has one unnamed server (`""`, no server
column); a fleet's has a listing per member, its name in the `server` column, so a stream with the same
path on an origin and an edge is two rows. A member whose link is down keeps its rows, marked stale with
their data age (never live: its last figures are old).

Headless (no Textual): the widget asks for the rows it draws (`row(i)`), and only those rows' figures are
read and formatted. Sorting by a figure (viewers, rates, ...) reads every shown stream's figures, so, like
the tree's arranger, the order follows new readings at most every `resort_every` seconds (rows do not jump
every second, and 10,000 streams are not re-sorted at each reading); sorting by name reads no figure.

A figure the console does not have sorts last whichever way the column is sorted, and reads `n/a`
(`core/units`): an unread stream is never "the quietest".
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from omeconsole.core import units
from omeconsole.core.text import visible
from omeconsole.core.tree_model import matches
from omeconsole.core.uptime import uptime_s
from omeconsole.model.nodes import STALLED_MARK, STATE_MARKS, Listing, NodeState, NodeView, is_stalled
from omeconsole.model.paths import NodePath


class Column(enum.Enum):
    """The table's columns, left to right; the value is the header's word."""

    SERVER = "server"
    """A fleet's member (only on a fleet's table)."""
    STREAM = "stream"
    STATE = "state"
    INPUT = "input"
    VIEWERS = "viewers"
    IN = "in"
    OUT = "out"
    UPTIME = "uptime"
    AD = "ad break"
    ALERTS = "alerts"
    AGE = "age"


WIDTHS: dict[Column, int] = {
    Column.STATE: 10, Column.INPUT: 8, Column.VIEWERS: 8, Column.IN: 11, Column.OUT: 11, Column.UPTIME: 10,
    Column.AD: 9, Column.ALERTS: 7, Column.AGE: 8,
}
"""Cells of fixed width (the stream's name takes what is left)."""
GAP = 2
"""Cells between two columns."""
DROPPED_FIRST = (Column.AGE, Column.UPTIME, Column.INPUT, Column.IN, Column.ALERTS, Column.AD)
"""On a narrow terminal, columns go in this order until the stream's name has `STREAM_MIN_WIDTH` cells
(state, viewers and output stay: what is on air, and for whom)."""
SERVER_WIDTHS = (7, 16)
"""The server column is as wide as the longest member's name, within these bounds (its title and arrow at least)."""
RIGHT_ALIGNED = frozenset({Column.VIEWERS, Column.IN, Column.OUT, Column.UPTIME, Column.ALERTS, Column.AGE})
STREAM_MIN_WIDTH = 16



def column_widths(width: int, server_width: int = 0) -> dict[Column, int]:
    """The columns shown in `width` cells, left to right, with their widths (the stream's name takes the rest);
    `server_width` > 0: a fleet's table, with its server column first (never dropped: it tells rows apart)."""
    shown = ({Column.SERVER: server_width} if server_width > 0 else {}) | WIDTHS
    for column in DROPPED_FIRST:
        if width - sum(shown.values()) - GAP * (len(shown) + 1) >= STREAM_MIN_WIDTH:
            break
        del shown[column]
    rest = max(STREAM_MIN_WIDTH, width - sum(shown.values()) - GAP * (len(shown) + 1))
    return {column: rest if column is Column.STREAM else shown[column] for column in Column
            if column is Column.STREAM or column in shown}


def server_width(servers: Iterator[str] | tuple[str, ...]) -> int:
    """The server column's width for these members' names (0: one unnamed server, no column)."""
    longest = max((len(name) for name in servers), default=0)
    return 0 if longest == 0 else min(max(longest, SERVER_WIDTHS[0]), SERVER_WIDTHS[1])


class TableRow(NamedTuple):
    """One row: a stream of a server (`""` on a single server's table)."""

    server: str
    path: NodePath


_STATE_RANK = {"live": 0, "stalled": 1, "stale": 2, "waiting": 3, "unaddressable": 4, "ended": 5}
"""State sorted ascending: on air first, then what needs a look, the ended last."""


@dataclass(frozen=True, slots=True)
class StreamFacts:
    """What one stream's row says, before formatting."""

    path: NodePath
    state: NodeState
    stalled: bool
    input: str | None
    viewers: int | None
    rate_in_bps: float | None
    rate_out_bps: float | None
    uptime_s: float | None
    """Since the server's `createdTime` of the stream's current life, on the server's clock (`core/uptime`);
    None: ended, never read, or no honest figure."""
    ad: str | None
    """The ad board's mark for the stream (`AD 0:24`, a planned break), None when none."""
    alerts: int
    age_s: float | None
    """Seconds since the latest reading arrived."""

    @property
    def state_mark(self) -> tuple[str, str]:
        """(symbol, word): `●` live, `◐` stalled, `○` ended, `▲` stale, as the tree's rows say it."""
        return STALLED_MARK if self.stalled else STATE_MARKS[self.state]


@dataclass(frozen=True, slots=True)
class FactSource:
    """Where a row's figures come from: the engine's views, the ad board, the alerts, the screen's instant."""

    view_of: Callable[[NodePath], NodeView]
    ad_of: Callable[[NodePath], str | None]
    alerts_of: Callable[[NodePath], int]
    now: float
    """The console's monotonic clock, one instant for the whole table (data age, uptime)."""
    reachable: bool = True
    """False while the server's link is down: its streams read stale (their figures are old), never live."""

    def facts(self, path: NodePath) -> StreamFacts:
        view = self.view_of(path)
        facts = StreamFacts(path, view.state, is_stalled(view), _input(view), view.viewers, view.rate_in_bps,
                            view.rate_out_bps, uptime_s(view, self.now), self.ad_of(path), self.alerts_of(path),
                            view.age(self.now))
        if not self.reachable and view.state in (NodeState.LIVE, NodeState.STALE):
            return replace(facts, state=NodeState.STALE, stalled=False)
        return facts


@dataclass(frozen=True, slots=True)
class TableFacts:
    """Where every row's figures come from: each server's `FactSource` (one, named `""`, on one server)."""

    sources: Mapping[str, FactSource]
    now: float

    @classmethod
    def single(cls, source: FactSource) -> TableFacts:
        return cls({"": source}, source.now)

    def facts(self, row: TableRow) -> StreamFacts:
        return self.sources[row.server].facts(row.path)


def _input(view: NodeView) -> str | None:
    """The active input protocol (`connections_in`), else the source type (the tree's `input_protocol`)."""
    current = view.current
    if current is not None and current.stats.connections_in:
        active = sorted(name for name, n in current.stats.connections_in.items() if n > 0)
        if active:
            return ",".join(active)
    if view.info is not None and view.info.source_type:
        return view.info.source_type.lower()
    return None


def cells(facts: StreamFacts, server: str = "") -> dict[Column, str]:
    """The row's cells as text (server text through `core.text.visible`, never markup)."""
    symbol, word = facts.state_mark
    ended = facts.state is NodeState.ENDED
    return {
        Column.SERVER: visible(server, limit=SERVER_WIDTHS[1] + 1),
        Column.STREAM: visible(str(facts.path), limit=200),
        Column.STATE: f"{symbol} {word}",
        Column.INPUT: visible(facts.input, limit=12) if facts.input else ("—" if ended else units.NA),
        Column.VIEWERS: "—" if ended else units.count(facts.viewers),
        Column.IN: "—" if ended else units.rate(facts.rate_in_bps),
        Column.OUT: "—" if ended else units.rate(facts.rate_out_bps),
        Column.UPTIME: units.uptime(facts.uptime_s),
        Column.AD: visible(facts.ad, limit=12) if facts.ad else "",
        Column.ALERTS: f"⚑ {facts.alerts}" if facts.alerts else "",
        Column.AGE: units.age(facts.age_s),
    }


def _value(column: Column, row: TableRow, source: TableFacts) -> float | str | None:
    """What a column sorts on (None: unknown, sorted last either way); the server's name reads no figure."""
    if column is Column.SERVER:
        return row.server.casefold()
    facts = source.facts(row)
    match column:
        case Column.STATE:
            return float(_STATE_RANK[facts.state_mark[1]])
        case Column.INPUT:
            return facts.input.casefold() if facts.input else None
        case Column.VIEWERS:
            return None if facts.viewers is None else float(facts.viewers)
        case Column.IN:
            return _finite(facts.rate_in_bps)
        case Column.OUT:
            return _finite(facts.rate_out_bps)
        case Column.UPTIME:
            return facts.uptime_s
        case Column.AD:
            return facts.ad.casefold() if facts.ad else None
        case Column.ALERTS:
            return float(facts.alerts)
        case Column.AGE:
            return facts.age_s
        case _:
            return _name_key(row.path)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _name_key(path: NodePath) -> str:
    return str(path).casefold()


@dataclass(frozen=True, slots=True)
class TableOrder:
    column: Column = Column.STREAM
    descending: bool = False

    def pressed(self, column: Column) -> TableOrder:
        """A column's sort key pressed: sort by it (figures busiest first, words A to Z); again: reversed."""
        if column is self.column:
            return TableOrder(column, not self.descending)
        return TableOrder(column, descending=column in RIGHT_ALIGNED and column is not Column.AGE)

    @property
    def arrow(self) -> str:
        return "▼" if self.descending else "▲"

    @property
    def text(self) -> str:
        """What the status line says: `out ▼`."""
        return f"{self.column.value} {self.arrow}"

    @property
    def follows_readings(self) -> bool:
        return self.column not in (Column.STREAM, Column.SERVER)


class StreamTable:
    """The streams of one listing per server as table rows, filtered by name and sorted by a column."""

    def __init__(self, *, resort_every: float = 5.0) -> None:
        self.resort_every = resort_every
        self._listings: dict[str, Listing] = {}
        self._needle = ""
        self._order = TableOrder()
        self._sorted_at = -math.inf
        self._rows: tuple[TableRow, ...] = ()
        self._index: dict[TableRow, int] | None = None

    @property
    def order(self) -> TableOrder:
        return self._order

    @property
    def needle(self) -> str:
        return self._needle

    def arrange(self, listings: Mapping[str, Listing], needle: str, order: TableOrder, facts: TableFacts) -> bool:
        """Rows for these listings (server -> its listing, in the fleet's order), filter and order; True when
        they changed (a new listing, filter or order, or, sorted by a figure, `resort_every` seconds since the
        last sort)."""
        resort = order.follows_readings and facts.now - self._sorted_at >= self.resort_every
        if (_same(listings, self._listings) and needle == self._needle and order == self._order
                and not resort):
            return False
        self._listings, self._needle, self._order, self._sorted_at = dict(listings), needle, order, facts.now
        shown = [row for server, listing in listings.items() for row in _streams(server, listing)
                 if not needle or matches(row.path, needle) or needle.casefold() in server.casefold()]
        rows = tuple(_sorted(shown, order, facts))
        if rows == self._rows:
            return False
        self._rows = rows
        self._index = None
        return True

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, index: int) -> TableRow:
        return self._rows[index]

    def rows(self) -> tuple[TableRow, ...]:
        return self._rows

    def index_of(self, row: TableRow) -> int | None:
        """The index of `row` (None when it is not shown); the index is built once per arrangement."""
        if self._index is None:
            self._index = {row: i for i, row in enumerate(self._rows)}
        return self._index.get(row)

    def find(self, path: NodePath, server: str) -> int | None:
        """Stream `path`'s row on `server`, else on the first server that has it (None: not shown)."""
        index = self.index_of(TableRow(server, path))
        if index is not None:
            return index
        return next((i for i, row in enumerate(self._rows) if row.path == path), None)


def _same(listings: Mapping[str, Listing], before: Mapping[str, Listing]) -> bool:
    """The same servers with the same listings (a listing is replaced when it changes: compared by identity)."""
    return listings.keys() == before.keys() and all(listing is before[name] for name, listing in listings.items())


def _streams(server: str, listing: Listing) -> Iterator[TableRow]:
    """Every stream of the listing, live then ended, in listing order."""
    for vhost, apps in listing.items():
        for app, streams in apps.items():
            for name in (*streams.live, *streams.ended):
                yield TableRow(server, NodePath(vhost, app, name))


def _sorted(rows: list[TableRow], order: TableOrder, source: TableFacts) -> list[TableRow]:
    """By the column's value (unknown values last either way), ties by name A to Z, then the servers' order."""
    servers = {name: i for i, name in enumerate(source.sources)}
    by_name = sorted(rows, key=lambda row: (_name_key(row.path), str(row.path), servers.get(row.server, 0)))
    if order.column is Column.STREAM:
        return by_name[::-1] if order.descending else by_name
    valued: list[tuple[float | str, TableRow]] = []
    unknown: list[TableRow] = []
    for row in by_name:
        value = _value(order.column, row, source)
        if value is None:
            unknown.append(row)
        else:
            valued.append((value, row))
    valued.sort(key=lambda pair: pair[0], reverse=order.descending)  # stable: ties stay by name
    return [row for _, row in valued] + unknown

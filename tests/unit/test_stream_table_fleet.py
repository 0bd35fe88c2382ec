"""The streams table's rows on a fleet (`core/stream_table`): a row per stream of every server, the same path
on two servers as two rows, sorted and filtered by the server's name, and an unreachable server's streams
stale (never live) while an ended stream stays ended."""

from __future__ import annotations

from datetime import UTC, datetime

from omeconsole.core.stream_table import (
    Column,
    FactSource,
    StreamTable,
    TableFacts,
    TableOrder,
    TableRow,
    cells,
    column_widths,
)
from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath

WALL = datetime(2026, 11, 29, tzinfo=UTC)


def listing(*live: str, ended: tuple[str, ...] = ()) -> Listing:
    return {"default": {"app": AppStreams(live, ended)}}


def source(states: dict[str, NodeState], *, reachable: bool = True) -> FactSource:
    def view_of(path: NodePath) -> NodeView:
        return NodeView(path, states.get(path.stream or "", NodeState.LIVE))

    return FactSource(view_of, lambda _path: None, lambda _path: 0, 10.0, reachable=reachable)


def fleet(reachable: bool = True) -> tuple[dict[str, Listing], TableFacts]:
    listings = {"origin": listing("news", "sport"), "edge-1": listing("news", ended=("old",))}
    sources = {"origin": source({}), "edge-1": source({"old": NodeState.ENDED}, reachable=reachable)}
    return listings, TableFacts(sources, 10.0)


def path(name: str) -> NodePath:
    return NodePath("default", "app", name)


def test_the_same_path_on_two_servers_is_two_rows_told_apart_by_the_server() -> None:
    table = StreamTable()
    listings, facts = fleet()
    assert table.arrange(listings, "", TableOrder(), facts)
    assert table.rows() == (TableRow("origin", path("news")), TableRow("edge-1", path("news")),
                            TableRow("edge-1", path("old")), TableRow("origin", path("sport")))
    assert table.find(path("news"), "edge-1") == 1 and table.find(path("sport"), "edge-1") == 3


def test_sorted_by_server_both_ways_and_filtered_by_its_name() -> None:
    table = StreamTable()
    listings, facts = fleet()
    order = TableOrder().pressed(Column.SERVER)
    table.arrange(listings, "", order, facts)
    assert [row.server for row in table.rows()] == ["edge-1", "edge-1", "origin", "origin"]
    table.arrange(listings, "", order.pressed(Column.SERVER), facts)
    assert [row.server for row in table.rows()] == ["origin", "origin", "edge-1", "edge-1"]
    table.arrange(listings, "EDGE", order, facts)
    assert {row.server for row in table.rows()} == {"edge-1"} and len(table) == 2


def test_an_unreachable_servers_live_streams_read_stale_its_ended_stay_ended() -> None:
    _, facts = fleet(reachable=False)
    news = facts.facts(TableRow("edge-1", path("news")))
    assert news.state is NodeState.STALE and cells(news, "edge-1")[Column.STATE] == "▲ stale"
    assert facts.facts(TableRow("edge-1", path("old"))).state is NodeState.ENDED
    assert facts.facts(TableRow("origin", path("news"))).state is NodeState.LIVE


def test_the_server_column_comes_first_and_stays_on_a_narrow_terminal() -> None:
    widths = column_widths(80, 7)
    assert next(iter(widths)) is Column.SERVER and widths[Column.SERVER] == 7
    assert Column.SERVER not in column_widths(80)

"""The tree model: arranging a listing (filter, sort, incremental per application) and laying it out as rows."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from omeconsole.core.tree_model import Arrangement, SortOrder, TreeArranger
from omeconsole.core.tree_rows import Row, TreeRows
from omeconsole.core.tree_servers import ServerRow, ShownRows
from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

T0 = datetime(2026, 1, 1, tzinfo=UTC)
STATS = NodeStats(created=T0, last_updated=T0, total_bytes_in=0, total_bytes_out=0, connections_in={},
                  connections_out={}, total_connections=0, max_total_connections=0, max_total_connection_time=T0,
                  avg_throughput_in_bps=0, avg_throughput_out_bps=0, max_throughput_in_bps=0,
                  max_throughput_out_bps=0, last_throughput_in_bytes=0, last_throughput_out_bytes=0)


class Readings:
    """Viewers per node, and a count of every node the arranger asked about."""

    def __init__(self, viewers: dict[str, int] | None = None) -> None:
        self.viewers = dict(viewers or {})
        self.asked: Counter[str] = Counter()

    def __call__(self, path: NodePath) -> Sample | None:
        self.asked[str(path)] += 1
        n = self.viewers.get(str(path))
        return None if n is None else Sample(at=0.0, rate_in_bps=float(n) * 1000, rate_out_bps=None, viewers=n,
                                             stats=STATS)


def listing(**apps: tuple[str, ...]) -> dict[str, dict[str, AppStreams]]:
    return {"default": {name: AppStreams(streams) for name, streams in apps.items()}}


def streams_of(arrangement: Arrangement) -> list[str]:
    return [str(p) for p in arrangement.paths() if p.level == "stream"]


NEWS = ("news", "backup", "sports")


class TestArranging:
    def test_streams_are_in_name_order_under_their_application(self) -> None:
        arranged = TreeArranger(Readings()).arrange(listing(app=NEWS, live=("concert",)), 0.0)
        assert [str(p) for p in arranged.paths()] == [
            "default", "default/app", "default/app/backup", "default/app/news", "default/app/sports",
            "default/live", "default/live/concert"]

    def test_filter_keeps_matches_and_their_parents(self) -> None:
        arranger = TreeArranger(Readings())
        arranger.arrange_by("CONC", SortOrder.NAME)
        arranged = arranger.arrange(listing(app=NEWS, live=("concert",)), 0.0)
        assert [str(p) for p in arranged.paths()] == ["default", "default/live", "default/live/concert"]

    def test_a_matching_application_keeps_all_its_streams(self) -> None:
        arranger = TreeArranger(Readings())
        arranger.arrange_by("app", SortOrder.NAME)
        assert streams_of(arranger.arrange(listing(app=NEWS, live=("concert",)), 0.0)) == [
            "default/app/backup", "default/app/news", "default/app/sports"]

    def test_no_match_gives_an_empty_tree(self) -> None:
        arranger = TreeArranger(Readings())
        arranger.arrange_by("nothing-like-this", SortOrder.NAME)
        assert arranger.arrange(listing(app=NEWS), 0.0).vhosts == ()

    def test_sorted_by_viewers_busiest_first_and_unread_last(self) -> None:
        readings = Readings({"default/app/news": 25, "default/app/backup": 0, "default/app/sports": 80})
        arranger = TreeArranger(readings)
        arranger.arrange_by("", SortOrder.VIEWERS)
        arranged = arranger.arrange(listing(app=(*NEWS, "unread")), 0.0)
        assert streams_of(arranged) == ["default/app/sports", "default/app/news", "default/app/backup",
                                        "default/app/unread"]

    def test_ended_streams_sit_in_a_closed_group_after_the_live_ones(self) -> None:
        shown = {"default": {"app": AppStreams(("news", "sports"), ended=("gone", "aired")),
                             "zed": AppStreams(("one",))}}
        arranged = TreeArranger(Readings()).arrange(shown, 0.0)
        closed = TreeRows(arranged)
        assert [(str(closed.row(i).path), closed.row(i).depth, closed.row(i).group) for i in range(len(closed))] == [
            ("default", 0, False), ("default/app", 1, False), ("default/app/news", 2, False),
            ("default/app/sports", 2, False), ("default/app", 2, True), ("default/zed", 1, False),
            ("default/zed/one", 2, False)]
        group = closed.row(4)
        assert group.held == 2 and group.expandable and not group.expanded
        assert closed.row(3).lasts == (True, False, False), "the group, not the last live stream, ends the app"
        assert closed.index_of(NodePath("default", "app", "gone")) is None

        opened = TreeRows(arranged, ended_open={NodePath("default", "app")})
        assert [(str(opened.row(i).path), opened.row(i).depth, opened.row(i).ended) for i in range(4, 7)] == [
            ("default/app", 2, False), ("default/app/aired", 3, True), ("default/app/gone", 3, True)]
        assert opened.row(4).expanded and opened.group_index(NodePath("default", "app")) == 4
        assert opened.index_of(NodePath("default", "app", "gone")) == 6
        assert opened.row(6).lasts == (True, False, True, True)

    def test_the_filter_applies_to_ended_streams(self) -> None:
        shown = {"default": {"app": AppStreams(("news",), ended=("gone", "newsroom"))}}
        arranger = TreeArranger(Readings())
        arranger.arrange_by("news", SortOrder.NAME)
        app = arranger.arrange(shown, 0.0).vhosts[0].apps[0]
        assert (app.streams, app.ended) == (("news",), ("newsroom",))

    def test_children_in_display_order(self) -> None:
        arranged = TreeArranger(Readings()).arrange(listing(app=NEWS, live=("concert",)), 0.0)
        assert arranged.children(NodePath("default")) == [NodePath("default", "app"), NodePath("default", "live")]
        assert arranged.children(NodePath("default", "app"))[0] == NodePath("default", "app", "backup")
        assert arranged.children(NodePath("default", "nope")) == []


class TestIncremental:
    def test_an_unchanged_listing_gives_the_same_arrangement(self) -> None:
        arranger = TreeArranger(Readings())
        shown = listing(app=NEWS)
        first = arranger.arrange(shown, 0.0)
        assert arranger.arrange(shown, 1.0) is first
        assert arranger.arrange({"default": dict(shown["default"])}, 2.0) is first, "same apps, same picture"

    def test_only_the_application_that_changed_is_arranged_again(self) -> None:
        readings = Readings()
        arranger = TreeArranger(readings)
        before = listing(app=NEWS, live=("concert",))
        first = arranger.arrange(before, 0.0)
        after = {"default": {"app": before["default"]["app"], "live": AppStreams(("concert", "bazaar"))}}
        second = arranger.arrange(after, 1.0)
        assert second is not first
        assert second.vhosts[0].apps[0] is first.vhosts[0].apps[0], "the untouched app keeps its branch"
        assert second.vhosts[0].apps[1].streams == ("bazaar", "concert")

    def test_a_live_order_moves_only_changed_streams_and_at_most_every_few_seconds(self) -> None:
        names = tuple(f"s{i:03d}" for i in range(200))
        readings = Readings({f"default/app/{n}": 10 for n in names})
        arranger = TreeArranger(readings, resort_every=5.0)
        arranger.arrange_by("", SortOrder.VIEWERS)
        shown = listing(app=names)
        first = arranger.arrange(shown, 0.0)
        assert first.vhosts[0].apps[0].streams == names
        readings.viewers["default/app/s150"] = 99
        readings.viewers["default/app/s020"] = 99  # changed, but not reported: stays where it is
        readings.asked.clear()
        arranger.readings_changed([NodePath("default", "app", "s150")])
        assert arranger.arrange(shown, 4.0) is first, "not yet: rows do not jump every second"
        moved = arranger.arrange(shown, 5.0)
        assert moved.vhosts[0].apps[0].streams[:3] == ("s150", "s000", "s001")
        assert "default/app/s020" not in readings.asked
        assert sum(n for path, n in readings.asked.items() if path.count("/") == 2) == 1, \
            "one stream's reading looked at, not 200"

    def test_changing_the_order_rearranges_at_once(self) -> None:
        readings = Readings({"default/app/news": 5, "default/app/backup": 50})
        arranger = TreeArranger(readings, resort_every=5.0)
        shown = listing(app=NEWS)
        arranger.arrange(shown, 0.0)
        arranger.arrange_by("", SortOrder.VIEWERS)
        assert streams_of(arranger.arrange(shown, 0.1))[:2] == ["default/app/backup", "default/app/news"]


class TestRows:
    def arranged(self) -> Arrangement:
        shown: Listing = {"a": {"x": AppStreams(("1", "2")), "y": AppStreams(("3",))}, "b": {"z": AppStreams(())}}
        return TreeArranger(Readings()).arrange(shown, 0.0)

    def test_rows_follow_the_arrangement_depth_first(self) -> None:
        rows = TreeRows(self.arranged())
        assert [str(p) for p in rows.paths()] == ["a", "a/x", "a/x/1", "a/x/2", "a/y", "a/y/3", "b", "b/z"]
        assert [rows.row(i).depth for i in range(len(rows))] == [0, 1, 2, 2, 1, 2, 0, 1]

    def test_guides_know_which_nodes_are_last(self) -> None:
        rows = TreeRows(self.arranged())
        assert rows.row(2).lasts == (False, False, False)  # a/x/1: a, x and 1 all have siblings after
        assert rows.row(5).lasts == (False, True, True)  # a/y/3
        assert rows.row(7).lasts == (True, True)  # b/z

    def test_collapsed_branches_hide_their_children(self) -> None:
        rows = TreeRows(self.arranged(), collapsed={NodePath("a", "x"), NodePath("b")})
        assert [str(p) for p in rows.paths()] == ["a", "a/x", "a/y", "a/y/3", "b"]
        assert not rows.row(1).expanded and rows.row(2).expanded
        assert rows.index_of(NodePath("a", "x", "1")) is None
        assert rows.index_of(NodePath("b", "z")) is None
        assert rows.index_of(NodePath("a", "y", "3")) == 3

    def test_ten_thousand_streams_are_addressed_without_walking_them(self) -> None:
        shown = {f"v{v}": {f"app{a:02d}": AppStreams(tuple(f"s{s:03d}" for s in range(100))) for a in range(25)}
                 for v in range(4)}
        rows = TreeRows(TreeArranger(Readings()).arrange(shown, 0.0))
        assert len(rows) == 4 + 100 + 10_000
        middle = rows.row(5_000)
        assert rows.index_of(middle.path) == 5_000
        assert str(rows.row(len(rows) - 1).path) == "v3/app24/s099"


names = st.text(alphabet="abcXYZ/ é\x1b", min_size=0, max_size=4)
listings = st.dictionaries(names, st.dictionaries(names, st.lists(names, max_size=6, unique=True), max_size=4),
                           max_size=3)


def as_listing(raw: dict[str, dict[str, list[str]]], ended: int = 0) -> Listing:
    return {v: {a: AppStreams(tuple(s[ended:]), tuple(s[:ended])) for a, s in apps.items()} for v, apps in raw.items()}


def expected_rows(arrangement: Arrangement, collapsed: set[NodePath], ended_open: set[NodePath]) -> list[NodePath]:
    """Depth first: host, application, its live streams, then its "ended" group (the application's path) and,
    when the group is open, its ended streams."""
    rows: list[NodePath] = []
    for vhost in arrangement.vhosts:
        rows.append(vhost.path)
        for app in vhost.apps if vhost.path not in collapsed else ():
            rows.append(app.path)
            if app.path in collapsed:
                continue
            rows += [NodePath(app.path.vhost, app.path.app, name) for name in app.streams]
            if app.ended:
                rows.append(app.path)
                if app.path in ended_open:
                    rows += [NodePath(app.path.vhost, app.path.app, name) for name in app.ended]
    return rows


@settings(max_examples=150, deadline=None)
@given(listings, st.sets(st.sampled_from(["", "a", "b", "c"])), st.sets(st.sampled_from(["", "a", "b", "c"])),
       st.text(alphabet="abX", max_size=2))
def test_rows_and_positions_agree_with_the_arrangement(raw: dict[str, dict[str, list[str]]], collapse: set[str],
                                                       open_ended: set[str], needle: str) -> None:
    arranger = TreeArranger(Readings())
    arranger.arrange_by(needle, SortOrder.NAME)
    arrangement = arranger.arrange(as_listing(raw, ended=1), 0.0)
    collapsed = {p for p in arrangement.paths() if p.level != "stream" and p.name[:1] in collapse}
    ended_open = {p for p in arrangement.paths() if p.level == "app" and p.name[:1] in open_ended}
    rows = TreeRows(arrangement, collapsed, ended_open)
    assert rows.paths() == expected_rows(arrangement, collapsed, ended_open)
    for i in range(len(rows)):
        row = rows.row(i)
        assert (rows.group_index(row.path) if row.group else rows.index_of(row.path)) == i


@settings(max_examples=100, deadline=None)
@given(st.lists(listings, min_size=1, max_size=5), st.sampled_from(list(SortOrder)),
       st.text(alphabet="abX", max_size=2))
def test_following_changes_gives_what_arranging_afresh_gives(steps: list[dict[str, dict[str, list[str]]]],
                                                             order: SortOrder, needle: str) -> None:
    readings = Readings({})
    incremental = TreeArranger(readings, resort_every=0.0)
    incremental.arrange_by(needle, order)
    for t, raw in enumerate(steps):
        shown = as_listing(raw)
        for path in TreeArranger(Readings()).arrange(shown, 0.0).paths():
            readings.viewers[str(path)] = (hash(str(path)) + t) % 7
        incremental.readings_changed(p for p in TreeArranger(Readings()).arrange(shown, 0.0).paths())
        got = incremental.arrange(shown, float(t))
        fresh = TreeArranger(readings)
        fresh.arrange_by(needle, order)
        assert list(got.paths()) == list(fresh.arrange(shown, 0.0).paths())


@settings(max_examples=100, deadline=None)
@given(listings, st.integers(min_value=1, max_value=4), st.data(), st.booleans())
def test_a_server_level_puts_the_current_servers_rows_under_its_row(
        raw: dict[str, dict[str, list[str]]], count: int, data: st.DataObject, open_: bool) -> None:
    servers = [f"server-{i}" for i in range(count)]
    current = data.draw(st.sampled_from(servers))
    inner = TreeRows(TreeArranger(Readings()).arrange(as_listing(raw, ended=1), 0.0),
                     ended_open={NodePath(v, a) for v, apps in raw.items() for a in apps})
    shown = ShownRows(inner, servers, current, open_=open_)
    lines = [shown.line(i) for i in range(len(shown))]
    assert [line.profile for line in lines if isinstance(line, ServerRow)] == servers, "every server, in order"
    at = servers.index(current) + 1
    nodes = lines[at:at + (len(inner) if open_ else 0)]
    assert all(isinstance(line, Row) for line in nodes) and len(lines) == len(servers) + len(nodes)
    assert [(line.path, line.depth) for line in nodes if isinstance(line, Row)] == \
        [(inner.row(i).path, inner.row(i).depth + 1) for i in range(len(nodes))], "one level deeper"
    for index, line in enumerate(lines):
        parent = shown.parent_index(line)
        if isinstance(line, ServerRow):
            assert shown.server_index(line.profile) == index and parent is None
            assert line.expanded == (line.profile == current and open_)
        else:
            assert (shown.group_index(line.path) if line.group else shown.index_of(line.path)) == index
            assert parent is not None and parent < index and lines[parent].depth == line.depth - 1

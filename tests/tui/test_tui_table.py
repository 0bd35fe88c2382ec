"""The streams table (`t` on the dashboard) against the real simulator through Pilot: every column sorted
both ways, the filter and the jump as in the tree, the selection carried between the views, and 10,000
streams (`scale`) of which only the rows on screen are read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from textual.widgets import Input
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
)

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.model.nodes import NodeState, NodeView, is_stalled
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import TABLE_SORT_KEYS
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.stream_table import StreamTableView

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
STATES = ("live", "stalled", "stale", "waiting", "unaddressable", "ended")


def table_of(app: ConsoleApp) -> StreamTableView:
    return app.screen.query_one(StreamTableView)


def table_lines(app: ConsoleApp) -> list[str]:
    return shown(table_of(app)).splitlines()


def what_sorts(column: str, view: NodeView, app: ConsoleApp) -> float | str | None:
    """The figure a user reads in `column`, taken from the engine's view, not from the table."""
    current = view.current
    match column:
        case "stream":
            return str(view.path).casefold()
        case "state":
            word = "stalled" if is_stalled(view) else {NodeState.UNKNOWN: "waiting"}.get(view.state, view.state.value)
            return float(STATES.index(word))
        case "input":
            if current is not None and current.stats.connections_in:
                return ",".join(sorted(k for k, n in current.stats.connections_in.items() if n > 0)) or None
            return view.info.source_type.lower() if view.info is not None and view.info.source_type else None
        case "viewers":
            return None if view.viewers is None else float(view.viewers)
        case "in":
            return view.rate_in_bps
        case "out":
            return view.rate_out_bps
        case "uptime":  # the server's own span (createdTime to its newest stamp), not the console's wall clock
            if current is None or current.stats.created is None or current.stats.last_updated is None:
                return None
            return (max(current.stats.last_updated, current.stats.last_recv or current.stats.last_updated)
                    - current.stats.created).total_seconds()
        case "age":
            return view.age(app.session.clock.monotonic())
        case _:
            return None


async def shown_in_table(pilot: Any, driver: Driver, *, seconds: int = 4) -> None:
    await pilot.press("t")
    await driver.step(1.0, times=seconds)


async def test_every_column_sorts_both_ways_and_the_header_says_which(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        await shown_in_table(pilot, driver, seconds=6)
        table = table_of(app)
        listed = {NodePath(s.vhost, s.app, s.name)
                  for s in threaded_sim.call(lambda: list(threaded_sim.running.world.live_streams()))}
        assert set(table.paths()) >= listed and len(listed) >= 6
        for column, key, _ in TABLE_SORT_KEYS:
            if column == "server":  # one server: no server column, and its key changes nothing
                before = (table.order, table.paths())
                await pilot.press(key)
                assert (table.order, table.paths()) == before and "server" not in table_lines(app)[0]
                continue
            first_descending = None
            for _press in (1, 2):
                await pilot.press(key)
                descending = table.order.descending
                header = table_lines(app)[0]
                title = {"ad": "ad break"}.get(column, column)
                assert f"{title}{'▼' if descending else '▲'}" in header, (column, header)
                order = table.paths()
                values = [what_sorts(column, app.session.engine.node(path), app) for path in order]
                known = [v for v in values if v is not None]
                assert values == known + [None] * (len(values) - len(known)), f"{column}: unknown sorts last"
                assert known == sorted(known, reverse=descending), (column, descending, values)
                first_row = table_lines(app)[1]
                assert str(order[0]) in first_row, (column, first_row)
                if first_descending is not None:
                    assert descending != first_descending, f"{column}: pressed again, the other way round"
                first_descending = descending
        # The figure columns have figures to sort by: the simulator's streams are read.
        await pilot.press("O")
        assert table.order.descending, "a first press on a figure: busiest first (a top-N by output)"
        rates = [app.session.engine.node(path).rate_out_bps for path in table.paths()]
        assert rates[0] is not None and rates[0] > 0 and rates[0] == max(r for r in rates if r is not None)
        assert "sort: table out ▼" in status_of(app)
        before = table.paths()
        await pilot.press("s")  # the tree's sort key: the table says which keys are its own
        assert table.paths() == before and "N T P V I O U B L D" in status_of(app)


async def test_the_filter_and_the_jump_work_in_the_table_as_in_the_tree(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await shown_in_table(pilot, driver)
        table = table_of(app)
        everything = table.paths()
        await pilot.press("slash", *"news", "enter")
        assert table.paths() and all("news" in str(path) for path in table.paths())
        assert len(table.paths()) < len(everything)
        body = table_lines(app)[1:]
        assert [line for line in body if line.strip()][: len(table.paths())][0].startswith(str(table.paths()[0]))
        await pilot.press("escape")
        assert table.paths() == everything

        target = everything[-1]
        await pilot.press("colon")
        assert isinstance(app.screen, JumpPrompt)
        await pilot.press(*str(target), "enter")
        assert isinstance(app.screen, DashboardScreen)
        assert table.display and table.cursor_path == target
        await driver.step()
        assert app.session.engine.selected == target
        assert any(str(target) in line for line in table_lines(app)[1:])

        await pilot.press("slash", *"news", "enter")  # a filter that hides the stream jumped to: cleared
        await pilot.press("colon", *str(target), "enter")
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        assert table.cursor_path == target and dashboard.filter_text == ""
        assert app.screen.query_one("#filter", Input).display is False


async def test_the_selected_stream_stays_selected_between_tree_and_table(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        tree = app.screen.query_one(NodeTree)
        assert tree.cursor_path == NEWS
        await pilot.press("t")
        table = table_of(app)
        assert table.display and not tree.display
        assert table.cursor_path == NEWS and app.session.engine.selected == NEWS
        cursor_line = table_lines(app)[1 + table.cursor - int(table.scroll_y)]
        assert cursor_line.startswith(str(NEWS))
        await pilot.press("j")
        moved = table.cursor_path
        assert moved is not None and moved != NEWS
        await driver.step()
        assert app.session.engine.selected == moved
        await pilot.press("t")
        assert tree.display and not table.display and tree.cursor_path == moved
        await pilot.press("enter")
        opened = app.screen
        assert isinstance(opened, NodeScreen) and opened.selected_path() == moved, "Enter opens what the table had"


async def test_ten_thousand_streams_draw_only_the_rows_on_screen_and_G_shows_the_last(
        console_clock: ParkingClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ThreadedSimulator("scale") as sim:
        app = make_app(sim.api_url, console_clock, tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.warm_up(2)
            await pilot.press("t")
            await driver.step()
            table = table_of(app)
            assert len(table.paths()) >= 10_000
            engine = app.session.engine
            asked: set[NodePath] = set()
            node: Callable[[NodePath], NodeView] = engine.node

            def counted(path: NodePath) -> NodeView:
                asked.add(path)
                return node(path)

            monkeypatch.setattr(engine, "node", counted)
            await driver.step()
            on_screen = set(table.visible_paths())
            assert 0 < len(on_screen) <= table.size.height
            assert {p for p in asked if p.stream is not None} <= on_screen | {engine.selected}

            asked.clear()
            await pilot.press("G")
            await driver.step()
            last = table.paths()[-1]
            assert table.cursor_path == last
            lines = [line for line in table_lines(app) if line.strip()]
            assert lines[-1].startswith(str(last)), lines[-1]
            streams_read = {p for p in asked if p.stream is not None}
            assert streams_read <= set(table.visible_paths()) | {engine.selected}
            assert len(streams_read) <= table.size.height, "only the rows on screen are read, not 10,000"


async def test_the_table_at_120x40(snapshot: SnapshotAssertion, threaded_sim: ThreadedSimulator,
                                   tmp_path: Path) -> None:
    clock = ParkingClock()
    app = make_app(threaded_sim.api_url, clock, tmp_path, select=str(NEWS), fixed_address=True)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, clock, threaded_sim)
        await driver.warm_up(3)
        await pilot.press("t", "O")
        await driver.step(1.0, times=6)  # the order follows the readings every 5 s
        await pilot.wait_for_scheduled_animations()
        picture = app.export_screenshot()
    assert snapshot.use_extension(SVGImageSnapshotExtension) == picture


async def test_a_narrow_terminal_keeps_the_name_state_viewers_and_output(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(80, 24)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        await shown_in_table(pilot, driver, seconds=2)
        header, *rows = table_lines(app)
        assert header.split() == ["stream▲", "state", "viewers", "out", "ad", "break", "alerts"], header
        news = next(row for row in rows if row.startswith(str(NEWS)))
        assert "● live" in news and "/s" in news, news
        assert all(len(row) <= 80 for row in rows)


async def test_a_stalled_stream_with_its_alert_firing_reads_so_and_sorts_by_state_and_alerts(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    rule = AlertRule(name="news ingest", kind="ingest_stopped", scope=str(NEWS), after=3, severity="critical")
    with ThreadedSimulator(faults="ingest-stall=at:8s:for:60s,streams=default/app/news") as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, alerts=[rule])
        async with app.run_test(size=(160, 48)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.warm_up(2)
            await shown_in_table(pilot, driver, seconds=2)
            table = table_of(app)

            def news_row() -> str:
                return next(line for line in table_lines(app)[1:] if line.startswith(str(NEWS)))

            assert "● live" in news_row() and "⚑" not in news_row()
            for _ in range(40):  # the alert fires 3 s into the stall, the row says stalled after 10 s
                await driver.step()
                if "◐ stalled" in news_row():
                    break
            assert "◐ stalled" in news_row() and "⚑ 1" in news_row(), news_row()
            await pilot.press("L")  # alerts: most first
            assert table.paths()[0] == NEWS and table_lines(app)[1].startswith(str(NEWS))
            await pilot.press("L")
            assert table.paths()[-1] == NEWS
            await pilot.press("T")  # state: live first, then stalled
            rows = [line for line in table_lines(app)[1:] if line.strip()]
            live = [i for i, line in enumerate(rows) if "● live" in line]
            assert live and max(live) < rows.index(news_row()), rows

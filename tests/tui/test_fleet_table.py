"""The streams table (`t`) on a fleet, through Pilot against real simulators (each with its own token and
edition): a row per stream of every server with the server column (the same path on two servers is two rows),
sorted by server both ways, filtered by a server's name, Enter and `:` on the right server's stream, the
selection carried to the tree on that server, and a stopped server's rows kept and marked stale with their
data age while the others stay live."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fleet_support import SERVERS
from fleet_ui_support import FleetDriver, as_fleet, fleet_app, independent, server_rows
from textual.app import App
from ui_support import ParkingClock, ThreadedSimulator, console_clock, quiet_ui, shown, status_of

from omeconsole.core.stream_table import TableRow
from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.fleet_screen import FleetScreen
from omeconsole.ui.screens.jump_prompt import JumpPrompt
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.stream_table import StreamTableView

__all__ = ["console_clock", "quiet_ui"]

STREAM = NodePath("default", "app", "stream")
PROFILES = [profile for profile, _, _ in SERVERS]


@pytest.fixture
def three() -> Iterator[list[ThreadedSimulator]]:
    sims = independent(3)
    yield sims
    for sim in sims:
        sim.stop()


def table_of(app: App[None]) -> StreamTableView:
    return app.screen.query_one(StreamTableView)


def body(app: App[None]) -> list[str]:
    """The table's rows as drawn, without the header and the blank lines under the last row."""
    return [line for line in shown(table_of(app)).splitlines()[1:] if line.strip()]


def header(app: App[None]) -> list[str]:
    return shown(table_of(app)).splitlines()[0].split()


def live_streams(sim: ThreadedSimulator) -> set[NodePath]:
    """The streams the simulator's world has on air, read from the world (not through the console)."""
    return {NodePath(s.vhost, s.app, s.name) for s in sim.call(lambda: list(sim.running.world.live_streams()))}


def age_seconds(line: str) -> float:
    """The data age a row shows (its last cell: `3.0 s`, `1 min 5 s`...), in seconds."""
    found = re.search(r"(?:(\d+) min )?([\d.]+) s\s*$", line)
    assert found is not None, line
    return 60 * float(found[1] or 0) + float(found[2])


async def in_table(pilot: object, driver: FleetDriver, seconds: int = 3) -> None:
    await driver.pilot.press("t")
    await driver.step(1.0, times=seconds)


async def test_every_servers_streams_are_rows_with_their_server_sorted_and_filtered_by_server(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path)
    async with app.run_test(size=(160, 60)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(3)
        await in_table(pilot, driver)
        table = table_of(app)
        expected = {TableRow(profile, path) for profile, sim in zip(PROFILES, three, strict=True)
                    for path in live_streams(sim)}
        assert expected <= set(table.rows()) and len(expected) >= 3 * 6
        assert {TableRow(profile, STREAM) for profile in PROFILES} <= set(table.rows()), \
            "the same path on three servers: three rows"
        assert header(app)[:2] == ["server", "stream▲"], header(app)
        for line, row in zip(body(app), table.rows(), strict=False):  # each row names its server, then its stream
            assert line.split()[:2] == [row.server, str(row.path)], (line, row)

        await pilot.press("E")  # by server, A to Z
        assert header(app)[0] == "server▲" and "sort: table server ▲" in status_of(app)
        servers = [row.server for row in table.rows()]
        assert servers == sorted(servers) and servers[0] == "edge-1" and servers[-1] == "origin"
        assert body(app)[0].startswith("edge-1 ")
        names = [str(row.path) for row in table.rows() if row.server == "edge-2"]
        assert names == sorted(names, key=str.casefold), "one server's rows by name"
        await pilot.press("E")  # again: Z to A
        assert header(app)[0] == "server▼"
        servers = [row.server for row in table.rows()]
        assert servers == sorted(servers, reverse=True) and body(app)[0].startswith("origin ")

        await driver.step(1.0, times=2)
        for line in body(app):  # every server polls its own rows on screen: each has its output rate
            assert re.search(r"\d [kMG]?b/s", line), line

        await pilot.press("slash", *"edge-2", "enter")  # the filter matches the server's name
        assert {row.server for row in table.rows()} == {"edge-2"}
        assert {row.path for row in table.rows()} == live_streams(three[2])
        assert body(app) and all(line.startswith("edge-2 ") for line in body(app))
        await pilot.press("escape")
        assert set(table.rows()) >= expected


async def test_enter_and_the_jump_open_the_right_servers_stream_and_the_tree_follows(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path)
    async with app.run_test(size=(160, 60)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(3)
        await in_table(pilot, driver)
        table = table_of(app)
        assert app.fleet.current == "origin"

        await pilot.press("colon", *f"edge-2:{STREAM}", "enter")
        await driver.settle()
        assert isinstance(app.screen, FleetScreen) and table.display
        assert table.cursor_row == TableRow("edge-2", STREAM) and app.fleet.current == "edge-2"
        edge2 = urlsplit(three[2].api_url).netloc
        assert "profile edge-2" in status_of(app) and edge2 in status_of(app)
        await driver.step()
        assert app.fleet.lives["edge-2"].engine.selected == STREAM
        await pilot.press("enter")
        opened = app.screen
        assert isinstance(opened, NodeScreen) and opened.selected_path() == STREAM
        assert opened.live is app.fleet.lives["edge-2"] and edge2 in status_of(app), "edge-2's stream, not origin's"
        await pilot.press("escape")
        assert isinstance(app.screen, FleetScreen)
        await pilot.press("right_square_bracket")  # `]` in the table: the same stream's row on the next server
        await driver.settle()
        assert table.cursor_row == TableRow("origin", STREAM) and app.fleet.current == "origin"
        assert "profile origin" in status_of(app)

        await pilot.press("E")  # by server: edge-1's rows first, origin's last
        await pilot.press("G")
        await driver.settle()
        last = table.cursor_row
        assert last is not None and last.server == "origin" and app.fleet.current == "origin", \
            "the cursor on another server's row: the console is on that server"
        assert "profile origin" in status_of(app)
        await pilot.press("g")
        await driver.settle()
        first = table.cursor_row
        assert first is not None and first.server == "edge-1" and app.fleet.current == "edge-1"
        await pilot.press("enter")
        opened = app.screen
        assert isinstance(opened, NodeScreen) and opened.live is app.fleet.lives["edge-1"]
        assert opened.selected_path() == first.path
        await pilot.press("escape")

        await pilot.press("t")  # the tree, on edge-1, with the same stream selected
        tree = app.screen.query_one(NodeTree)
        assert tree.display and tree.cursor_path == first.path
        assert server_rows(app)["edge-1"].startswith("▼"), server_rows(app)
        await pilot.press("right_square_bracket")  # to edge-2 in the tree, then back to the table
        await driver.settle()
        await pilot.press("t")
        assert table.cursor_row == TableRow("edge-2", first.path), "the table takes edge-2's row of that stream"

        await pilot.press("colon", *"nowhere", "enter")  # a name no server lists: nothing moves
        assert isinstance(app.screen, JumpPrompt)
        await pilot.press("escape")
        assert table.cursor_row == TableRow("edge-2", first.path) and app.fleet.current == "edge-2"


async def test_a_stopped_servers_rows_stay_stale_with_their_data_age_while_the_others_stay_live(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    three = independent(3)
    stopped: list[ThreadedSimulator] = []
    try:
        await stopping_edge_1(three, stopped, console_clock, tmp_path)
    finally:
        for sim in three:
            if sim not in stopped:
                sim.stop()


async def stopping_edge_1(three: list[ThreadedSimulator], stopped: list[ThreadedSimulator],
                          console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path)
    async with app.run_test(size=(160, 60)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(3)
        await in_table(pilot, driver)
        table = table_of(app)
        await pilot.press("slash", *"edge-1", "enter")
        edge1 = live_streams(three[1])
        assert {row.path for row in table.rows()} == edge1
        assert all("● live" in line for line in body(app)), body(app)

        stopped.append(three[1])
        three[1].stop()
        driver.advance[1] = lambda _seconds: None
        for second in range(1, 7):
            await driver.step()
            assert {row.path for row in table.rows()} == edge1, "its streams stay in the table"
            lines = body(app)
            assert len(lines) == len(edge1)
            for line in lines:
                assert "▲ stale" in line and "● live" not in line, line
                assert age_seconds(line) >= second - 1, (second, line)
        await pilot.press("escape")
        others = [line for line in body(app) if not line.startswith("edge-1 ")]
        assert others and all("● live" in line for line in others), "the other servers' rows stay live"
        assert sum(1 for row in table.rows() if row.server == "edge-1") == len(edge1)

"""The console on a fleet, driven through Pilot against real simulators on free ports (each with its own
token and edition): the tree's server level with each server's health and the fleet's totals, the status line
naming the server the selection is on, the fleet view of a stream summed across an origin and its
edges, one dead server that never slows the others, and sends that go to the chosen server only."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from adops_ui_support import sends_done
from fleet_support import SERVERS, outbound, server_record
from fleet_ui_support import (
    FleetDriver,
    ThreadedFleet,
    as_fleet,
    fleet_app,
    fleet_totals,
    independent,
    server_card,
    server_cells,
    server_rows,
)
from textual.app import App
from textual.widgets import Static
from ui_support import ParkingClock, ThreadedSimulator, console_clock, quiet_ui, shown, status_of

from omeconsole.core.tree_servers import ServerRow
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.widgets.fleet_view_panel import FleetViewPanel
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["console_clock", "quiet_ui"]

STREAM = NodePath("default", "app", "stream")


@pytest.fixture
def three() -> Iterator[list[ThreadedSimulator]]:
    sims = independent(3)
    yield sims
    for sim in sims:
        sim.stop()


def host(url: str) -> str:
    return urlsplit(url).netloc


async def test_every_server_has_a_row_with_its_health_and_the_fleet_its_totals(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(4)
        assert list(server_rows(app)) == [p for p, _, _ in SERVERS], "a row per server, on top of the tree"
        for profile, _, _ in SERVERS:
            cells = server_cells(app, profile)
            assert cells["link"] == "● connected" and cells["err/min"] == "0", cells
            assert re.fullmatch(r"\d+ ms", cells["latency"]) and re.fullmatch(r"[\d.]+ [kMG]b/s", cells["out"]), cells
        totals = fleet_totals(app)
        assert "FLEET lab" in totals and "3/3 servers reachable" in totals and "not read" not in totals
        fleet_viewers = int(re.search(r"viewers ([\d,]+)", totals)[1].replace(",", ""))  # type: ignore[index]
        per_server = [int(server_cells(app, p)["viewers"].replace(",", "")) for p, _, _ in SERVERS]
        assert fleet_viewers == sum(per_server) > 0
        assert re.search(r"\b8 streams\b", totals)  # the demo scenario's streams on each server, counted once

        tree = app.screen.query_one(NodeTree)
        versions = {}
        for (profile, _, edition), sim in zip(SERVERS, three, strict=True):
            tree.select_server(profile)  # the cursor on a server's row: the detail is the server's card
            await driver.settle()
            card = server_card(app)
            assert card["server"] == f"{profile}  server at {host(sim.api_url)}", card
            assert card["what"].startswith(edition) and card["link"].startswith("● connected"), card
            assert card["errors"].startswith("0 per minute") and card["latency"].endswith("ms median"), card
            versions[profile] = card["what"]
        assert "0.20" in versions["origin"] and "0.21" in versions["edge-1"]

        tree.select_server("origin")
        await driver.settle()
        status = status_of(app)
        assert host(three[0].api_url) in status and "profile origin" in status
        await pilot.press("right_square_bracket")
        await driver.settle()
        status = status_of(app)
        assert host(three[1].api_url) in status and "profile edge-1" in status
        assert host(three[0].api_url) not in status
        assert app.fleet.current == "edge-1" and app.live.context.host == host(three[1].api_url)
        assert server_rows(app)["edge-1"].startswith("▼") and server_rows(app)["origin"].startswith("▶"), \
            "the server the operator is on is the open one"
        await pilot.press("left_square_bracket", "left_square_bracket")
        await driver.settle()
        assert "profile edge-2" in status_of(app)
        tree.select_server("edge-1")  # the cursor on another server's row, then Enter: on to that server
        await pilot.press("enter")
        await driver.settle()
        assert "profile edge-1" in status_of(app) and app.fleet.current == "edge-1"
        assert server_rows(app)["edge-1"].startswith("▼ edge-1")


def fleet_view_rows(app: App[None]) -> dict[str, dict[str, str]]:
    """The fleet view's table as drawn: row label (a server, or `Σ fleet`) -> column heading -> cell."""
    lines = [line.strip("│").rstrip() for line in shown(app.screen.query_one(FleetViewPanel)).splitlines()]
    header = next(line for line in lines if re.search(r"\bserver\b.*\bviewers\b", line))
    names = header.split()
    ends = {name: re.search(rf"(?<!\S){re.escape(name)}(?!\S)", header).end() for name in names}  # type: ignore[union-attr]
    table: dict[str, dict[str, str]] = {}
    for line in lines[lines.index(header) + 1:]:
        words = line.split()
        if len(words) < 3:
            continue
        label = " ".join(words[:2]) if words[0] == "Σ" else words[0]
        cells = {name: line[:end].split()[-1] for name, end in ends.items() if name not in ("server", "role")}
        cells["role"] = words[2] if words[0] == "Σ" else words[1]
        table[label] = cells
    return table


def viewers_of(counts: dict[str, int]) -> int:
    """Playback sessions: relays (ovt), pushes, recordings and thumbnails are not viewers."""
    return sum(count for name, count in counts.items() if name in ("llhls", "hlsv3", "webrtc", "srt"))


async def test_a_stream_on_an_origin_and_its_edges_is_summed_as_the_servers_count_it(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    fleet = ThreadedFleet()
    try:
        app = fleet_app(as_fleet(fleet.servers), console_clock, tmp_path, select=str(STREAM))
        async with app.run_test(size=(160, 48)) as pilot:
            driver = FleetDriver(pilot, console_clock, 3, [fleet.advance])
            await driver.warm_up(5)
            table = fleet_view_rows(app)
            own = [outbound(await server_record(sim, str(STREAM))) for sim in fleet.servers]
            assert [table[p]["role"] for p, _, _ in SERVERS] == ["origin", "edge", "edge"]
            for (profile, _, _), counts in zip(SERVERS, own, strict=True):
                row = table[profile]
                assert int(row["viewers"]) == viewers_of(counts), (profile, row, counts)
                assert int(row["relays"]) == counts.get("ovt", 0)
                for name, count in counts.items():
                    if name != "ovt" and name in row:
                        assert int(row[name]) == count, (profile, name)
            summed = table["Σ fleet"]
            assert int(summed["viewers"]) == sum(viewers_of(c) for c in own) > 0
            assert int(summed["relays"]) == sum(c.get("ovt", 0) for c in own) and int(table["origin"]["relays"]) >= 2
            protocols = [name for name in summed if name in ("llhls", "hlsv3", "webrtc", "srt")]
            assert protocols and all(int(summed[name]) == sum(c.get(name, 0) for c in own) for name in protocols)
            named = {"pushes": "push", "recordings": "file", "thumbnails": "thumbnail"}  # not viewers: own columns
            for word in set(summed) & set(named):
                assert int(summed[word]) == sum(c.get(named[word], 0) for c in own), word
            title = shown(app.screen.query_one(FleetViewPanel)).splitlines()[1]
            assert f"{STREAM} on 3 of 3 servers" in title and "ingest on origin" in title and "not read" not in title
    finally:
        fleet.stop()


async def test_a_dead_server_turns_its_own_row_red_while_the_others_stay_fresh(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path, select=str(STREAM))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(4)
        assert all("● connected" in server_rows(app)[p] for p, _, _ in SERVERS)
        _, token, edition = SERVERS[1]
        port = urlsplit(three[1].api_url).port
        three[1].stop()
        driver.advance[1] = lambda _seconds: None
        for second in range(1, 9):
            await driver.step()
            dead = server_rows(app)["edge-1"]
            assert "✖ unreachable" in dead and re.search(rf"last answered {second:.1f} s ago", dead), dead
            assert server_cells(app, "origin")["link"] == server_cells(app, "edge-2")["link"] == "● connected"
            assert server_cells(app, "origin")["err/min"] == server_cells(app, "edge-2")["err/min"] == "0"
            assert "age 0.0 s" in status_of(app)  # the origin's stream, read this very second
            table = fleet_view_rows(app)
            own = outbound(await server_record(three[2].running, str(STREAM)))
            assert int(table["edge-2"]["viewers"]) == viewers_of(own)  # edge-2's numbers of this second
            assert "sums without edge-1 (not read)" in shown(app.screen.query_one(FleetViewPanel))
        assert "(without edge-1: not read)" in fleet_totals(app) and "2/3 servers reachable" in fleet_totals(app)

        three[1] = ThreadedSimulator(edition=edition, access_token=token, api_port=port or 0, name="edge-1 again")
        driver.advance[1] = three[1].advance
        for _ in range(3):  # a probe waits at most one interval
            await driver.step()
        assert "● connected" in server_rows(app)["edge-1"] and "3/3 servers reachable" in fleet_totals(app)
        assert "not read" not in shown(app.screen.query_one(FleetViewPanel))


async def test_a_send_goes_to_the_server_the_selection_is_on_and_says_which(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    app = fleet_app(as_fleet(three), console_clock, tmp_path, select=str(STREAM))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(3)
        await pilot.press("left_square_bracket")  # from the first server round to the last, edge-2
        assert app.screen.selected_path() == STREAM
        await driver.settle()
        edge = host(three[2].api_url)
        assert "profile edge-2" in status_of(app) and edge in status_of(app)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, CueOutDialog)
        target = f"to {STREAM} on {edge} · profile edge-2"
        assert str(app.screen.query_one("#target", Static).content) == target
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSend)
        assert str(app.screen.query_one("#target", Static).content) == target
        assert str(app.screen.query_one("#send-server", Static).content) == f"ON SERVER edge-2 · {edge}"
        await pilot.press("y")
        await sends_done(app)
        await pilot.pause()
        assert isinstance(app.screen, AdBreakScreen)  # the break's panel, of edge-2's stream
        assert "profile edge-2" in status_of(app) and edge in status_of(app)

        def cues(sim: ThreadedSimulator) -> list[object]:
            def read() -> list[object]:
                stream = sim.running.world.find_stream("default", "app", "stream")
                assert stream is not None
                return [event.body for event in stream.events.events]

            return sim.call(read)

        assert cues(three[0]) == cues(three[1]) == [] and len(cues(three[2])) == 1  # no fleet-wide send
        records = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
        intents = [record for record in records if record["type"] == "intent"]
        assert [(r["server"], r["profile"], r["stream"]) for r in intents] == [(edge, "edge-2", "stream")]
    for sim in three:  # the publisher holds a blocked playlist reload until its deadline
        sim.advance(20)


def highlighted_server(app: App[None]) -> str:
    """Whose row the cursor is on: a server's own row, or a node's row under a server's (the open one)."""
    tree = app.screen.query_one(NodeTree)
    line = tree.cursor_line
    if isinstance(line, ServerRow):
        return line.profile
    assert tree.cursor_path is not None
    opened = [profile for profile, row in server_rows(app).items() if row.startswith("▼")]
    assert len(opened) == 1, server_rows(app)
    return opened[0]


async def test_the_status_line_the_highlighted_row_the_detail_and_a_send_are_on_one_server(
        three: list[ThreadedSimulator], console_clock: ParkingClock, tmp_path: Path) -> None:
    """`]`, `[` and Enter move them together: from a server's own row, and from a stream's row."""
    app = fleet_app(as_fleet(three), console_clock, tmp_path, select=str(STREAM))
    async with app.run_test(size=(160, 48)) as pilot:
        driver = FleetDriver(pilot, console_clock, 3, [sim.advance for sim in three])
        await driver.warm_up(3)
        app.screen.query_one(NodeTree).select_server("origin")  # the cursor on the origin's own row
        await driver.settle()
        assert highlighted_server(app) == "origin" and server_card(app)["server"].startswith("origin")
        for key, profile in (("right_square_bracket", "edge-1"), ("right_square_bracket", "edge-2"),
                             ("left_square_bracket", "edge-1")):
            await pilot.press(key)
            await driver.settle()
            assert f"profile {profile}" in status_of(app)
            assert highlighted_server(app) == profile, (key, profile)
            assert server_card(app)["server"].startswith(profile), server_card(app)
        await pilot.press("enter")  # opens edge-1's own nodes: still edge-1
        await driver.settle()
        assert "profile edge-1" in status_of(app) and highlighted_server(app) == "edge-1"

        assert app.screen.query_one(NodeTree).select_path(STREAM)
        await driver.settle()
        await pilot.press("right_square_bracket")  # from a stream's row: the same stream, on edge-2
        await driver.settle()
        assert app.screen.selected_path() == STREAM and highlighted_server(app) == "edge-2"
        assert "profile edge-2" in status_of(app)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, CueOutDialog)
        assert "edge-2" in str(app.screen.query_one("#target", Static).content)
        await pilot.press("escape")

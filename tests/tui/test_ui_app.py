"""The console as an operator uses it, against the real simulator, with both clocks frozen.

Every test drives the real app (`ConsoleApp` with the HTTP connector) through Pilot; time moves only
in `Driver.step`, which waits for the engine to answer and park again.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import random
import re
from pathlib import Path

from textual.widgets import Input, OptionList, Static
from ui_support import (
    SEED,
    TOKEN,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    free_port,
    make_app,
    make_settings,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
    tree_row,
)
from wait_support import palette_searched, resized

from omeconsole.core.session import Started, connector
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.help import HelpScreen
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ConnectPrompt, ExportDone, TokenPrompt
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import Banner
from simulator.world.scenario import StreamSpec

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
CONCERT = NodePath("default", "live", "concert")


def tree_of(app: ConsoleApp) -> NodeTree:
    return app.screen.query_one(NodeTree)


def header_of(app: ConsoleApp) -> str:
    return shown(app.screen.query_one("#detail-header", Static))


async def test_tree_lists_every_stream_with_badges(quiet_ui, threaded_sim: ThreadedSimulator,
                                                   console_clock: ParkingClock, tmp_path: Path) -> None:
    """The operator sees hosts, applications and streams, each with state, input, viewers and rates."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        assert isinstance(app.screen, DashboardScreen)
        paths = tree_of(app).paths()
        assert NEWS in paths and CONCERT in paths and NodePath("default", "live") in paths
        label = tree_row(app, NEWS)
        assert "● live" in label and "srt" in label and "viewers" in label and " Mb/s  out " in label
        assert "Mb/s" in shown(tree_of(app))
        await resized(pilot, 100, 30)  # narrower: the tree keeps name, state and viewers
        await driver.step()
        compact = tree_row(app, NEWS)
        assert re.search(r"news +● live  ", compact) and compact.rstrip().endswith("viewers"), compact


async def test_navigation_moves_the_detail_with_the_cursor(quiet_ui, threaded_sim: ThreadedSimulator,
                                                           console_clock: ParkingClock, tmp_path: Path) -> None:
    """Arrow keys move through the tree; the detail panel follows and shows units and totals."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        tree = tree_of(app)
        assert tree.cursor_path == NodePath("default")
        await pilot.press("down", "down")
        await driver.step(1.0, times=2)
        assert tree.cursor_path == NodePath("default", "app", "backup")
        assert "default/app/backup  ● live" in header_of(app)  # the level's word is the first to go when narrow
        totals = shown(app.screen.query_one("#detail-totals", Static))
        assert "bytes in" in totals and "MiB" in totals and "data age" in totals
        assert app.session.engine.selected == NodePath("default", "app", "backup")


async def test_filter_narrows_the_tree_escape_clears_it_and_s_sorts(quiet_ui, threaded_sim: ThreadedSimulator,
                                                            console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        await pilot.press("slash", *"conc")
        await pilot.pause()
        assert app.screen.query_one("#filter", Input).has_focus
        assert tree_of(app).paths() == [NodePath("default"), NodePath("default", "live"), CONCERT]
        assert "filter: conc" in status_of(app)
        await pilot.press("enter")
        assert tree_of(app).has_focus
        await pilot.press("escape")
        await pilot.pause()
        assert NEWS in tree_of(app).paths() and len(tree_of(app).paths()) == 11
        assert "filter:" not in status_of(app)
        await driver.step()
        await pilot.press("s")  # sort by viewers: the busiest stream first, the unwatched one last
        await pilot.pause()
        app_streams = [p for p in tree_of(app).paths() if p.level == "stream" and p.app == "app"]
        viewers = [app.session.engine.node(p).latest.viewers for p in app_streams]  # type: ignore[union-attr]
        assert viewers == sorted(viewers, reverse=True)
        assert app_streams[-1] == NodePath("default", "app", "backup")
        assert "sort: viewers" in status_of(app)


async def test_enter_drills_down_and_escape_goes_back(quiet_ui, threaded_sim: ThreadedSimulator,
                                                      console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        await pilot.press("enter")  # on the virtual host
        await driver.settle()
        assert isinstance(app.screen, NodeScreen) and app.screen.path == NodePath("default")
        children = app.screen.query_one("#children", OptionList)
        assert [str(children.get_option_at_index(i).prompt).split()[0] for i in range(children.option_count)] == \
            ["app", "live"]
        await pilot.press("down", "enter")  # into default/live
        await driver.settle()
        assert isinstance(app.screen, NodeScreen) and app.screen.path == NodePath("default", "live")
        await pilot.press("enter")  # first stream of live, by name
        await driver.step()
        assert isinstance(app.screen, NodeScreen) and app.screen.path.level == "stream"
        assert not app.screen.query_one("#children", OptionList).display
        await pilot.press("escape", "escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_deep_link_selects_the_stream(quiet_ui, threaded_sim: ThreadedSimulator,
                                            console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/live/concert")
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        assert tree_of(app).cursor_path == CONCERT
        assert app.session.engine.selected == CONCERT
        assert len(app.session.engine.node(CONCERT).history) >= 2
        info = shown(app.screen.query_one("#detail-info", Static))
        assert "H264" in info and "640x360" in info and "30 frames" in info


async def test_pause_stops_polling_and_the_age_keeps_counting(quiet_ui, threaded_sim: ThreadedSimulator,
                                                              console_clock: ParkingClock,
                                                              tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news")
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        before = len(app.session.engine.node(NEWS).history)
        await pilot.press("p")
        await driver.step(1.0, times=8)
        assert app.session.engine.paused
        assert len(app.session.engine.node(NEWS).history) == before, "nothing is polled while paused"
        status = status_of(app)
        assert "PAUSED" in status and "age 8." in status
        assert app.session.engine.node(NEWS).state is NodeState.STALE
        assert "▲ stale" in tree_row(app, NEWS)
        await pilot.press("p")
        await driver.step()
        assert not app.session.engine.paused and "PAUSED" not in status_of(app)
        assert len(app.session.engine.node(NEWS).history) > before
        assert app.session.engine.node(NEWS).state is NodeState.LIVE


async def test_refresh_polls_at_once_and_plus_minus_change_the_interval(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news")
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        before = len(app.session.engine.node(NEWS).history)
        threaded_sim.advance(1.0)  # the server moves on; the console clock does not
        await pilot.press("r")
        await driver.settle()
        assert len(app.session.engine.node(NEWS).history) == before + 1
        await pilot.press("plus")
        assert app.session.engine.interval == 2.0 and "every 2 s" in status_of(app)
        await pilot.press("minus", "minus", "minus")
        assert app.session.engine.interval == 0.5 and "every 0.5 s" in status_of(app)


async def test_the_alerts_key_says_in_the_status_line_what_it_can(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news")
    async with app.run_test(size=(160, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        await pilot.press("A")
        assert "no [[alerts]] rules in the config file" in status_of(app)
        assert isinstance(app.screen, DashboardScreen)


async def test_starts_disconnected_and_recovers_by_itself(quiet_ui, console_clock: ParkingClock,
                                                          tmp_path: Path) -> None:
    port = free_port()
    app = make_app(f"http://127.0.0.1:{port}", console_clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, None)
        await driver.settle()
        banner = app.screen.query_one(Banner)
        assert banner.display
        assert "UNREACHABLE" in shown(banner) and "retrying in" in shown(banner)
        assert "✖ unreachable" in status_of(app)
        assert tree_of(app).paths() == []
        simulator = ThreadedSimulator(api_port=port)
        try:
            driver.simulator = simulator
            await driver.step(2.0, times=3)  # past the first back-off
            assert app.session.engine.connection.status == "connected"
            assert not banner.display
            assert NEWS in tree_of(app).paths()
        finally:
            simulator.stop()


async def test_a_stream_that_ends_is_marked_ended_and_keeps_its_history(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/live/concert")
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        samples = len(app.session.engine.node(CONCERT).history)
        world = threaded_sim.running.world
        threaded_sim.call(lambda: world.end_stream(world.find_stream("default", "live", "concert")))
        await driver.step(1.0, times=4)
        view = app.session.engine.node(CONCERT)
        assert view.state is NodeState.ENDED
        assert len(view.history) >= samples
        assert CONCERT in tree_of(app).paths(), "an ended stream stays in the tree for a while"
        assert "○ ended" in tree_row(app, CONCERT)
        assert "○ ended" in header_of(app)
        threaded_sim.call(lambda: world.start_stream("default", "live", StreamSpec(name="bazaar")))
        await driver.step(1.0, times=3)
        streams = [p.stream for p in tree_of(app).paths() if p.level == "stream" and p.app == "live"]
        assert streams == ["bazaar", "church", "lobby-cam", "studio-b", "concert"], \
            "the newcomer inserted in name order; the ended stream after the live ones, in the app's ended group"
        assert tree_of(app).cursor_path == CONCERT, "the cursor stays on its stream (its group opened for it)"
        group = (tree_of(app).index_of(CONCERT) or 0) - 1
        assert "ended  1 stream" in shown(tree_of(app)).splitlines()[group - int(tree_of(app).scroll_y)]


async def test_a_refused_token_opens_the_prompt(quiet_ui, threaded_sim: ThreadedSimulator,
                                                console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, token="wrong-token")
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.settle()
        assert isinstance(app.screen, TokenPrompt)
        assert app.session.engine.connection.status == "unauthorized"
        await pilot.press(*TOKEN, "enter")
        await driver.step(1.0, times=2)
        assert isinstance(app.screen, DashboardScreen)
        assert app.session.engine.connection.status == "connected"
        assert NEWS in tree_of(app).paths()
        assert TOKEN not in repr(app.settings) and TOKEN not in status_of(app)


async def test_help_lists_the_bindings_with_remapped_keys(quiet_ui, threaded_sim: ThreadedSimulator,
                                                          console_clock: ParkingClock, tmp_path: Path) -> None:
    """A keymap in the settings moves a key; help and the key itself follow."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, keymap={"pause": "z"})
    async with app.run_test(size=(120, 40)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).settle()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        table = shown(app.screen.query_one("#help-table", Static))
        for words in ("Pause", "Refresh", "Filter", "Sort", "Export", "Quit", "Slower", "Faster", "interval_longer"):
            assert words in table
        assert "z " in table
        await pilot.press("escape")
        await pilot.press("z")
        assert app.session.engine.paused


async def test_export_writes_csv_and_json_and_shows_where(quiet_ui, threaded_sim: ThreadedSimulator,
                                                          console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/app/news")
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportDone)
        # Long paths wrap on screen: join the wrapped lines back before looking for them.
        displayed = "".join(line.strip() for widget in app.screen.query(".path").results(Static)
                            for line in shown(widget).splitlines())
        written = sorted((tmp_path / "exports").iterdir())
        assert [p.suffix for p in written] == [".csv", ".json"]
        assert all(str(p) in displayed for p in written)
        with written[0].open(newline="") as exported:
            rows = list(csv.DictReader(exported))
        assert len(rows) == len(app.session.engine.node(NEWS).history)
        history = app.session.engine.node(NEWS).history
        unknown = [sample.rate_in_bps is None for sample in history]
        assert [row["rate_in_bps"] == "" for row in rows] == unknown, "no rate is written as empty, never 0"
        assert int(rows[-1]["rate_in_bps"]) > 0
        assert int(rows[-1]["connections_in_srt"]) == 1
        document = json.loads(written[1].read_text())
        assert document["path"] == "default/app/news"
        assert [s["rate_in_bps"] is None for s in document["samples"]] == unknown


async def test_open_source_server_shows_na_for_inbound_connections(quiet_ui, console_clock: ParkingClock,
                                                                   tmp_path: Path) -> None:
    simulator = ThreadedSimulator(edition="oss")
    try:
        app = make_app(simulator.api_url, console_clock, tmp_path, select="default/app/news")
        async with app.run_test(size=(120, 40)) as pilot:
            await Driver(pilot, console_clock, simulator).warm_up(2)
            inbound = shown(app.screen.query_one("#bars-in", Static))
            assert "n/a" in inbound and "0:" not in inbound
            assert "(v1)" in status_of(app)
    finally:
        simulator.stop()


async def test_below_80x24_one_panel_remains(quiet_ui, threaded_sim: ThreadedSimulator,
                                             console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        assert not app.screen.query_one(NodeDetail).display
        assert tree_of(app).display and NEWS in tree_of(app).paths()
        await resized(pilot, 120, 40)
        await driver.step()
        assert app.screen.query_one(NodeDetail).display


async def test_palette_connect_switches_to_another_server(threaded_sim: ThreadedSimulator,
                                                          console_clock: ParkingClock, tmp_path: Path) -> None:
    """ctrl+p → "Connect to a server…" → address and token: the console polls the new server."""
    app = make_app("http://127.0.0.1:9", console_clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.settle()
        assert app.session.engine.connection.status == "unreachable"
        await palette_searched(pilot, *"connect to")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConnectPrompt)
        url = app.screen.query_one("#url", Input)
        url.value = threaded_sim.api_url
        await pilot.press("tab", *TOKEN, "enter")
        await driver.step(1.0, times=2)
        assert isinstance(app.screen, DashboardScreen)
        assert app.session.engine.connection.status == "connected" and app.settings.api_url == threaded_sim.api_url
        assert NEWS in tree_of(app).paths()
        assert not app.screen.query_one(Banner).display


async def test_palette_switches_to_a_profile_from_the_config_file(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    config = Path(os.environ["OMECONSOLE_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[profiles.lab]\napi_url = "{threaded_sim.api_url}"\ntoken = "{TOKEN}"\n'
                      'listing_interval = 2.0\nrequest_budget = 500.0\n')
    config.chmod(0o600)
    app = make_app("http://127.0.0.1:9", console_clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.settle()
        await palette_searched(pilot, *"profile: lab")
        await pilot.press("enter")
        await driver.step(1.0, times=2)
        assert app.settings.profile == "lab"
        assert app.session.engine.connection.status == "connected" and NEWS in tree_of(app).paths()


async def test_a_terminal_made_wider_widens_the_tree_labels_at_once(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """Below 140 columns a row says the state and viewers; made wider, every badge shows before the next
    reading (the clocks do not move here)."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(120, 40)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(2)
        assert " in " not in tree_row(app, NEWS) and "viewers" in tree_row(app, NEWS)
        await resized(pilot, 160, 48)
        await driver.settle()
        assert " in " in tree_row(app, NEWS) and " out " in tree_row(app, NEWS), tree_row(app, NEWS)
        await resized(pilot, 100, 30)
        await driver.settle()
        assert " in " not in tree_row(app, NEWS)


async def test_a_token_refused_before_the_console_listened_still_opens_the_prompt(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """The command line starts the first session while the UI loads (`started`): the console adopts it,
    and a refusal that arrived before the console listened opens the token prompt all the same."""
    connect = connector(console_clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl")
    settings = make_settings(threaded_sim.api_url, token="wrong-token")
    session = connect(settings)
    refused = asyncio.Event()
    session.engine.add_listener(
        lambda _update: refused.set() if session.engine.connection.status == "unauthorized" else None)
    started = Started(session, asyncio.get_running_loop(), asyncio.create_task(session.engine.run()))
    await asyncio.wait_for(refused.wait(), 30)
    app = ConsoleApp(settings, connect, console_clock, started=started, theme_dirs=[BUILTIN_THEME_DIR],
                     export_dir=tmp_path / "exports")
    async with app.run_test(size=(100, 30)) as pilot:
        await Driver(pilot, console_clock, threaded_sim).settle()
        assert isinstance(app.screen, TokenPrompt)
        assert app.session is session
        await pilot.press(*TOKEN, "enter")
        await Driver(pilot, console_clock, threaded_sim).step(1.0, times=2)
        assert isinstance(app.screen, DashboardScreen) and app.session is not session
        assert app.session.engine.connection.status == "connected" and started.running.done()

"""Breaks the console did not send, in the real console: a cue-out POSTed straight to the simulator's API
(plain HTTP with the token, as automation would) shows on the stream's row, header and status line,
in the events screen as "seen in the playlist", and on the row of a visible stream that is not selected;
the playlists of streams that leave the screen are no longer read.

Uses the UI harness (simulator on its own thread, both clocks frozen, `Driver.step` moves them) and
waits on the playlist watch's rounds, never on time.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import urllib.request
from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable, Static
from ui_support import (
    SEED,
    TOKEN,
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_settings,
    quiet_ui,
    shown,
    status_of,
    threaded_sim,
    tree_row,
)

from omeconsole.core.adops.playlist_watch import QUIET_MAX_S, PlaylistWatch
from omeconsole.core.session import connector
from omeconsole.live.row_marks import UNREAD_MARK
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.screens.ad_events import AdEventsScreen
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
SPORTS = NodePath("default", "app", "sports")
APP = NodePath("default", "app")
COUNTDOWN_30 = re.compile(r"AD 0:(30|2\d)\b")
COUNTDOWN_45 = re.compile(r"AD 0:(45|4\d)\b")


def _app(sim: ThreadedSimulator, clock: ParkingClock, tmp_path: Path, select: NodePath = NEWS,
         budget: float | None = None) -> ConsoleApp:
    """The console at its default polling interval (1 s) and a budget that covers every row (or `budget`)."""
    settings = make_settings(sim.api_url, publisher_url=sim.running.publisher_url)
    if budget is not None:
        settings = settings.model_copy(update={"request_budget": budget})
    assert settings.interval == 1.0
    return ConsoleApp(settings, connector(clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl"),
                      clock, select=select, theme_dirs=[BUILTIN_THEME_DIR], export_dir=tmp_path / "exports")


def _post_cue_out(sim: ThreadedSimulator, stream: NodePath, seconds: int) -> int:
    """What automation does: one POST to the management API, nothing to do with the console."""
    request = urllib.request.Request(
        f"{sim.api_url}/v1/vhosts/{stream.vhost}/apps/{stream.app}/streams/{stream.stream}:sendEvent",
        data=json.dumps({"eventFormat": "cue", "events": [{"cueType": "out", "duration": seconds * 1000}]}).encode(),
        headers={"Authorization": "Basic " + base64.b64encode(TOKEN.encode()).decode(),
                 "Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as reply:
        return int(reply.status)


def _marker_in_playlist(sim: ThreadedSimulator, stream: NodePath) -> bool:
    """Whether the stream's playlist, as any player reads it, carries the break's date range now."""
    def read(url: str) -> str:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return str(reply.read().decode())

    base = f"{sim.running.publisher_url}/{stream.app}/{stream.stream}/"
    master = read(base + "llhls.m3u8")
    chunklist = next(line for line in master.splitlines() if line and not line.startswith("#"))
    return "SCTE35-OUT" in read(base + chunklist)


def _watch(app: ConsoleApp) -> PlaylistWatch:
    watch = app.live.ad_board.watch
    assert watch is not None, "the console follows playlists"
    return watch


async def _step(driver: Driver, seconds: float = 1.0) -> None:
    """Both clocks on by `seconds`, then until the playlist watch's round of that moment has finished."""
    watch = _watch(driver.app)
    done = watch.rounds
    await driver.step(seconds)
    await asyncio.wait_for(watch.rounds_done(done + 1), timeout=30)  # a guard, not a timing assumption
    await driver.settle()  # what the round's reads changed, drawn (two pauses may not reach it on a busy machine)


def _header(app: ConsoleApp) -> str:
    return shown(app.screen.query_one("#detail-header", Static))


async def test_a_cue_out_sent_by_someone_else_shows_on_the_selected_row_header_status_and_events(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        assert isinstance(app.screen, DashboardScreen)
        assert "AD" not in tree_row(app, NEWS).split("news", 1)[1]
        assert await asyncio.to_thread(_post_cue_out, threaded_sim, NEWS, 30) == 200
        # The simulator splices at the first keyframe at least one keyframe interval after the request;
        # the marker is in the playlist from that part on. Step until it is, as a player would see it.
        for _ in range(5):
            await _step(driver)
            if await asyncio.to_thread(_marker_in_playlist, threaded_sim, NEWS):
                break
        else:
            raise AssertionError("the simulator never wrote the break into the playlist")
        in_playlist_at = console_clock.wall()
        # Within the next part at the default interval (<= 2 s): row, header and status line say so.
        for _ in range(2):
            if "AD " in tree_row(app, NEWS) and "AD 0:" in tree_row(app, NEWS):
                break
            await _step(driver, 1.0)
        assert (console_clock.wall() - in_playlist_at).total_seconds() <= 2.0
        row = tree_row(app, NEWS)
        assert COUNTDOWN_30.search(row), row
        header = _header(app)
        assert COUNTDOWN_30.search(header) and "not sent from this console (seen in the playlist)" in header, header
        status = status_of(app)
        assert COUNTDOWN_30.search(status) and "not sent here" in status, status
        await pilot.press("a")  # the ad-break screen: the same break, who sent it
        assert isinstance(app.screen, AdBreakScreen)
        await pilot.pause()
        state = str(app.screen.query_one("#adbreak-state", Static).content)
        assert "ON AIR" in state and "not sent from this console" in state, state
        await pilot.press("escape")
        await pilot.press("E")
        events = app.screen
        assert isinstance(events, AdEventsScreen)
        await pilot.pause()
        table = events.query_one(DataTable)
        cells = [str(cell) if isinstance(cell, Text) else cell for cell in table.get_row_at(0)]
        assert cells[3] == "default/app/news" and cells[4] == "cue-out", cells
        assert cells[5] == "seen in the playlist" and cells[6] == "not sent from this console", cells
        assert cells[7].startswith("splice ") and cells[7].endswith("planned 30 s"), cells
        first_seen = cells[0]
        assert first_seen.startswith(in_playlist_at.strftime("%Y-%m-%d %H:%M:")), (first_seen, in_playlist_at)
        assert table.row_count == 1, "seen once, listed once"
    threaded_sim.advance(20)


async def test_a_break_on_a_visible_stream_that_is_not_selected_shows_on_its_row_and_the_apps_header(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path, select=APP)
    async with app.run_test(size=(160, 45)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        assert SPORTS in _watch(app).following and NEWS in _watch(app).following
        assert await asyncio.to_thread(_post_cue_out, threaded_sim, SPORTS, 45) == 200
        for _ in range(int(QUIET_MAX_S) + 4):  # a quiet row is reread at most QUIET_MAX_S apart
            await _step(driver)
            if "AD 0:" in tree_row(app, SPORTS):
                break
        assert COUNTDOWN_45.search(tree_row(app, SPORTS)), tree_row(app, SPORTS)
        # The rows and header a read moved are drawn with the next reports (the read may land before or after
        # this moment's): one more step, and all of them show the break, the header with the row's countdown.
        await _step(driver)
        countdown = re.search(r"AD (0:\d\d)", tree_row(app, SPORTS))
        assert countdown is not None, tree_row(app, SPORTS)
        assert "AD" not in tree_row(app, NEWS).split("news", 1)[1]
        header = _header(app)
        assert re.search(rf"ad breaks: sports AD {countdown[1]} \(not sent here\)", header), header
        assert "ADx1" in tree_row(app, APP)
    threaded_sim.advance(20)


async def test_when_polling_takes_the_whole_budget_the_rows_on_screen_are_still_followed_and_unread_ones_say_so(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """At `scale` the polling engine would take every token of the budget; the watch's share is set aside
    for the rows on screen, so they are read in turn. A row not read yet says its break is not known."""
    app = _app(threaded_sim, console_clock, tmp_path, select=APP, budget=8.0)  # demo wants ~11 req/s
    async with app.run_test(size=(160, 45)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(1)
        watch = _watch(app)
        for _ in range(5):  # until a round has taken the rows on screen (the tree is drawn from the listing)
            streams = sorted(p for p in watch.following if p.level == "stream")
            if len(streams) >= 5:
                break
            await _step(driver)
        assert len(streams) >= 5, streams
        assert watch.waiting, "a budget of 8 req/s cannot read every row at once"
        # Rows are labelled as they are painted; the header is drawn with the reports (a read that lands between
        # two redraws shows there with the next): it counts at least the application's rows that say `ad?`.
        marked = [stream for stream in streams if UNREAD_MARK in tree_row(app, stream).split(stream.name, 1)[1]]
        assert marked, [tree_row(app, stream) for stream in streams]
        assert all(watch.reads[stream] <= 1 for stream in marked), watch.reads
        counted = re.search(rf"{re.escape(UNREAD_MARK)} (\d+) streams? on screen not followed yet", _header(app))
        assert counted is not None, _header(app)
        assert int(counted.group(1)) >= len([stream for stream in marked if stream.parent == APP]) >= 1, _header(app)
        for _ in range(30):
            if not watch.waiting:
                break
            await _step(driver)
        assert not watch.waiting, f"rows never read: {sorted(watch.waiting)}"
        assert all(watch.reads[stream] >= 1 for stream in streams), watch.reads
        await _step(driver)  # rows are relabelled with the next reports' redraw
        for stream in streams:
            assert UNREAD_MARK not in tree_row(app, stream), tree_row(app, stream)
        assert "not followed yet" not in _header(app)
        assert await asyncio.to_thread(_post_cue_out, threaded_sim, SPORTS, 45) == 200
        for _ in range(30):
            if "AD 0:" in tree_row(app, SPORTS):
                break
            await _step(driver)
        assert COUNTDOWN_45.search(tree_row(app, SPORTS)) or "AD 0:" in tree_row(app, SPORTS), tree_row(app, SPORTS)
    threaded_sim.advance(20)


async def test_playlists_are_no_longer_read_once_their_streams_leave_the_screen(
        quiet_ui, threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = _app(threaded_sim, console_clock, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        watch = _watch(app)
        for _ in range(3):
            await _step(driver)
        assert watch.reads[SPORTS] >= 2 and watch.reads[NEWS] >= 3
        await pilot.press("slash", *"news", "enter")  # the filter: only news (and its parents) on screen
        await _step(driver)
        assert SPORTS not in watch.following and NEWS in watch.following
        before = dict(watch.reads)
        for _ in range(4):
            await _step(driver)
        assert watch.reads[SPORTS] == before[SPORTS], "sports left the screen: its playlist is not read"
        assert watch.reads[NEWS] == before[NEWS] + 4, "the selected stream is read every interval"
    threaded_sim.advance(20)


async def test_on_a_server_that_writes_no_ad_markers_the_header_says_breaks_of_others_cannot_be_seen(
        quiet_ui, console_clock: ParkingClock, tmp_path: Path) -> None:
    """The open source edition writes no marker tags (0.18-0.20 cut a segment, 0.21+ refuses cues): the
    stream's header says so, and the other visible streams' playlists are not read for nothing."""
    with ThreadedSimulator(edition="oss") as sim:
        app = _app(sim, console_clock, tmp_path)
        async with app.run_test(size=(160, 45)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.warm_up(3)
            await _step(driver)
            server = app.live.engine.server
            assert server is not None and server.edition == "oss"
            header = _header(app)
            assert "cannot be seen" in header or "refuses cue events" in header, header
            assert _watch(app).following == frozenset({NEWS}), "only the selected stream is read"
        sim.advance(20)

"""The console (the real app through Pilot) against the replayed OvenMediaEngine 0.19.0: what its screens say.

The replay runs on its own FakeClock, moved with the console's by `Driver.step` (as the UI tests move the
simulator's), so the replay's held reloads never count among the console's sleepers. Each test asserts
what an operator should see on the real server, issue 25's fixes included (the break on air from the segment
cut, no false warning, a cue-in that ends it, no viewer of the console's own making).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from adops_ui_support import sends_done, text_of, toasts
from ome_replay import FIXTURES, OmeReplay
from replay_support import replay_clock
from textual.widgets import Static
from ui_support import Driver, make_app, quiet_ui, status_of, tree_row

from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.widgets.stream_info_panel import StreamInfoPanel

__all__ = ["quiet_ui"]

STREAM = NodePath("default", "app", "stream")
CUT_SEEN = "splice seen (segment cut at 00:08:46.408), no marker written"
CUE_OUT_BODY = json.loads((FIXTURES / "api" / "30_sendEvent_cue_out.json").read_text())["request"]["body"]
CUE_IN = json.loads(json.loads((FIXTURES / "api" / "31_sendEvent_cue_in.json").read_text())["request"]["body"])
GUARD_S = 30.0
"""A bound on waiting for the app's own workers (a guard against a hang, not a timing assumption)."""


class ReplayTime:
    """The replay's clock as `Driver` moves a simulator's: in step with the console's."""

    def __init__(self, replay: OmeReplay) -> None:
        self.replay = replay

    def advance(self, seconds: float) -> None:
        clock = self.replay.clock
        assert hasattr(clock, "advance")
        clock.advance(seconds)


@dataclass
class Rig:
    app: ConsoleApp
    driver: Driver
    replay: OmeReplay

    def text(self, selector: str) -> str:
        return text_of(self.app.screen.query_one(selector, Static))


@pytest.fixture
async def rig(quiet_ui: None, tmp_path: Path) -> AsyncIterator[Rig]:
    clock, server_clock = replay_clock(), replay_clock()
    async with OmeReplay(server_clock) as replay:
        app = make_app(replay.api_url, clock, tmp_path, select=str(STREAM), token=replay.token,
                       publisher_url=replay.publisher_url)
        async with app.run_test(size=(160, 48), notifications=True) as pilot:
            driver = Driver(pilot, clock, ReplayTime(replay))  # type: ignore[arg-type]
            await driver.warm_up(6)
            yield Rig(app, driver, replay)


async def cue_out(rig: Rig) -> None:
    """`o`, the dialog's default (30 s), `y`: the captured cue-out request."""
    await rig.driver.pilot.press("o", "enter")
    assert isinstance(rig.app.screen, ConfirmSend)
    await rig.driver.pilot.press("y")
    await asyncio.wait_for(sends_done(rig.app), GUARD_S)
    assert rig.replay.cue_out_at is not None, "the captured cue-out reached the replay"


async def test_the_dashboard_shows_the_detected_server_and_the_streams_input(rig: Rig) -> None:
    assert "oss 0.19.0 (v1)" in status_of(rig.app)
    row = " ".join(tree_row(rig.app, STREAM).split())
    assert row.startswith("└─ stream ● live rtmp 0 viewers in ")
    tracks = [" ".join(line.split()) for line in text_of(rig.app.screen.query_one(StreamInfoPanel)).splitlines()]
    assert tracks[1].startswith("│ source Rtmp TCP://127.0.0.1:59428")
    assert tracks[3].startswith("│ video H264 640x360 30 781.00 kb/s")
    assert rig.replay.unmatched == []


async def test_an_accepted_cue_out_is_said_once_and_opens_the_break_panel(rig: Rig) -> None:
    await cue_out(rig)
    assert isinstance(rig.app.screen, AdBreakScreen)
    assert [toast for toast in toasts(rig.app) if "cue-out" in toast] == [
        "cue-out · default/app/stream\ncue-out accepted by the server (200 OK); not yet seen in the playlist"]
    await rig.driver.step(1.0, times=3)
    assert "markers in the playlist: none" in rig.text("#adbreak-tail")  # 0.19 writes none: the tail says so
    assert 'URI="part_0_54_0_video_' in rig.text("#adbreak-tail")  # the version 2.02 s after the cue-out


async def test_the_break_goes_on_air_from_the_segment_cut_and_no_marker_wait_is_said(rig: Rig) -> None:
    await cue_out(rig)
    await rig.driver.step(1.0, times=3)  # the cut is listed 1.21 s after the request
    state = rig.text("#adbreak-state")
    assert "ON AIR" in state, state
    assert CUT_SEEN in state + rig.text("#adbreak-tail")
    await rig.driver.step(1.0, times=17)
    assert not [toast for toast in toasts(rig.app) if "not seen within" in toast]


async def test_cue_in_twelve_seconds_into_the_break_carries_no_false_warning(rig: Rig) -> None:
    await cue_out(rig)
    await rig.driver.step(1.0, times=12)
    await rig.driver.pilot.press("escape", "i")
    assert isinstance(rig.app.screen, ConfirmSend)
    warnings = "".join(text_of(widget) for widget in rig.app.screen.query("#warnings"))
    assert "has not spliced" not in warnings and "⚠" not in warnings  # nothing to confirm
    assert warnings.startswith("ⓘ this server writes no ad markers into its playlists")  # only the note


async def test_an_accepted_cue_in_ends_the_break_on_screen(rig: Rig) -> None:
    await cue_out(rig)
    await rig.driver.step(1.0, times=12)
    await rig.driver.pilot.press("escape", "i", "y")
    await asyncio.wait_for(sends_done(rig.app), GUARD_S)
    assert [json.loads(seen.body) for seen in rig.replay.requests if seen.method == "POST"][-1] == CUE_IN
    await rig.driver.step(1.0, times=2)
    await rig.driver.pilot.press("a")
    assert isinstance(rig.app.screen, AdBreakScreen)
    state = rig.text("#adbreak-state")
    assert "ON AIR" not in state and "ENDED" in state, state


async def test_a_stream_nobody_watches_shows_no_viewer_while_the_console_reads_its_playlist(rig: Rig) -> None:
    await rig.driver.pilot.press("a")  # the break panel follows the stream's playlist
    assert isinstance(rig.app.screen, AdBreakScreen)
    await rig.driver.step(1.0, times=6)  # six readings of the stream taken while the panel reads
    await rig.driver.pilot.press("escape")  # back on the dashboard, drawn from the latest reading
    await rig.driver.pilot.pause()
    row = " ".join(tree_row(rig.app, STREAM).split())
    assert " 0 viewers " in row, row


def _header(rig: Rig) -> str:
    return " ".join(rig.text("#detail-header").split())


async def test_the_break_from_the_cut_shows_on_the_row_header_and_status_line_as_sent_here(rig: Rig) -> None:
    """0.19 writes no marker and only cuts a segment: the console's own break goes on air from the cut, and the
    dashboard says so where every break shows (row, header, status line), as the real server did."""
    await cue_out(rig)
    await rig.driver.step(1.0, times=3)  # the cut is listed 1.21 s after the request
    await rig.driver.pilot.press("escape")
    await rig.driver.step(1.0)
    row = tree_row(rig.app, STREAM)
    assert re.search(r"AD 0:2\d", row), row
    header = _header(rig)
    assert re.search(r"AD 0:2\d", header) and "not sent from this console" not in header, header
    status = status_of(rig.app)
    assert re.search(r"AD 0:2\d", status) and "not sent here" not in status, status


async def test_a_break_sent_by_someone_else_is_said_to_be_unseeable_there_never_absent(rig: Rig) -> None:
    """The captured cue-out POSTed straight to the replayed API (automation, not this console): the real server
    cut a segment and wrote no marker, so the playlist cannot show it. The stream is not shown in a break it
    cannot see, and its header says breaks sent by others cannot be seen on this server."""
    async with aiohttp.ClientSession() as session, session.post(
            f"{rig.replay.api_url}/v1/vhosts/default/apps/app/streams/stream:sendEvent", data=CUE_OUT_BODY,
            headers={"Authorization": rig.replay.authorization, "Content-Type": "application/json"}) as reply:
        assert reply.status == 200
    assert rig.replay.cue_out_at is not None, "the replay now serves the playlists of after the cut"
    await rig.driver.step(1.0, times=4)
    assert "AD" not in tree_row(rig.app, STREAM).split("stream", 1)[1]
    assert "ad breaks sent by others cannot be seen: this server writes no ad markers" in _header(rig), _header(rig)
    assert rig.app.live.ad_board.first_seen == ()  # nothing made up for the events screen either

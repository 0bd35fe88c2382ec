"""The console never counts itself as an audience.

The simulator counts a playlist reader as an `llhls` connection exactly while its TCP connection is open,
as the real 0.19.0 server does (captures: `stats_stream_series_keepalive_20s.json`). The console's
publisher reads close their connection after each read, and the blocking reloads the ad-break panel holds
open are taken off the viewers it shows (and said, in the detail: "+1 this console").
"""

from __future__ import annotations

from pathlib import Path

from conftest import TEST_TOKEN, running_simulator
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, shown, threaded_sim

from omeconsole.api.client import OmeClient
from omeconsole.api.http import HttpTransport
from omeconsole.api.own_reads import OwnReads
from omeconsole.api.publisher import PublisherReader
from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.ad_break import AdBreakScreen
from simulator.world.clock import ManualClock

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

BACKUP = NodePath("default", "app", "backup")
"""A stream of the demo scenario that nobody watches."""


async def _llhls(client: OmeClient, path: NodePath) -> int:
    stats = await client.stats(path)
    assert stats.connections_out is not None
    return stats.connections_out.get("llhls", 0)


async def test_a_publisher_read_closes_its_connection_so_the_server_does_not_count_it() -> None:
    """Against the simulator's real counting: right after a read the stream has no llhls connection. The same
    read on a keep-alive transport is counted (the test can fail)."""
    manual = ManualClock()
    async with running_simulator(clock=manual) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        manual.advance(20)
        assert await _llhls(client, BACKUP) == 0
        own = OwnReads()
        reader = PublisherReader(sim.publisher_url, "app", "backup", own=own)
        try:
            await reader.chunklist()
            await reader.chunklist()
            assert own.open_now == 0
            assert await _llhls(client, BACKUP) == 0  # closed after each read: never an audience
        finally:
            await reader.aclose()
        kept = PublisherReader(sim.publisher_url, "app", "backup",
                               transport=HttpTransport(follow_redirects=True))  # a keep-alive pool
        try:
            await kept.chunklist()
            assert await _llhls(client, BACKUP) == 1  # what the console used to look like to the server
        finally:
            await kept.aclose()
        assert await _llhls(client, BACKUP) == 0


def test_the_ledger_says_how_many_own_reads_a_reading_may_have_counted() -> None:
    own = OwnReads()
    before = own.mark()
    first = own.opened("app", "a")
    other = own.opened("live", "b")
    during = own.mark()
    own.closed(first)
    second = own.opened("app", "a")  # back to back: never two of "a" open at once
    after = own.mark()
    assert own.held(before, after, "app", "a") == 1
    assert own.held(before, after, "live", "b") == 1 and own.held(before, after, "app", "b") == 0
    assert own.held(before, after) == 2  # the virtual host: both streams
    assert own.held(during, after, "app", "a") == 1
    own.closed(second)
    own.closed(other)
    later = own.mark()
    assert own.held(later, own.mark(), "app", "a") == 1  # closed a moment ago: the server may not know yet


async def test_a_stream_nobody_watches_shows_no_viewer_while_its_ad_break_panel_reads_for_60_s(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(BACKUP),
                   publisher_url=threaded_sim.running.publisher_url)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        engine = app.session.engine
        assert engine.node(BACKUP).viewers == 0
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AdBreakScreen)
        for _ in range(60):
            await driver.step(1.0)
            latest = engine.node(BACKUP).latest
            assert latest is not None and latest.viewers == 0, latest
            server = latest.stats.connections_out or {}
            assert server.get("llhls", 0) <= latest.own_viewers  # what the server counted was the console
        assert app.session.client.own_reads.reads_done >= 60  # the panel read the playlist all along
        await pilot.press("escape")
        await driver.step(1.0)
        header = shown(app.screen.query_one("#detail-header"))
        assert " 0 viewers" in header, header

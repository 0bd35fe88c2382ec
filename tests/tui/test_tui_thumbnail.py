"""The stream view's picture (issue 29): the real app through Pilot against the real simulator's thumbnail
publisher, both clocks moved by the test. The picture is shown with the line that says it is live; the
simulator's frozen picture makes the console say "frozen" with how long; its black picture says "black"; a
stream without an image encode says there is none; `thumbnails = false` shows no picture and reads none.
The reads stay out of the ledger of own connections: the thumbnail publisher counts none."""

from __future__ import annotations

import math
import re
from pathlib import Path

from textual.widget import Widget
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui

from omeconsole.api.own_reads import Moment
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.widgets.thumbnail_view import ThumbnailView

__all__ = ["console_clock", "quiet_ui"]

STREAM = NodePath("default", "app", "stream")
UNWATCHED = NodePath("default", "app", "backup")
"""Nobody watches it in the demo: every byte it sends out is a thumbnail the console read."""


def _caption(app: ConsoleApp) -> str:
    views = app.screen.query(ThumbnailView)
    return views.first().caption_text if views else ""


async def _open(app: ConsoleApp, driver: Driver, path: NodePath = STREAM) -> None:
    await driver.warm_up(2)
    app.push_screen(NodeScreen(app.live, path))
    await driver.until(lambda: isinstance(app.screen, NodeScreen) and bool(app.screen.query(ThumbnailView)))


async def _caption_matches(app: ConsoleApp, driver: Driver, pattern: str, steps: int = 8) -> str:
    """Step both clocks a second at a time until the caption matches (a guard of `steps`, not a timing)."""
    for _ in range(steps):
        await driver.step(1.0)
        await driver.until(lambda: _caption(app) != "" and not getattr(app.screen, "reading_thumbnail", False))
        if re.search(pattern, _caption(app)):
            return _caption(app)
    raise AssertionError(f"the caption never matched {pattern!r}: {_caption(app)!r}")


def _bytes_out(sim: ThreadedSimulator, path: NodePath) -> int:
    world = sim.running.world
    stream = sim.call(lambda: world.find_stream(path.vhost, path.app or "", path.stream or ""))
    assert stream is not None
    return int(sim.call(lambda: world.counters("stream", stream.row))["bytes_out"])  # type: ignore[call-overload]


def _picture(app: ConsoleApp) -> Widget:
    return app.screen.query_one("#thumbnail-picture")


async def test_the_stream_view_shows_the_live_picture(quiet_ui: None, console_clock: ParkingClock,
                                                      tmp_path: Path) -> None:
    with ThreadedSimulator() as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, publisher_url=sim.running.publisher_url,
                       follow_playlists=False)
        async with app.run_test(size=(140, 50)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await _open(app, driver, UNWATCHED)
            assert await _caption_matches(app, driver, "^picture live$")
            assert _bytes_out(sim, UNWATCHED) > 0  # the reads went to the server's thumbnail publisher
            # No terminal behind Pilot to ask: the title says the picture is half blocks, not pixels.
            assert app.screen.query_one(ThumbnailView).border_title == "picture · half blocks"
            picture = _picture(app)
            assert picture.display and picture.size.width > 0
            assert picture.image is not None and picture.image.size == (320, 180)  # type: ignore[attr-defined]
            # The thumbnail publisher counts no connection for a reader, only the bytes it sent: the reads are in
            # the ledger of the console's own reads for their bytes (taken off "out"), never as connections
            # (taken off the viewers, they would hide a real one).
            own = app.live.session.client.own_reads
            assert own.bytes_read(UNWATCHED) > 0
            assert own.held(Moment(0, -math.inf), own.mark(), UNWATCHED) == 0


async def test_a_frozen_picture_is_said_frozen_with_how_long(quiet_ui: None, console_clock: ParkingClock,
                                                             tmp_path: Path) -> None:
    with ThreadedSimulator(faults="picture-freeze=1s..,streams=default/app/stream") as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, publisher_url=sim.running.publisher_url,
                       follow_playlists=False, thumbnail_frozen_after=3.0)
        async with app.run_test(size=(140, 50)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await _open(app, driver)
            caption = await _caption_matches(app, driver, r"^frozen 0:0[3-9]$")
            assert _picture(app).display
            later = await _caption_matches(app, driver, r"^frozen 0:0[4-9]$")
            assert later != caption  # the time it has been frozen goes on


async def test_a_black_picture_is_said_black(quiet_ui: None, console_clock: ParkingClock, tmp_path: Path) -> None:
    with ThreadedSimulator(faults="picture-black=1s..") as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, publisher_url=sim.running.publisher_url,
                       follow_playlists=False)
        async with app.run_test(size=(140, 50)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await _open(app, driver, NodePath("default", "app", "sports"))
            assert await _caption_matches(app, driver, "^black$")


async def test_a_stream_without_an_image_encode_says_so(quiet_ui: None, console_clock: ParkingClock,
                                                        tmp_path: Path) -> None:
    with ThreadedSimulator() as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, publisher_url=sim.running.publisher_url,
                       follow_playlists=False)
        async with app.run_test(size=(140, 50)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await _open(app, driver, NodePath("default", "live", "concert"))
            assert await _caption_matches(app, driver, "no thumbnail: the server publishes none")
            assert not _picture(app).display


async def test_thumbnails_off_shows_no_picture_and_reads_none(quiet_ui: None, console_clock: ParkingClock,
                                                              tmp_path: Path) -> None:
    with ThreadedSimulator() as sim:
        app = make_app(sim.api_url, console_clock, tmp_path, publisher_url=sim.running.publisher_url,
                       follow_playlists=False, thumbnails=False)
        async with app.run_test(size=(140, 50)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.warm_up(2)
            app.push_screen(NodeScreen(app.live, UNWATCHED))
            await driver.until(lambda: isinstance(app.screen, NodeScreen))
            await driver.step(1.0, times=3)
            assert not app.screen.query(ThumbnailView)
            assert _bytes_out(sim, UNWATCHED) == 0  # not one thumbnail read

"""A stream's playback URLs in its detail and the copy key (`y`), against the real simulator: the URLs the
simulator's publisher answers, the exact text in the app's clipboard and the notice saying it was sent,
and a hostile stream name neither copied nor shown raw. (The URL rules against the real server's stream
info, and an application without LL-HLS: tests/unit/test_uptime_playback.py.)"""

from __future__ import annotations

import urllib.request
from pathlib import Path

from textual.widgets._toast import Toast
from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    shown,
    threaded_sim,
)

from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.copy_picker import CopyPicker
from simulator.world.scenario import StreamSpec

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
HOSTILE = "evil\x1b]52;c;SGFjaw==\x07[b]x"


def playback_text(app: ConsoleApp) -> str:
    """The playback panel's URLs and labels, its border off and a URL folded over lines joined again."""
    lines = shown(app.screen.query_one("#detail-playback")).splitlines()[1:-1]
    cells = [line.strip("│ ") for line in lines]
    joined: list[str] = []
    for cell in cells:
        if cell.startswith(("http", "ws", "publisher")) or "  " in cell or not joined:
            joined.append(cell)
        else:  # the rest of the URL above, folded
            joined[-1] += cell
    return "\n".join(joined)


def notices(app: ConsoleApp) -> list[str]:
    """The toasts on screen, as drawn."""
    return [shown(toast) for toast in app.screen.query(Toast)]


def said(app: ConsoleApp, words: str) -> bool:
    """Whether a toast on screen says `words` (a long one wraps, at a space or inside a URL: the text is compared
    without its spaces and line breaks, and without the toast's edge)."""
    def squeezed(text: str) -> str:
        return "".join(text.replace("▌", "").split())

    return any(squeezed(words) in squeezed(notice) for notice in notices(app))


async def test_the_detail_shows_the_urls_the_simulators_publisher_serves_and_y_sends_the_chosen_one(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    publisher = threaded_sim.running.publisher_url.rstrip("/")
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS), publisher_url=publisher,
                   follow_playlists=False, thumbnails=False)
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        text = playback_text(app)
        llhls = f"{publisher}/app/news/llhls.m3u8"
        assert llhls in text and f"publisher {publisher}" in text, text
        assert f"{publisher}/app/news/thumb.jpg" in text and "thumbnail (assumed)" in text
        ws = "ws://" + publisher.split("://", 1)[1] + "/app/news"
        assert ws in text and "WebRTC (assumed)" in text
        for url in (llhls, f"{publisher}/app/news/thumb.jpg"):  # the simulator's publisher answers them
            with urllib.request.urlopen(url, timeout=10) as reply:
                assert reply.status == 200, url

        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        await pilot.press("enter")  # the first choice: the stream's path
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert app.clipboard == "default/app/news"
        await driver.until(lambda: said(app, "sent to the terminal's clipboard (OSC 52): default/app/news"))

        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        await pilot.press("j", "enter")  # the next: the LL-HLS playlist
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert app.clipboard == llhls
        await driver.until(lambda: said(app, f"sent to the terminal's clipboard (OSC 52): {llhls}"))

        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        await pilot.press("escape")
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert app.clipboard == llhls, "Esc sends nothing"


async def test_a_hostile_stream_name_is_neither_copied_nor_shown_raw(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    def add_hostile() -> None:
        world = threaded_sim.running.world
        news = world.find_stream("default", "app", "news")
        assert news is not None
        world.start_stream("default", "app", StreamSpec(HOSTILE, news.input_protocol, news.bitrate_kbps,
                                                        news.audience, news.permanent))

    threaded_sim.call(add_hostile)
    path = NodePath("default", "app", HOSTILE)
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(path),
                   publisher_url="http://127.0.0.1:3333")
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        text = playback_text(app)
        encoded = "evil%1B%5D52%3Bc%3BSGFjaw%3D%3D%07%5Bb%5Dx"
        assert f"http://127.0.0.1:3333/app/{encoded}/thumb.jpg" in text, text
        assert "\x1b" not in text and "\x07" not in text
        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        await pilot.press("enter")
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert app.clipboard == f"default/app/{encoded}"
        await driver.until(lambda: said(app, f"(OSC 52): default/app/{encoded}"))
        assert all("\x1b" not in notice and "\x07" not in notice for notice in notices(app))


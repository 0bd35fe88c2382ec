"""A stream's playback URLs in its detail and the copy key (`y`), against the real simulator: exactly the URLs
its application publishes (the demo's `app` runs the thumbnail, WebRTC and SRT publishers besides LL-HLS and HLS;
`live` runs LL-HLS and HLS only, as the captured server), the ones the simulator's publisher serves answered,
the exact text in the app's clipboard and the notice saying it was sent, and a hostile stream name neither copied
nor shown raw. (The URL rules against the real server's documents and hostile ones:
tests/unit/test_playback_urls.py.)"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from textual.widgets import OptionList
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

from omeconsole.core.playback import PORT_NOT_IN_API, SRT_PORT_NOT_IN_API
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.copy_picker import CopyPicker
from simulator.world.scenario import StreamSpec

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
HOSTILE = "evil\x1b]52;c;SGFjaw==\x07[b]x"


def playback_text(app: ConsoleApp) -> str:
    """The playback panel as drawn, its border off."""
    lines = shown(app.screen.query_one("#detail-playback")).splitlines()[1:-1]
    return "\n".join(line.strip("│ ") for line in lines)


def squeezed(text: str) -> str:
    """The text without spaces, line breaks and borders: a URL folded over lines is whole again."""
    return "".join(text.replace("│", "").split())


def in_panel(app: ConsoleApp, *texts: str) -> bool:
    panel = squeezed(playback_text(app))
    return all(squeezed(text) in panel for text in texts)


def picker_rows(app: ConsoleApp) -> list[str]:
    """The copy picker's rows as drawn: what each is, then the text Enter sends."""
    options = app.screen.query_one("#copy-choices", OptionList)
    return [" ".join(str(options.get_option_at_index(i).prompt).split()) for i in range(options.option_count)]


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
        await driver.until(lambda: "not read yet" not in playback_text(app))
        text = playback_text(app)
        folder = f"{publisher}/app/news"
        llhls = f"{folder}/llhls.m3u8"
        host = publisher.split("://", 1)[1]
        ws = f"ws://{host}/app/news"
        srt = f"srt://{host.rsplit(':', 1)[0]}:9998?streamid=default/app/news/master"
        assert f"publisher {publisher}" in text and "configuration" not in text, text  # the app's document read
        assert in_panel(app, llhls, f"{folder}/thumb.jpg", f"{folder}/thumb.png", ws, srt,
                        f"assumed: {PORT_NOT_IN_API}", f"assumed: {SRT_PORT_NOT_IN_API}"), text
        for url in (llhls, f"{folder}/thumb.jpg", f"{folder}/thumb.png"):  # the simulator's publisher answers them
            with urllib.request.urlopen(url, timeout=10) as reply:
                assert reply.status == 200, url

        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        assert picker_rows(app) == [
            "path default/app/news",
            f"LL-HLS llhls {llhls}",
            f"HLS (TS) llhls (assumed) {folder}/ts:llhls.m3u8",  # the stream info's one playlist packages TS
            f"thumbnail jpg (assumed) {folder}/thumb.jpg",
            f"thumbnail png (assumed) {folder}/thumb.png",
            f"WebRTC (assumed) {ws}",
            f"SRT master (assumed) {srt}",
        ]
        await pilot.press("escape")
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))

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
        encoded = "evil%1B%5D52%3Bc%3BSGFjaw%3D%3D%07%5Bb%5Dx"
        await driver.until(lambda: in_panel(app, f"http://127.0.0.1:3333/app/{encoded}/thumb.jpg",
                                            f"srt://127.0.0.1:9998?streamid=default/app/{encoded}/master"))
        text = playback_text(app)
        assert "\x1b" not in text and "\x07" not in text
        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        await pilot.press("enter")
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert app.clipboard == f"default/app/{encoded}"
        await driver.until(lambda: said(app, f"(OSC 52): default/app/{encoded}"))
        assert all("\x1b" not in notice and "\x07" not in notice for notice in notices(app))


async def test_an_application_running_only_ll_hls_and_hls_offers_no_thumbnail_webrtc_or_srt(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """The demo's `live` runs the captured server's publishers: its streams have playlists and nothing else, and
    the thumbnail the console once assumed is not served there (404)."""
    def add_lasting() -> None:
        threaded_sim.running.world.start_stream("default", "live", StreamSpec("lasting", "rtmp", 2000, 5, True))

    threaded_sim.call(add_lasting)
    publisher = threaded_sim.running.publisher_url.rstrip("/")
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select="default/live/lasting",
                   publisher_url=publisher, follow_playlists=False, thumbnails=False)
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        await driver.until(lambda: "not read yet" not in playback_text(app))
        folder = f"{publisher}/live/lasting"
        await pilot.press("y")
        await driver.until(lambda: isinstance(app.screen, CopyPicker))
        assert picker_rows(app) == [
            "path default/live/lasting",
            f"LL-HLS llhls {folder}/llhls.m3u8",
            f"HLS (TS) llhls (assumed) {folder}/ts:llhls.m3u8",
        ]
        await pilot.press("escape")
        await driver.until(lambda: not isinstance(app.screen, CopyPicker))
        assert "thumb" not in playback_text(app) and "WebRTC" not in playback_text(app)
        try:
            urllib.request.urlopen(f"{folder}/thumb.jpg", timeout=10)
            raise AssertionError("a thumbnail served by an application without the thumbnail publisher")
        except urllib.error.HTTPError as error:
            assert error.code == 404

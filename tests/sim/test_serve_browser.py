"""`omeconsole serve` in Debian's Chromium, driven by Playwright (no browser download): `make test-browser`.

The real command serves the console of a real simulator (on the system clock: the consoles are other
processes reading real time). The screen's text is what the page's websocket drew, read with a terminal
emulator (pyte): xterm.js draws on a canvas, with no text in the page. Skipped, saying why, without
Chromium (`apt-get install chromium`; another binary through $CHROMIUM) or Playwright.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyte
import pytest
from test_serve import PASSWORD, TOKEN, serve_environment
from ui_support import ThreadedSimulator

from simulator.world.clock import SystemClock

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_S = 60.0
NEWS = "default/app/news"

try:
    from playwright.sync_api import Page, Playwright, WebSocket, sync_playwright
except ImportError:  # pragma: no cover - only where Playwright is not installed
    pytest.skip("Playwright is not installed (pip install playwright; no browser download needed)",
                allow_module_level=True)
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set $CHROMIUM)", allow_module_level=True)


class Screen:
    """The console's screen as the page's websocket drew it (the size the page asked for, then resized to)."""

    def __init__(self) -> None:
        self.terminal = pyte.Screen(80, 24)
        self._stream = pyte.ByteStream(self.terminal)
        self.sockets = 0
        self.closed = False

    def attach(self, socket: WebSocket) -> None:
        self.sockets += 1
        query = parse_qs(urlsplit(socket.url).query)
        self.terminal.resize(int(query["height"][0]), int(query["width"][0]))
        socket.on("framereceived", self._received)
        socket.on("framesent", self._sent)
        socket.on("close", lambda _: setattr(self, "closed", True))

    def _received(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            self._stream.feed(payload)

    def _sent(self, payload: str | bytes) -> None:
        message: Any = json.loads(payload)
        if message[0] == "resize":
            self.terminal.resize(message[1]["height"], message[1]["width"])

    @property
    def text(self) -> str:
        return "\n".join(self.terminal.display)

    def wait_for(self, page: Page, text: str | re.Pattern[str]) -> str:
        """Until the screen shows `text` (Playwright's event loop runs while waiting)."""
        deadline = WAIT_S * 1000
        while not (text.search(self.text) if isinstance(text, re.Pattern) else text in self.text):
            assert deadline > 0 and not self.closed, f"the screen never showed {text!r}:\n{self.text}"
            page.wait_for_timeout(100)
            deadline -= 100
        return self.text


@pytest.fixture(scope="module")
def simulator() -> Iterator[ThreadedSimulator]:
    with ThreadedSimulator(access_token=TOKEN, clock=SystemClock(), name="serve-browser-simulator") as running:
        yield running


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


class Served:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url


@pytest.fixture
def serve(simulator: ThreadedSimulator, tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []

    def start(*options: str) -> Served:
        process = subprocess.Popen(
            [sys.executable, "-m", "omeconsole.cli.main", "--api-url", simulator.api_url, "--publisher-url",
             simulator.running.publisher_url, "--select", NEWS, "serve", "--listen", "127.0.0.1:0", *options],
            env=serve_environment(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        started.append(process)
        assert process.stderr is not None
        banner = process.stderr.readline()
        found = re.search(r"http://\S+/", banner)
        assert found, banner
        return Served(process, found.group(0))

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=WAIT_S)


@pytest.fixture
def browser_page(playwright: Playwright) -> Iterator[tuple[Page, Screen]]:
    with tempfile.TemporaryDirectory(prefix="serve-chromium-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            screen = Screen()
            page.on("websocket", screen.attach)
            yield page, screen
        finally:
            context.close()


def _open_console(page: Page, screen: Screen, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body.-first-byte", timeout=WAIT_S * 1000)  # xterm.js drew the console's bytes
    screen.wait_for(page, "news")
    page.focus(".xterm-helper-textarea")  # the keyboard goes to the terminal, as after a click on it


def _events(simulator: ThreadedSimulator) -> list[object]:
    def read() -> list[object]:
        stream = simulator.running.world.find_stream("default", "app", "news")
        assert stream is not None
        return [event.body for event in stream.events.events]

    return simulator.call(read)


def test_the_page_shows_the_console_keys_move_the_cursor_and_a_cue_out_is_refused_read_only(
        serve: Any, browser_page: tuple[Page, Screen], simulator: ThreadedSimulator) -> None:
    page, screen = browser_page
    served = serve()
    _open_console(page, screen, served.url)
    assert "read-only: cue-out, cue-in and ID3 are refused" in page.inner_text("#terms")
    shown = screen.wait_for(page, "default/app/news")
    assert "READ-ONLY" in shown and TOKEN not in shown and TOKEN not in page.content()
    page.keyboard.press("ArrowDown")
    screen.wait_for(page, "default/app/sports")  # the cursor moved to the next stream: its view
    page.keyboard.press("ArrowUp")
    screen.wait_for(page, "default/app/news")
    page.keyboard.press("o")
    screen.wait_for(page, "read-only mode: nothing is sent")
    assert _events(simulator) == []


def test_a_cue_out_round_trip_with_allow_sends(serve: Any, browser_page: tuple[Page, Screen],
                                               simulator: ThreadedSimulator) -> None:
    page, screen = browser_page
    served = serve("--allow-sends")
    _open_console(page, screen, served.url)
    assert "sends allowed" in page.inner_text("#terms")
    screen.wait_for(page, "default/app/news")
    before = len(_events(simulator))
    page.keyboard.press("o")
    screen.wait_for(page, "cue-out")
    page.keyboard.press("Enter")  # the default duration, 30 s
    screen.wait_for(page, re.compile(r"\by\b"))
    page.keyboard.press("y")
    screen.wait_for(page, "cue-out · default/app/news")
    events = _events(simulator)
    assert events[before:] == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}]


def test_a_wrong_password_gets_no_console(serve: Any, browser_page: tuple[Page, Screen], tmp_path: Path) -> None:
    page, screen = browser_page
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    served = serve("--auth-file", str(secret))
    page.goto(served.url)
    page.fill("input[name=password]", "not the password")
    page.click("button[type=submit]")
    page.wait_for_selector("#wrong")
    assert "Wrong password: no console." in page.inner_text("body")
    assert page.query_selector(".textual-terminal") is None and screen.sockets == 0
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("body.-first-byte", timeout=WAIT_S * 1000)
    screen.wait_for(page, "news")
    assert PASSWORD not in page.content() and screen.sockets == 1

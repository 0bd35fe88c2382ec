"""`y` in `omeconsole serve`, in Debian's Chromium: the OSC 52 the console writes reaches the browser's
clipboard through the page's terminal (xterm.js and its clipboard addon, as textual-serve ships them), on a
loopback page (a secure context) whose clipboard permission is granted. `make test-browser` runs it."""

from __future__ import annotations

import time
from typing import Any

import pytest
from test_serve_browser import WAIT_S, Page, Screen, _open_console, browser_page, playwright, serve, simulator

__all__ = ["browser_page", "playwright", "serve", "simulator"]

pytestmark = pytest.mark.browser


def clipboard(page: Page) -> str:
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


def test_y_and_enter_put_the_streams_path_in_the_browsers_clipboard(
        serve: Any, browser_page: tuple[Page, Screen]) -> None:
    page, screen = browser_page
    served = serve()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served.url.rstrip("/"))
    _open_console(page, screen, served.url)
    screen.wait_for(page, "default/app/news")
    page.evaluate("navigator.clipboard.writeText('before')")
    page.keyboard.press("y")
    screen.wait_for(page, "Enter sends it")
    page.keyboard.press("Enter")
    screen.wait_for(page, "sent to the terminal's clipboard (OSC 52)")
    deadline = time.monotonic() + WAIT_S  # a guard: the page writes the clipboard when the bytes arrive
    while clipboard(page) != "default/app/news":
        assert time.monotonic() < deadline, f"the browser's clipboard holds {clipboard(page)!r}"
        page.wait_for_timeout(50)

"""The stream view's picture in real terminals under Xvfb (issue 29): xterm as a VT340 (Sixel), kitty, Konsole.

The console runs as its own process in the terminal against a real simulator (on a clock the test moves:
the picture is the frame of one moment, then the simulator's black-picture fault). The screen is read two
ways: its pixels from the X server (python-xlib) and its text from what the console wrote (`script` logs
it; pyte draws it, graphics sequences left out). The picture must be the thumbnail the simulator serves,
fetched apart and compared by colours with Pillow; the panel's title must say the method; the black picture
must turn that region dark and the caption "black". Every wait polls for what it waits for, under a
generous deadline. Skipped, saying why, without Xvfb, the terminal, `script` or python-xlib (`make
test-terminal`; Debian: apt-get install xvfb xterm kitty konsole). kitty draws Kitty graphics by direct placement
(0.26.5 in Debian 12, which has no Unicode placeholders): the console must say kitty there, and take the
picture down when another screen is shown (a placed Kitty picture stays until deleted).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import httpx
import pyte
import pytest
from PIL import Image, ImageChops, ImageStat
from test_serve import TOKEN, descendants, serve_environment
from ui_support import ThreadedSimulator

pytestmark = [pytest.mark.terminal, pytest.mark.slow]

try:
    from Xlib import XK, X, display
    from Xlib.ext import xtest
except ImportError:  # pragma: no cover - only where python-xlib is not installed
    pytest.skip("python-xlib is not installed (it is in the dev dependencies)", allow_module_level=True)
for _program, _package in (("Xvfb", "xvfb"), ("script", "bsdutils")):
    if shutil.which(_program) is None:
        pytest.skip(f"no {_program} (apt-get install {_package})", allow_module_level=True)

T = TypeVar("T")
WAIT_S = 90.0
COLUMNS, ROWS = 140, 45
NEWS = "default/app/news"
BLACK_AT_S = 30
FAULTS = f"picture-black=at:{BLACK_AT_S}s:for:1h,streams={NEWS}"
INK = 60
"""A pixel brighter than this (any channel) is drawn, not the console's background."""
_GRAPHICS = re.compile(rb"\x1b[P_].*?\x1b\\", re.DOTALL)
_GRAPHICS_OPEN = re.compile(rb"\x1b[P_]|\x1b$")


def _until(what: str, probe: Callable[[], T | None], explain: Callable[[], str] = lambda: "") -> T:
    """Poll `probe` until it gives something (a deadline only against a hang)."""
    ends = time.monotonic() + WAIT_S
    while (found := probe()) is None:
        assert time.monotonic() < ends, f"never: {what}\n{explain()}"
        time.sleep(0.2)
    return found


class ScreenText:
    """The console's text as a terminal would show it, from the `script` log (Sixel and Kitty data left out)."""

    def __init__(self, log: Path) -> None:
        self._log = log
        self._read = 0
        self._pending = b""
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self._stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        if self._log.exists():
            with self._log.open("rb") as file:
                file.seek(self._read)
                fresh = file.read()
            self._read += len(fresh)
            data = _GRAPHICS.sub(b"", self._pending + fresh)
            opened = _GRAPHICS_OPEN.search(data)
            data, self._pending = (data[:opened.start()], data[opened.start():]) if opened else (data, b"")
            self._stream.feed(data)
        return "\n".join(self.screen.display)

    def panel(self, title: str) -> tuple[int, int, int, int] | None:
        """The cells (left, top, right, bottom) of the bordered panel whose top border carries `title`, as drawn."""
        rows = self.text().splitlines()
        for top, row in enumerate(rows):
            at = row.find(title)
            if at < 0:
                continue
            left, right = row.rfind("╭", 0, at), row.find("╮", at)
            if left < 0 or right < 0:
                continue
            bottom = next((below for below in range(top + 1, len(rows)) if rows[below][left] == "╰"), None)
            return None if bottom is None else (left, top, right, bottom)
        return None


class XScreen:
    """An Xvfb of its own: screenshots and key presses."""

    def __init__(self, number: int) -> None:
        self.name = f":{number}"
        self._display = display.Display(self.name)

    def shot(self) -> Image.Image:
        root = self._display.screen().root
        size = root.get_geometry()
        raw = root.get_image(0, 0, size.width, size.height, X.ZPixmap, 0xFFFFFFFF)
        return Image.frombytes("RGB", (size.width, size.height), raw.data, "raw", "BGRX")

    def terminal_window(self) -> tuple[int, int, int, int] | None:
        """The terminal's window (left, top, right, bottom pixels) once it is viewable: the top-level window under
        the pointer, where keys go (no window manager runs; a terminal may have other windows, unseen)."""
        root = self._display.screen().root
        xtest.fake_input(self._display, X.MotionNotify, x=40, y=40)
        self._display.sync()
        window = root.query_pointer().child
        if not window or window.get_attributes().map_state != X.IsViewable:
            return None
        size = window.get_geometry()
        return size.x, size.y, size.x + size.width, size.y + size.height

    def press(self, key: str) -> None:
        xtest.fake_input(self._display, X.MotionNotify, x=40, y=40)  # no window manager: focus is under the pointer
        code = self._display.keysym_to_keycode(XK.string_to_keysym(key))
        xtest.fake_input(self._display, X.KeyPress, code)
        xtest.fake_input(self._display, X.KeyRelease, code)
        self._display.sync()

    def press_with(self, modifier: str, key: str) -> None:
        """`key` with `modifier` held (Control_L: ctrl+key)."""
        held = self._display.keysym_to_keycode(XK.string_to_keysym(modifier))
        xtest.fake_input(self._display, X.KeyPress, held)
        self.press(key)
        xtest.fake_input(self._display, X.KeyRelease, held)
        self._display.sync()

    def close(self) -> None:
        self._display.close()


@pytest.fixture
def x_screen() -> Iterator[XScreen]:
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()  # Xvfb writes its display number once it accepts clients
        assert number.isdigit(), "Xvfb did not start"
        screen = XScreen(int(number))
        yield screen
        screen.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def _xterm(command: list[str]) -> list[str]:
    return ["xterm", "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340", "-xrm", "XTerm*numColorRegisters: 256",
            "-geometry", f"{COLUMNS}x{ROWS}+0+0", "-e", *command]


def _kitty(command: list[str]) -> list[str]:
    return ["kitty", "--config", "NONE", "-o", f"initial_window_width={COLUMNS}c",
            "-o", f"initial_window_height={ROWS}c", "-o", "remember_window_size=no", *command]


def _konsole(command: list[str]) -> list[str]:
    """Konsole with its built-in profile, the terminal's size set, no menu bar, tab bar or scroll bar (its toolbar
    stays: a light strip smaller than the picture, where the largest drawn rectangle is looked for)."""
    return ["konsole", "--separate", "--builtin-profile", "--hide-menubar", "--hide-tabbar",
            "-p", f"TerminalColumns={COLUMNS}", "-p", f"TerminalRows={ROWS}", "-p", "ScrollBarPosition=2",
            "-e", *command]


_TERMINALS = {"xterm": ("sixel", _xterm), "kitty": ("kitty", _kitty), "konsole": ("sixel", _konsole)}
"""What the console must say in each terminal, and how to start it. Konsole 22.12 has Kitty graphics and Sixel
(its device attributes say 4): Sixel, as textual-image prefers."""


@contextmanager
def _console_in(terminal: list[str], screen: XScreen, sim: ThreadedSimulator, home: Path) -> Iterator[ScreenText]:
    console = [sys.executable, "-m", "omeconsole.cli.main", "--api-url", sim.api_url,
               "--publisher-url", sim.running.publisher_url, "--select", NEWS]
    log = home / "typescript"
    environment = {**serve_environment(home), "DISPLAY": screen.name, "TERM": "xterm-256color"}
    process = subprocess.Popen([*terminal, "script", "-q", "-f", "-e", "-c", shlex.join(console), str(log)],
                               env=environment, start_new_session=True, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=(home / "terminal.log").open("wb"))
    try:
        yield ScreenText(log)
    finally:
        _end(process)


def _end(terminal: subprocess.Popen[bytes]) -> None:
    """The terminal, `script` and the console each lead a session of their own: the console would outlive a
    signal to the terminal's group (`script` waits for it), so every one of them is signalled by its id."""
    processes = [terminal.pid, *descendants(terminal.pid)]
    for pid in processes:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    terminal.wait(timeout=30)
    ends = time.monotonic() + 30
    while (alive := [pid for pid in processes if Path(f"/proc/{pid}").exists() and not _zombie(pid)]) and \
            time.monotonic() < ends:
        time.sleep(0.1)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def _picture_box(shot: Image.Image, block: int = 4) -> tuple[int, int, int, int] | None:
    """The largest solid drawn rectangle at least 5 blocks high (text is sparse, one-line bars too low)."""
    red, green, blue = shot.split()
    drawn = ImageChops.lighter(ImageChops.lighter(red, green), blue).point(lambda value: 255 if value > INK else 0)
    grid = drawn.resize((shot.width // block, shot.height // block), Image.Resampling.BOX)
    width, height = grid.size
    solid = {(x, y) for y in range(height) for x in range(width) if grid.getpixel((x, y)) >= 240}
    best: tuple[int, int, int, int] | None = None
    while solid:
        stack = [solid.pop()]
        xs, ys = [stack[0][0]], [stack[0][1]]
        while stack:
            x, y = stack.pop()
            for neighbour in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if neighbour in solid:
                    solid.remove(neighbour)
                    stack.append(neighbour)
                    xs.append(neighbour[0])
                    ys.append(neighbour[1])
        box = (min(xs) * block, min(ys) * block, (max(xs) + 1) * block, (max(ys) + 1) * block)
        area = (box[2] - box[0]) * (box[3] - box[1])
        if box[3] - box[1] >= 5 * block and (best is None or area > (best[2] - best[0]) * (best[3] - best[1])):
            best = box
    return best


def _pixels_of(cells: tuple[int, int, int, int], window: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The pixels of a block of cells in the terminal's window, a cell wider on each side (the window's own border
    and padding make the cell size an estimate)."""
    width, height = (window[2] - window[0]) / COLUMNS, (window[3] - window[1]) / ROWS
    left, top, right, bottom = cells
    x, y = window[0], window[1]
    return (max(x, round(x + (left - 1) * width)), max(y, round(y + (top - 1) * height)),
            min(window[2], round(x + (right + 2) * width)), min(window[3], round(y + (bottom + 2) * height)))


def _painted(shot: Image.Image) -> bool:
    """Whether a terminal's window shows the console's screen: much of it the console's dark background (xterm's own
    is white; a console laid out narrower than the window leaves some of it), with text on it (kitty's own is black
    and bare)."""
    grey = shot.convert("L")
    dark = sum(grey.histogram()[:INK]) / (grey.width * grey.height)
    return 0.3 < dark < 0.99


def colour_distance(one: Image.Image, other: Image.Image) -> float:
    """Total variation between the two pictures' colour histograms: 0 same, 1 disjoint.

    5 levels a channel, rounded: 0, 192 and 255 (the bars' levels) sit mid-bin, so a terminal's palette (Sixel
    colour registers) moving a level by a few steps keeps it in its bin."""
    def histogram(picture: Image.Image) -> list[float]:
        small = picture.convert("RGB").resize((64, 36), Image.Resampling.BOX)
        counts = [0] * 125
        for red, green, blue in small.get_flattened_data():
            counts[round(red / 64) * 25 + round(green / 64) * 5 + round(blue / 64)] += 1
        return [count / (64 * 36) for count in counts]

    return sum(abs(a - b) for a, b in zip(histogram(one), histogram(other), strict=True)) / 2


def _brightness(picture: Image.Image) -> float:
    return float(ImageStat.Stat(picture.convert("L")).mean[0])


def _open_stream_view(text: ScreenText, x_screen: XScreen, tmp_path: Path) -> tuple[int, int, int, int]:
    """Enter once, when the console reads keys (it draws the tree once its terminal is in raw mode) and the terminal
    takes them: it has painted the console's screen in its window (a key sent before, even to the mapped window, was
    lost in kitty). The terminal's window, in pixels of the screen."""
    window = _until("the terminal's window on screen", x_screen.terminal_window)
    _until("the console's screen painted in the terminal's window",
           lambda: True if _painted(x_screen.shot().crop(window)) else None,
           lambda: f"screenshot in {_save(x_screen.shot(), tmp_path)}")
    x_screen.press("Return")
    return window


def _served_picture(text: ScreenText, title: str, x_screen: XScreen, window: tuple[int, int, int, int],
                    served: Image.Image) -> tuple[int, int, int, int] | None:
    """The picture in the picture panel, from one screenshot, when it is the served one's. Looked for in the panel
    only: elsewhere a larger bright rectangle can stand (the terminal's own white background where the console drew
    nothing: a console that laid out 80 columns of xterm's 140 never matched, with the picture on screen)."""
    cells = text.panel(title)
    if cells is None:
        return None
    region = _pixels_of(cells, window)
    panel = x_screen.shot().crop(region)
    box = _picture_box(panel)
    if box is None or colour_distance(panel.crop(box), served) >= 0.35:
        return None
    return box[0] + region[0], box[1] + region[1], box[2] + region[0], box[3] + region[1]


@pytest.mark.parametrize("terminal", ["xterm", "kitty", "konsole"])
def test_the_stream_view_draws_the_servers_picture(terminal: str, x_screen: XScreen, tmp_path: Path) -> None:
    if shutil.which(terminal) is None:
        pytest.skip(f"no {terminal} (apt-get install {terminal})")
    method, argv = _TERMINALS[terminal]
    with ThreadedSimulator(access_token=TOKEN, faults=FAULTS, name=f"{terminal}-simulator") as sim:
        sim.advance(2)
        served = _fetch_thumbnail(sim)
        with _console_in(argv([]), x_screen, sim, tmp_path) as text:
            _until("the tree with the news stream", lambda: True if "news" in text.text() else None,
                   lambda: f"{text.text()}\nthe terminal said: {(tmp_path / 'terminal.log').read_text()[-2000:]}")
            window = _open_stream_view(text, x_screen, tmp_path)
            title = f"picture · {method}"
            _until(f"the title '{title}'", lambda: True if title in text.text() else None, text.text)

            box = _until("the served picture on screen", lambda: _served_picture(text, title, x_screen, window, served),
                         lambda: f"title seen; panel {text.panel(title)} (cells) in the window {window} (pixels); "
                                 f"screenshot in {_save(x_screen.shot(), tmp_path)}")
            live = x_screen.shot().crop(box)
            # The measure tells pictures apart: the served one is near, its colours inverted are far.
            assert colour_distance(live, ImageChops.invert(served)) > 0.6

            sim.advance(BLACK_AT_S)
            _until("the picture's region dark", lambda: True if _brightness(x_screen.shot().crop(box)) < 12 else None,
                   lambda: f"brightness {_brightness(x_screen.shot().crop(box)):.1f} (live {_brightness(live):.1f}); "
                           f"screenshot in {_save(x_screen.shot(), tmp_path)}\n{text.text()}")
            _until("the caption 'black'", lambda: True if re.search(r"│ *black", text.text()) else None, text.text)


def _fetch_thumbnail(sim: ThreadedSimulator) -> Image.Image:
    """The thumbnail as the simulator serves it, read apart from the console."""
    reply = httpx.get(f"{sim.running.publisher_url}/app/news/thumb.jpg", timeout=30)
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/jpeg"
    return Image.open(io.BytesIO(reply.content)).convert("RGB")


def _save(shot: Image.Image, folder: Path) -> Path:
    path = folder / "screen.png"
    shot.save(path)
    return path


def test_kitty_takes_the_picture_down_with_its_screen(x_screen: XScreen, tmp_path: Path) -> None:
    """A Kitty picture stays on the terminal until it is deleted, over whatever is drawn there later: the console
    must take it down when another screen covers the stream view (the command palette) or replaces it (back to
    the tree), and put it back when the stream view is shown again."""
    if shutil.which("kitty") is None:
        pytest.skip("no kitty (apt-get install kitty)")
    with ThreadedSimulator(access_token=TOKEN, name="kitty-simulator") as sim:
        sim.advance(2)
        served = _fetch_thumbnail(sim)
        with _console_in(_kitty([]), x_screen, sim, tmp_path) as text:
            _until("the tree with the news stream", lambda: True if "news" in text.text() else None, text.text)
            window = _open_stream_view(text, x_screen, tmp_path)
            title = "picture · kitty"
            _until(f"the title '{title}'", lambda: True if title in text.text() else None, text.text)

            def the_picture() -> tuple[int, int, int, int] | None:
                return _served_picture(text, title, x_screen, window, served)

            def gone_from(box: tuple[int, int, int, int]) -> bool | None:
                return True if colour_distance(x_screen.shot().crop(box), served) > 0.6 else None

            def explain() -> str:
                return f"screenshot in {_save(x_screen.shot(), tmp_path)}\n{text.text()}"

            box = _until("the served picture on screen", the_picture, explain)

            x_screen.press_with("Control_L", "p")
            _until("the command palette", lambda: True if "Search for commands" in text.text() else None, text.text)
            _until("the picture taken down under the palette", lambda: gone_from(box), explain)
            x_screen.press("Escape")
            _until("the picture back with the stream view", the_picture, explain)

            x_screen.press("Escape")
            _until("the tree again", lambda: True if "picture · kitty" not in text.text() else None, text.text)
            _until("no picture over the tree", lambda: gone_from(box), explain)

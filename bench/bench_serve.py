"""`omeconsole serve --demo` in headless Chromium: time to first screen, CPU per connected browser, websocket bytes/s.

The real command runs as a process (`serve --demo`: each browser session is a console process with its own
embedded simulator, the `demo` scenario). Chromium is Debian's (/usr/bin/chromium, or $CHROMIUM), driven by
Playwright (no browser download).

- Time to first screen: from `page.goto` to the screen (read from the websocket with pyte, as the tests do)
  showing the demo's streams (`news` in the tree), for each of --pages pages opened one after another.
- CPU per connected browser: the serve process and every process under it (the session consoles, each
  with its simulator), user + system time from /proc over --window seconds with all pages open, divided
  by the number of pages; the serve process's own share (the web layer) is given apart. Chromium's own
  CPU is not counted.
- Bytes per second over the websocket: what the pages received (screen updates), per page.

    .venv/bin/python bench/bench_serve.py [--pages 3] [--window 30]

With --stream-view, each page opens the stream view of default/app/news (`--select`, then Enter) and the
batch is run twice, in alternating order over --rounds: with its picture (the browser draws half blocks)
and without (`thumbnails = false` in a config file the sessions read): CPU per browser and bytes/s of each,
medians over the rounds.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyte
from playwright.sync_api import Page, WebSocket, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TICKS = os.sysconf("SC_CLK_TCK")
STREAM_VIEW = "default/app/news"


class Received:
    """A page's websocket: bytes received and the screen they drew."""

    def __init__(self) -> None:
        self.bytes = 0
        self.screen = pyte.Screen(160, 50)
        self._stream = pyte.ByteStream(self.screen)

    def attach(self, socket: WebSocket) -> None:
        socket.on("framereceived", self._received)

    def _received(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            self.bytes += len(payload)
            self._stream.feed(payload)

    def shows(self, text: str) -> bool:
        return any(text in line for line in self.screen.display)


def _tree(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = [pid], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def _wait(page: Page, condition: object, limit_s: float = 120.0, what: str = "its first screen") -> None:
    deadline = time.monotonic() + limit_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"the console never showed {what}")
        page.wait_for_timeout(20)


@dataclass
class Measured:
    firsts: list[float]
    cpu_per_page: float
    """Share of one core."""
    own: float
    rates: list[float]
    """Bytes/s per page."""


def measure(pages_count: int, window: float, *, stream_view: bool = False, picture: bool = True) -> Measured:
    select = ["--select", STREAM_VIEW] if stream_view else []
    with tempfile.TemporaryDirectory(prefix="bench-serve-config-") as folder:
        config = Path(folder) / "config.toml"
        config.write_text("" if picture else "thumbnails = false\n")
        config.chmod(0o600)  # else the console warns on stderr, before the line with the URL
        environment = {**os.environ, "OMECONSOLE_CONFIG": str(config)}
        # The stream view is open once its footer says so; with the picture, once the picture's panel is drawn.
        opened = ("picture · half blocks" if picture else "esc Back") if stream_view else None
        return _measure(pages_count, window, select, environment, opened)


def _measure(pages_count: int, window: float, select: list[str], environment: dict[str, str],
             opened: str | None) -> Measured:
    serve = subprocess.Popen([sys.executable, "-m", "omeconsole.cli.main", *select, "serve", "--demo", "--listen",
                              "127.0.0.1:0", "--max-sessions", str(pages_count)], env=environment,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert serve.stderr is not None
        found = re.search(r"http://\S+/", serve.stderr.readline())
        assert found
        url = found.group(0)
        firsts: list[float] = []
        received: list[Received] = []
        with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
                viewport={"width": 1280, "height": 800})
            pages = []
            for _ in range(pages_count):
                page = context.new_page()
                screen = Received()
                page.on("websocket", screen.attach)
                started = time.monotonic()
                page.goto(url)
                _wait(page, lambda screen=screen: screen.shows("news"))
                firsts.append(time.monotonic() - started)
                if opened is not None:
                    page.focus(".xterm-helper-textarea")  # the keyboard goes to the terminal, as after a click on it
                    page.keyboard.press("Enter")
                    _wait(page, lambda screen=screen, opened=opened: screen.shows(opened), what=repr(opened))
                pages.append(page)
                received.append(screen)
            pids = _tree(serve.pid)
            cpu_before, own_before = _cpu_s(pids), _cpu_s([serve.pid])
            bytes_before = [screen.bytes for screen in received]
            started = time.monotonic()
            pages[0].wait_for_timeout(window * 1000)  # the pages' event loop runs: frames keep arriving
            elapsed = time.monotonic() - started
            cpu = _cpu_s(pids) - cpu_before
            own = _cpu_s([serve.pid]) - own_before
            rates = [(screen.bytes - before) / elapsed for screen, before in zip(received, bytes_before, strict=True)]
            context.close()
    finally:
        serve.terminate()
        serve.wait(timeout=60)
    return Measured(firsts, cpu / elapsed / pages_count, own / elapsed, rates)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--stream-view", action="store_true",
                        help=f"pages on the stream view of {STREAM_VIEW}, with its picture against without")
    parser.add_argument("--rounds", type=int, default=2, help="with --stream-view: rounds of both variants")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    print(f"# bench_serve {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.python_version()} · "
          f"{os.cpu_count()} cores · load {os.getloadavg()[0]:.1f} · {args.pages} pages · window {args.window:g} s")
    if args.stream_view:
        return _compare_pictures(args.pages, args.window, args.rounds)
    found = measure(args.pages, args.window)
    print(f"time to first screen (goto -> tree shown), s: {', '.join(f'{value:.2f}' for value in found.firsts)}"
          f" (median {statistics.median(found.firsts):.2f})")
    print(f"CPU per connected browser (console + its demo simulator + share of serve): "
          f"{100 * found.cpu_per_page:.1f} % of a core; the serve process itself: "
          f"{100 * found.own:.1f} % of a core for all {args.pages}")
    print(f"websocket bytes/s per page: {', '.join(f'{rate / 1024:.1f} KiB/s' for rate in found.rates)}"
          f" (median {statistics.median(found.rates) / 1024:.1f} KiB/s)")
    return 0


def _compare_pictures(pages: int, window: float, rounds: int) -> int:
    variants = {"picture": True, "no picture": False}
    found: dict[str, list[Measured]] = {name: [] for name in variants}
    order = list(variants)
    for round_ in range(rounds):
        for name in order[round_ % 2:] + order[:round_ % 2]:
            found[name].append(measure(pages, window, stream_view=True, picture=variants[name]))
    print(f"stream view of {STREAM_VIEW} in every page, {rounds} rounds alternating; medians")
    print("| stream view | CPU per connected browser | websocket bytes/s per page |")
    print("|---|---|---|")
    for name, runs in found.items():
        cpu = statistics.median(run.cpu_per_page for run in runs)
        rate = statistics.median(statistics.median(run.rates) for run in runs)
        print(f"| {name} | {100 * cpu:.1f} % of a core | {rate / 1024:.1f} KiB/s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
from datetime import UTC, datetime
from pathlib import Path

import pyte
from playwright.sync_api import Page, WebSocket, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TICKS = os.sysconf("SC_CLK_TCK")


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


def _wait(page: Page, condition: object, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("the console never showed its first screen")
        page.wait_for_timeout(20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--window", type=float, default=30.0)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    serve = subprocess.Popen([sys.executable, "-m", "omeconsole.cli.main", "serve", "--demo", "--listen",
                              "127.0.0.1:0", "--max-sessions", str(args.pages)],
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
            for _ in range(args.pages):
                page = context.new_page()
                screen = Received()
                page.on("websocket", screen.attach)
                started = time.monotonic()
                page.goto(url)
                _wait(page, lambda screen=screen: screen.shows("news"))
                firsts.append(time.monotonic() - started)
                pages.append(page)
                received.append(screen)
            pids = _tree(serve.pid)
            cpu_before, own_before = _cpu_s(pids), _cpu_s([serve.pid])
            bytes_before = [screen.bytes for screen in received]
            started = time.monotonic()
            pages[0].wait_for_timeout(args.window * 1000)  # the pages' event loop runs: frames keep arriving
            elapsed = time.monotonic() - started
            cpu = _cpu_s(pids) - cpu_before
            own = _cpu_s([serve.pid]) - own_before
            rates = [(screen.bytes - before) / elapsed for screen, before in zip(received, bytes_before, strict=True)]
            context.close()
    finally:
        serve.terminate()
        serve.wait(timeout=60)
    print(f"# bench_serve {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.python_version()} · "
          f"{os.cpu_count()} cores · load {os.getloadavg()[0]:.1f} · {args.pages} pages · window {args.window:g} s")
    print(f"time to first screen (goto -> tree shown), s: {', '.join(f'{value:.2f}' for value in firsts)}"
          f" (median {statistics.median(firsts):.2f})")
    print(f"CPU per connected browser (console + its demo simulator + share of serve): "
          f"{100 * cpu / elapsed / args.pages:.1f} % of a core; the serve process itself: "
          f"{100 * own / elapsed:.1f} % of a core for all {args.pages}")
    print(f"websocket bytes/s per page: {', '.join(f'{rate / 1024:.1f} KiB/s' for rate in rates)}"
          f" (median {statistics.median(rates) / 1024:.1f} KiB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""bench_thumbnail.py --terminal xterm: the stream view with its Sixel picture against without, in a real xterm.

Xvfb with a display of its own, xterm as a VT340 (Sixel, 256 colour registers) running the console under
`script` (its log tells when the tree, then the stream view, are drawn), Enter pressed through XTEST.
The console's own process is measured: CPU over the window from /proc, peak RSS (VmHWM).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_tui import BIN, TOKEN
from Xlib import XK, X, display
from Xlib.ext import xtest

TICKS = os.sysconf("SC_CLK_TCK")
NEWS = "default/app/news"
Starter = Callable[[], tuple[subprocess.Popen[str], str, str]]
"""Starts `ome-simulator --scenario demo`: (its process, API URL, publisher URL)."""


def _wait_for(log: Path, text: bytes, limit_s: float = 180.0) -> None:
    ends = time.monotonic() + limit_s
    while not (log.exists() and text in log.read_bytes()):
        if time.monotonic() > ends:
            raise SystemExit(f"the console never drew {text!r}")
        time.sleep(0.2)


def _child(parent: int, name: str) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent and name in stat.split(")", 1)[0]:
                return int(entry.name)
    raise SystemExit(f"no {name} under {parent}")


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _press_return(screen: display.Display) -> None:
    xtest.fake_input(screen, X.MotionNotify, x=40, y=40)
    code = screen.keysym_to_keycode(XK.string_to_keysym("Return"))
    xtest.fake_input(screen, X.KeyPress, code)
    xtest.fake_input(screen, X.KeyRelease, code)
    screen.sync()


def launch(variant: str, flag: str, seconds: float, start_simulator: Starter) -> tuple[float, float]:
    """(CPU share of one core over the window, peak RSS in MB) of the console in xterm."""
    simulator, api_url, publisher_url = start_simulator()
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as announced:
        name = f":{announced.readline().strip()}"
    folder = Path(tempfile.mkdtemp(prefix="bench-thumbnail-xterm-"))
    log = folder / "typescript"
    console = [str(BIN / "omeconsole"), "--api-url", api_url, "--publisher-url", publisher_url, "--token", TOKEN,
               "--select", NEWS, *([flag] if flag else [])]
    environment = {**os.environ, "DISPLAY": name, "OMECONSOLE_HISTORY_DB": str(folder / "history.sqlite3")}
    xterm = subprocess.Popen(["xterm", "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340", "-xrm",
                              "XTerm*numColorRegisters: 256", "-geometry", "160x50+0+0", "-e", "script", "-q", "-f",
                              "-c", shlex.join(console), str(log)], env=environment, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    screen = display.Display(name)
    try:
        _wait_for(log, b"news")
        while b"esc" not in log.read_bytes():  # Enter again every 5 s: a key sent while xterm maps its window is lost
            _press_return(screen)
            time.sleep(5.0)
        _wait_for(log, "picture · sixel".encode() if not flag else b"esc")
        pid = _child(_child(xterm.pid, "script"), "omeconsole")
        time.sleep(3.0)  # the view settles (a benchmark, not a test: the window is measured in real time)
        before, started = _cpu_s(pid), time.monotonic()
        time.sleep(seconds)
        cpu = (_cpu_s(pid) - before) / (time.monotonic() - started)
        match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
        return cpu, int(match.group(1)) / 1024 if match else float("nan")
    finally:
        screen.close()
        # xterm, `script` and the console each lead a session: each is signalled by its id (script waits for
        # the console, which would outlive a signal to xterm's group).
        for pid in [xterm.pid, *_descendants(xterm.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        xterm.wait(timeout=30)
        xvfb.terminate()
        xvfb.wait(timeout=30)
        simulator.terminate()
        simulator.wait(timeout=30)
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
        print(f"  {variant}: done", file=sys.stderr)


def main(seconds: float, rounds: int, variants: dict[str, str], start_simulator: Starter) -> int:
    found: dict[str, list[tuple[float, float]]] = {variant: [] for variant in variants}
    order = list(variants)
    for round_ in range(rounds):
        for variant in order[round_ % 2:] + order[:round_ % 2]:
            found[variant].append(launch(variant, variants[variant], seconds, start_simulator))
    print(f"xterm 379 as a VT340 under Xvfb, 160x50, demo, stream view of {NEWS}, {rounds} rounds alternating, "
          f"{seconds:g} s windows; medians; load {os.getloadavg()[0]:.1f}")
    print("| stream view | CPU (share of one core) | peak RSS |")
    print("|---|---|---|")
    for variant, runs in found.items():
        print(f"| {variant} | {statistics.median(cpu for cpu, _ in runs):.1%} | "
              f"{statistics.median(rss for _, rss in runs):.0f} MB |")
    return 0

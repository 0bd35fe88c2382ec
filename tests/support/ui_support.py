"""Test support for the console UI: a real simulator on its own thread, a frozen console clock, a driver.

The simulator runs on a private event loop in a thread, so the same harness serves Pilot tests
(pytest-asyncio's loop) and snapshot tests (`snap_compare` runs the app under its own asyncio.run).
Both clocks are manual: the simulator's ManualClock and the console's FakeClock move only in
`Driver.step`, which then waits until the engine has answered and parked again (no sleeps).
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Self, TypeVar

import pytest
from fake_clock import FakeClock
from pydantic import SecretStr
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input
from wait_support import still

from omeconsole.api.http import Cap, HttpTransport, Method, Reply, Timeouts
from omeconsole.core.config import Settings
from omeconsole.core.session import Connector, Session, connector
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.themes import BUILTIN_THEME_DIR
from simulator.http.server import RunningSimulator, start_simulator
from simulator.world.clock import Clock, ManualClock

TOKEN = "ui-test-token"
SEED = 11
SHOWN_URL = "http://127.0.0.1:8081"
"""The address snapshot tests connect to: the simulator's real port changes every run, the picture must not."""
T = TypeVar("T")


def free_port() -> int:
    """A loopback port nobody listens on right now (for "server down" tests)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ThreadedSimulator:
    """A real simulator on its own event loop and thread; every touch of it goes through `run` or `call`.

    The one harness for tests whose code is synchronous (hypothesis, schemathesis, raw sockets) or runs
    on another loop (Pilot, snapshots). A context manager that stops it on exit. Options go to
    `start_simulator`; the clock is a ManualClock that only `advance` moves unless one is given.
    """

    def __init__(self, scenario: str = "demo", *, edition: str = "enterprise", api_port: int = 0,
                 seed: int = SEED, access_token: str = TOKEN, clock: Clock | None = None,
                 faults: str | None = None, name: str = "simulator") -> None:
        self.clock: Clock = clock if clock is not None else ManualClock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self.running: RunningSimulator = self.run(start_simulator(
            scenario, api_port=api_port, publisher_port=0, access_token=access_token, seed=seed,
            edition=edition, clock=self.clock, faults=faults))  # type: ignore[arg-type]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def api_url(self) -> str:
        return self.running.api_url

    def run(self, coroutine: Awaitable[T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)  # type: ignore[arg-type]
        return future.result(timeout=30)

    def call(self, function: Callable[[], T]) -> T:
        async def inside() -> T:
            return function()

        return self.run(inside())

    def advance(self, seconds: float) -> None:
        """Moves simulated time one tick at a time, so the world's ticker runs for each second."""
        clock = self.clock
        assert isinstance(clock, ManualClock), "only a ManualClock can be moved"
        whole = int(seconds)
        for _ in range(whole):
            self.call(lambda: clock.advance(1.0))
            self.run(asyncio.sleep(0))
        if seconds - whole:
            self.call(lambda: clock.advance(seconds - whole))

    def stop(self) -> None:
        self.run(self.running.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


REQUEST_TIMEOUT_S = 15.0
"""The console's HTTP timeout in UI tests: wall time, the one clock the test cannot hold. The simulator answers
from a thread of the test's own process, which on a machine whose cores are busy can take seconds to be
scheduled; a 2 s timeout then turned into a connection error on screen (`1 err/min`). Below the drivers'
20 s guards, so a request that really hangs still fails the test."""


def make_settings(api_url: str, *, token: str = TOKEN, theme: str = "ome-dark", **extra: Any) -> Settings:
    # A budget that never runs dry: every due node is polled each step, whatever order the UI
    # and the engine happen to interleave in, so the readings on screen are the same every run.
    return Settings(api_url=api_url, token=SecretStr(token), theme=theme, listing_interval=2.0,
                    timeout=REQUEST_TIMEOUT_S, request_budget=500.0, **extra)


class AliasTransport:
    """Real HTTP to `real`, for a client that was given `alias` as the server's address."""

    def __init__(self, alias: str, real: str) -> None:
        self._alias, self._real = alias.rstrip("/"), real.rstrip("/")
        self._wire = HttpTransport()

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        if url.startswith(self._alias):
            url = self._real + url[len(self._alias):]
        return await self._wire.request(method, url, cap=cap, headers=headers, body=body, timeouts=timeouts)

    async def aclose(self) -> None:
        await self._wire.aclose()


def aliased_connector(clock: FakeClock, tmp_path: Path, real_url: str) -> Connector:
    """Sessions that show and record `SHOWN_URL` while their requests go to `real_url`."""
    rng = random.Random(SEED)

    def connect(settings: Settings) -> Session:
        transport = AliasTransport(SHOWN_URL, real_url)
        return connector(clock, rng=rng, audit_path=tmp_path / "audit.jsonl", transport=transport)(settings)

    return connect


def make_app(api_url: str, clock: FakeClock, tmp_path: Path, *, select: str | None = None,
             token: str = TOKEN, theme: str = "ome-dark", fixed_address: bool = False,
             export_dir: Path | None = None, redraw_gap: float = 0.0, **extra: Any) -> ConsoleApp:
    """The real app, its connector over HTTP with the fake clock and a seeded jitter source.

    Redraws follow every report (the default `redraw_gap=0`): the real terminal's merge of reports
    waits on a real-time timer, which would otherwise decide what a frozen-clock screenshot shows
    (a test of that merge passes the terminal's `redraw_gap`).
    `fixed_address`: the app is told `SHOWN_URL` (what the status line shows) and reaches `api_url`.
    """
    if "publisher_url" not in extra:
        # Without the simulator's publisher, playlists would be read from whatever listens on port 3333
        # of this machine: the screen would depend on it. Tests of following pass `publisher_url`.
        extra.setdefault("follow_playlists", False)
        extra.setdefault("thumbnails", False)
    if fixed_address:
        connect = aliased_connector(clock, tmp_path, api_url)
        api_url = SHOWN_URL
    else:
        connect = connector(clock, rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl")
    return ConsoleApp(make_settings(api_url, token=token, theme=theme, **extra), connect, clock,
                      select=NodePath.parse(select) if select else None,
                      theme_dirs=[BUILTIN_THEME_DIR], export_dir=export_dir or tmp_path / "exports",
                      redraw_gap=redraw_gap)


def shown(widget: Widget) -> str:
    """The text a widget shows on screen right now (borders included)."""
    region = Region(0, 0, widget.outer_size.width, widget.outer_size.height)
    return "\n".join(strip.text for strip in widget.render_lines(region))


def status_of(app: ConsoleApp) -> str:
    """The status line of the screen in front."""
    from omeconsole.ui.widgets.status_bar import StatusBar

    return shown(app.screen.query_one(StatusBar))


def tree_row(app: ConsoleApp, path: NodePath) -> str:
    """The dashboard tree's row of `path` as drawn (it must be scrolled into view)."""
    from omeconsole.ui.widgets.node_tree import NodeTree

    tree = app.screen.query_one(NodeTree)
    index = tree.index_of(path)
    assert index is not None, f"{path} is not in the tree"
    line = index - int(tree.scroll_y)
    lines = shown(tree).splitlines()
    assert 0 <= line < len(lines), f"{path} is not on screen"
    return lines[line]


ParkingClock = FakeClock
"""The console's FakeClock, which can be awaited until N sleepers are parked on it (`parked`)."""


class Driver:
    """Moves both clocks and waits until the console has caught up."""

    def __init__(self, pilot: Pilot[Any], clock: ParkingClock, simulator: ThreadedSimulator | None) -> None:
        self.pilot = pilot
        self.clock = clock
        self.simulator = simulator

    @property
    def app(self) -> ConsoleApp:
        app = self.pilot.app
        assert isinstance(app, ConsoleApp)
        return app

    async def settle(self) -> None:
        """Until the engine and the ticker are both parked on the fake clock and the screen is idle."""
        for _ in range(50):
            await asyncio.wait_for(self.clock.parked(2), timeout=20)  # a guard, not a timing assumption
            await still(self.pilot)  # what the screen tells the engine, told
            if await self._playlists_judged():
                continue  # what the reads showed was drawn: the engine may have been woken meanwhile
            if self.clock.sleepers >= 2:
                return
        raise AssertionError("the console never settled: the engine keeps being woken")

    async def _playlists_judged(self) -> bool:
        """Waits for the playlist watch's round under way (its reads are real HTTP, not on the fake clock):
        a row not read yet says so (`ad?`), so what is on screen depends on it. True when it waited."""
        try:
            watch = self.pilot.app.live.ad_board.watch  # type: ignore[attr-defined]
        except (AssertionError, AttributeError):
            return False
        if watch is None or watch.idle:
            return False
        await asyncio.wait_for(watch.until_idle(), timeout=20)  # a guard, not a timing assumption
        await self.pilot.pause()
        return True

    async def step(self, seconds: float = 1.0, times: int = 1) -> None:
        for _ in range(times):
            if self.simulator is not None:
                self.simulator.advance(seconds)
            self.clock.advance(seconds)
            await self.settle()

    async def until(self, condition: Callable[[], bool], guard_s: float = 20.0) -> None:
        """Until `condition` holds (a screen pushed, a message handled): the guard is not a timing."""
        deadline = time.monotonic() + guard_s
        while not condition():
            assert time.monotonic() < deadline, "the console never got there"
            await self.pilot.pause(0.01)

    async def warm_up(self, seconds: int = 6) -> None:
        """Connect, list the server and take a few readings of what is on screen."""
        await self.settle()
        await self.step(1.0, times=seconds)


@pytest.fixture(autouse=True)
def quiet_ui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No cursor blink, no user config or data, a fixed time zone: what a screenshot needs to repeat.

    Autouse in every module that imports it (the UI test modules do).
    """
    monkeypatch.setattr(Input, "cursor_blink", False)
    # A toast's timeout is real time, which a test on a loaded machine could outrun.
    monkeypatch.setattr(ConsoleApp, "NOTIFICATION_TIMEOUT", 3600.0)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "config" / "omeconsole" / "config.toml"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def threaded_sim() -> Iterator[ThreadedSimulator]:
    running = ThreadedSimulator()
    yield running
    running.stop()


@pytest.fixture
def console_clock() -> ParkingClock:
    return ParkingClock()

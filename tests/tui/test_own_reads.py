"""The console never counts itself as an audience.

The simulator counts a playlist reader as an `llhls` connection exactly while its TCP connection is open,
as the real 0.19.0 server does (captures: `stats_stream_series_keepalive_20s.json`). The console's
publisher reads close their connection after each read, and the blocking reloads the ad-break panel holds
open are taken off the viewers it shows (and said, in the detail: "+1 this console").
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fake_clock import FakeClock
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from sim_support import TEST_TOKEN, running_simulator
from ui_support import TOKEN as UI_TOKEN
from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, shown, threaded_sim

from omeconsole.api.client import OmeClient
from omeconsole.api.http import HttpTransport
from omeconsole.api.own_reads import CLOSE_GRACE_S, OwnReads
from omeconsole.api.publisher import PublisherReader
from omeconsole.core.config import Settings
from omeconsole.exporter.service import Exporter
from omeconsole.model.paths import NodePath
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.widgets.totals_panel import TotalsPanel
from simulator.world.clock import ManualClock

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

BACKUP = NodePath("default", "app", "backup")
"""A stream of the demo scenario that nobody watches."""


async def _llhls(client: OmeClient, path: NodePath) -> int:
    stats = await client.stats(path)
    assert stats.connections_out is not None
    return stats.connections_out.get("llhls", 0)


async def test_a_publisher_read_closes_its_connection_so_the_server_does_not_count_it() -> None:
    """Against the simulator's real counting: right after a read the stream has no llhls connection. The same
    read on a keep-alive transport is counted (the test can fail)."""
    manual = ManualClock()
    async with running_simulator(clock=manual) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        manual.advance(20)
        assert await _llhls(client, BACKUP) == 0
        own = OwnReads()
        reader = PublisherReader(sim.publisher_url, "app", "backup", own=own)
        try:
            await reader.chunklist()
            await reader.chunklist()
            assert own.open_now == 0
            assert await _llhls(client, BACKUP) == 0  # closed after each read: never an audience
        finally:
            await reader.aclose()
        kept = PublisherReader(sim.publisher_url, "app", "backup",
                               transport=HttpTransport(follow_redirects=True))  # a keep-alive pool
        try:
            await kept.chunklist()
            assert await _llhls(client, BACKUP) == 1  # what the console used to look like to the server
        finally:
            await kept.aclose()
        assert await _llhls(client, BACKUP) == 0


def test_the_ledger_says_how_many_own_reads_a_reading_may_have_counted() -> None:
    clock = FakeClock()
    own = OwnReads(clock.monotonic)
    a, b, vhost = NodePath("default", "app", "a"), NodePath("default", "live", "b"), NodePath("default")
    before = own.mark()
    first = own.opened("default", "app", "a")
    other = own.opened("default", "live", "b")
    during = own.mark()
    own.closed(first)
    second = own.opened("default", "app", "a")  # back to back: never two of "a" open at once
    after = own.mark()
    assert own.held(before, after, a) == 1
    assert own.held(before, after, b) == 1 and own.held(before, after, NodePath("default", "app", "b")) == 0
    assert own.held(before, after, vhost) == 2  # the virtual host: both streams
    assert own.held(before, after, NodePath("other")) == 0  # another virtual host: none of them
    assert own.held(during, after, a) == 1
    own.closed(second)
    own.closed(other)
    clock.advance(CLOSE_GRACE_S / 2)
    later = own.mark()
    assert own.held(later, own.mark(), a) == 1  # closed a moment ago: the server may not know yet
    clock.advance(CLOSE_GRACE_S)  # on the ledger's clock, not the machine's: no test waits on real time
    assert own.held(own.mark(), own.mark(), a) == 0


async def test_a_stream_nobody_watches_shows_no_viewer_while_its_ad_break_panel_reads_for_60_s(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(BACKUP),
                   publisher_url=threaded_sim.running.publisher_url)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        engine = app.session.engine
        assert engine.node(BACKUP).viewers == 0
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AdBreakScreen)
        for _ in range(60):
            await driver.step(1.0)
            latest = engine.node(BACKUP).latest
            assert latest is not None and latest.viewers == 0, latest
            server = latest.stats.connections_out or {}
            assert server.get("llhls", 0) <= latest.own_viewers  # what the server counted was the console
        assert app.session.client.own_reads.reads_done >= 60  # the panel read the playlist all along
        await pilot.press("escape")
        await driver.step(1.0)
        header = shown(app.screen.query_one("#detail-header"))
        assert " 0 viewers" in header, header



async def test_a_stream_only_the_console_follows_shows_no_viewer_no_bytes_out_and_no_peak(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The selected stream's playlist is followed once a second for a minute: the server counts every read
    (its bytes out grow, its peak of connections is 1); the console shows none of it — on screen, and in an
    exporter and a `stats` command run beside it (other processes of the console: they learn of the TUI's
    reads from the journal the console's processes share beside the audit log)."""
    monkeypatch.setenv("OMECONSOLE_AUDIT_LOG", str(tmp_path / "audit.jsonl"))  # where the TUI's log is
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(BACKUP),
                   publisher_url=threaded_sim.running.publisher_url)
    exporter_clock = FakeClock()
    settings = Settings(api_url=threaded_sim.api_url, token=SecretStr(UI_TOKEN), request_budget=500.0)
    exporter = Exporter(settings, exporter_clock, rng=random.Random(1), environ={})
    async with app.run_test(size=(160, 48)) as pilot, exporter:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        engine = app.session.engine
        for second in range(60):
            await driver.step(1.0)
            exporter_clock.advance(1.0)
            await exporter.step()
            latest = engine.node(BACKUP).latest
            assert latest is not None and latest.viewers == 0, latest
            assert latest.stats.total_bytes_out == 0 and latest.stats.max_total_connections == 0, (second, latest)
            assert latest.rate_out_bps in (None, 0.0), (second, latest)
        ledger = app.session.client.own_reads
        assert ledger.reads_done >= 55  # the follower read the playlist all along
        async with OmeClient(threaded_sim.api_url, UI_TOKEN) as client:
            server = await client.stats(BACKUP)
        # Every byte the server counted was the console's (the ledger counts the wire: the simulator's HTTP
        # layer adds a `connection: close` header its count leaves out, 19 bytes a read).
        assert 0 < server.total_bytes_out <= ledger.bytes_read(BACKUP) <= server.total_bytes_out * 1.05
        assert server.max_total_connections == 1 and latest.own_peak == 1
        header = shown(app.screen.query_one("#detail-header"))
        assert " 0 viewers" in header and "out 0 b/s" in header, header
        totals = shown(app.screen.query_one(TotalsPanel))
        assert re.search(r"bytes out\s+0 B", totals) and re.search(r"peak connections\s+0 at", totals), totals
        host, port = await exporter.start_http("127.0.0.1", 0)
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=10) as http:
            exposition = (await http.get("/metrics")).text
        environment = {**os.environ, "OME_API_URL": threaded_sim.api_url, "OME_ACCESS_TOKEN": UI_TOKEN}
        command = subprocess.run([str(Path(sys.executable).with_name("omeconsole")), "stats", str(BACKUP)],
                                 capture_output=True, text=True, timeout=60, env=environment)
    metrics = {(family.name, sample.labels.get("stream"), sample.labels.get("protocol")): sample.value
               for family in text_string_to_metric_families(exposition) for sample in family.samples}
    assert metrics[("ome_bytes_out", "backup", None)] == 0
    assert metrics[("ome_connections_max", "backup", None)] == 0
    assert metrics[("ome_connections", "backup", "llhls")] == 0
    assert command.returncode == 0, command.stderr
    assert re.search(r"bytes in / out    \S+ \S+ / 0 B", command.stdout), command.stdout
    assert "viewers           0 now" in command.stdout and "peak 0 at" in command.stdout, command.stdout


async def test_a_real_viewer_beside_the_console_is_counted_exactly_once(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    """A player (a keep-alive HTTP client reading the playlist every second) beside the console, which
    follows the same playlist: 1 viewer at every reading, and the bytes out the console shows are the
    player's (the console's own are taken off)."""
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(BACKUP),
                   publisher_url=threaded_sim.running.publisher_url)
    player = _Player(threaded_sim.running.publisher_url)
    async with app.run_test(size=(160, 48)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(4)
        engine = app.session.engine
        try:
            await driver.step(1.0)
            before = engine.node(BACKUP).latest
            assert before is not None and before.stats.total_bytes_out is not None
            played = 0
            for _ in range(30):
                played += await player.read("/app/backup/llhls.m3u8")
                await driver.step(1.0)
                latest = engine.node(BACKUP).latest
                assert latest is not None and latest.viewers == 1, latest
                assert latest.stats.connections_out is not None and latest.stats.connections_out["llhls"] == 1
            assert app.session.client.own_reads.reads_done >= 30  # the console read all along
            assert latest.own_bytes_out > 0  # and the server counted it: taken off
            shown_out = latest.stats.total_bytes_out - before.stats.total_bytes_out
            assert played * 0.95 <= shown_out <= played, (shown_out, played)
            assert latest.rate_out_bps is not None and latest.rate_out_bps > 0
        finally:
            await player.close()


class _Player:
    """A player's one keep-alive connection, held open whatever the time between its reads (a pooled client
    would drop it after its idle expiry in real seconds, and the test would then depend on this machine).
    It connects at its first read (the simulator closes a connection that sends nothing for 10 s)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.address = (parts.hostname, parts.port)
        self.connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def read(self, path: str) -> int:
        """One GET on the connection; the bytes of its reply on the wire."""
        if self.connection is None:
            self.connection = await asyncio.open_connection(*self.address)
        reader, writer = self.connection
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        return len(head) + len(await reader.readexactly(length))

    async def close(self) -> None:
        if self.connection is not None:
            self.connection[1].close()
            await self.connection[1].wait_closed()

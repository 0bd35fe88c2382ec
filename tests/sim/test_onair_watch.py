"""The playlist watch against a publisher that serves what no good server would: a playlist that cannot be
read, is not a playlist, is huge, never comes, or carries hostile markers. Each stream's reason is kept
(and shown in its header), no break is made up, a real one is not hidden, and a round always ends.

A real HTTP server on loopback (tests/support/loopback_server.py) plays the publisher, one behaviour per stream;
the engine's side (what is on screen, the interval, the budget) is the watch's own small input.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fake_clock import FakeClock
from loopback_server import Answer, Behaviour, LoopbackServer, Request, Stall

from omeconsole.api.client import OmeClient
from omeconsole.api.http import HttpTransport
from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.adops.playlist_watch import PlaylistWatch
from omeconsole.core.context import ServerContext
from omeconsole.core.polling.budget import TokenBucket
from omeconsole.model.paths import NodePath

NOW = datetime(2026, 3, 1, 12, 1, 15, tzinfo=UTC)
HEX = "0xFC302500000000000000FFF01405000000017FEFFE0029328000000000000000"


def _stream(name: str) -> NodePath:
    return NodePath("default", "app", name)


def _chunklist(markers: list[str]) -> bytes:
    start = NOW - timedelta(seconds=12)
    lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:10"]
    for index in range(3):
        if index == 1:
            lines += markers
        lines += [f"#EXT-X-PROGRAM-DATE-TIME:{(start + timedelta(seconds=6 * index)).isoformat()}",
                  "#EXTINF:6.0,", f"seg_{10 + index}.m4s"]
    return ("\n".join(lines) + "\n").encode()


SPLICE = (NOW - timedelta(seconds=6)).isoformat(timespec="milliseconds")
REPLIES: dict[str, Behaviour] = {
    "onair": Answer(body=_chunklist([f'#EXT-X-DATERANGE:ID="7",START-DATE="{SPLICE}",PLANNED-DURATION=30.000,'
                                     f"SCTE35-OUT={HEX}", "#EXT-X-CUE-OUT:DURATION=30.000"])),
    "missing": Answer(status=404),
    "notaplaylist": Answer(body=b"<html>[@click=app.quit]\x1b]52;c;aGk=\x07</html>"),
    "huge": Answer(body=b"#EXTM3U\n" + b"#EXT-X-CUE-OUT:DURATION=30\n" * 64, repeat=200_000),
    "hostile": Answer(body=_chunklist(['#EXT-X-DATERANGE:ID="\x1b[2J",START-DATE="9999-01-01T00:00:00Z",'
                                       "SCTE35-OUT=0xFC", '#EXT-X-DATERANGE:ID="x",SCTE35-OUT=[bold]'])),
    "stalled": Stall(),
}


async def _publisher(request: Request) -> Behaviour:
    name = request.path.split("/")[2]
    return REPLIES[name]


@dataclass
class Screen:
    """What the polling engine tells the watch: the rows on screen, the interval, the budget."""

    clock: FakeClock
    selected: NodePath | None = None
    on_screen: tuple[NodePath, ...] = ()
    interval: float = 1.0
    paused: bool = False
    budget: TokenBucket = field(init=False)

    def __post_init__(self) -> None:
        self.budget = TokenBucket(self.clock, 500.0)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[tuple[PlaylistWatch, AdOps, Screen, list[NodePath]]]:
    server = LoopbackServer(_publisher).start()
    clock = FakeClock(wall_start=NOW)
    client = OmeClient("http://127.0.0.1:9", "token")
    adops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock,
                  ServerContext(api_url=client.api_url, profile=None, read_only=True), publisher_url=server.url)
    known: dict[NodePath, object] = {}

    def controller_of(path: NodePath):  # type: ignore[no-untyped-def]
        known[path] = adops.stream(path)
        return known[path]

    changed: list[NodePath] = []
    screen = Screen(clock)
    transport = HttpTransport(fresh_reads=True)
    watch = PlaylistWatch(screen, server.url, controller_of, known.get,  # type: ignore[arg-type]
                          lambda: (), changed.append, clock, transport=transport)
    try:
        yield watch, adops, screen, changed
    finally:
        await transport.aclose()
        await adops.aclose()
        await client.aclose()
        server.stop()


async def test_bad_playlists_each_say_why_and_make_no_break_while_the_real_one_shows(rig) -> None:  # type: ignore[no-untyped-def]
    watch, adops, screen, changed = rig
    screen.selected = _stream("onair")
    screen.on_screen = tuple(_stream(name) for name in REPLIES)
    await asyncio.wait_for(watch.round(), timeout=30)  # the stalled one gives up at its deadline
    assert watch.following == frozenset(screen.on_screen)
    on_air = adops.stream(_stream("onair")).view()
    assert on_air.state is BreakState.ON_AIR and on_air.origin == "playlist" and on_air.planned_s == 30
    problems = {name: watch.problem(_stream(name)) for name in REPLIES}
    assert problems["onair"] is None and problems["hostile"] is None
    assert "not found (404)" in str(problems["missing"])
    assert "not an HLS playlist" in str(problems["notaplaylist"])
    assert "max_playlist_bytes" in str(problems["huge"]) or "larger" in str(problems["huge"]), problems["huge"]
    assert "did not answer" in str(problems["stalled"]) or "within" in str(problems["stalled"]), problems["stalled"]
    hostile = watch.seen(_stream("hostile"))
    assert hostile is not None and hostile.current is None and hostile.ignored_count == 2
    # A controller (and a badge) only where there is a break.
    for name in ("missing", "notaplaylist", "huge", "hostile", "stalled"):
        assert adops.stream(_stream(name)).view().state is BreakState.IDLE
    assert _stream("onair") in changed and _stream("missing") in changed


async def test_an_unreadable_playlist_never_ends_a_break_seen_before(rig) -> None:  # type: ignore[no-untyped-def]
    watch, adops, screen, _ = rig
    screen.selected = _stream("onair")
    await watch.round()
    assert adops.stream(_stream("onair")).view().state is BreakState.ON_AIR
    REPLIES["onair"], kept = Answer(status=404), REPLIES["onair"]
    try:
        for _ in range(5):
            screen.clock.advance(1.0)
            await watch.round()
            view = adops.stream(_stream("onair")).view()
            assert view.state is BreakState.ON_AIR and view.remaining_s is not None
        assert "404" in str(watch.problem(_stream("onair")))
    finally:
        REPLIES["onair"] = kept


async def test_nothing_is_read_while_polling_is_paused_or_once_streams_left_the_screen(rig) -> None:  # type: ignore[no-untyped-def]
    watch, _, screen, _ = rig
    screen.on_screen = (_stream("onair"), _stream("missing"))
    await watch.round()
    assert watch.reads[_stream("missing")] == 1
    screen.paused = True
    await watch.round()
    assert watch.reads[_stream("missing")] == 1
    screen.paused = False
    screen.on_screen = (_stream("onair"),)
    await watch.round()
    assert watch.reads[_stream("missing")] == 1 and watch.problem(_stream("missing")) is None
    assert watch.reads[_stream("onair")] == 3 - 1

"""SVG snapshots of every ad-ops screen and dialog (cue-out, cue-in, ID3 metadata and their confirmations) at
80x24, 120x40, 160x48 and 200x60 in the dark and the light theme.

One simulator per module (per test worker), warmed and then frozen: at its "now" the stream `news`
is ten seconds into a 60 s break and `sports` has none. Nothing here sends: each snapshot is a fresh
console on a FakeClock set to the simulator's instant, which reads the frozen playlist, so every
picture is the same whichever tests ran before it. The servers are called `ome.example:8081` and
`publisher.example:3333` (resolved to the real ports), the audit log `audit.jsonl`.
Regenerate with `pytest tests/tui/test_snapshots_adops.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from adops_ui_support import AdOpsHost, Rig, named_rig
from fake_clock import FakeClock
from pydantic import SecretStr
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Select
from ui_support import TOKEN, ThreadedSimulator, quiet_ui

from omeconsole.api.client import OmeClient
from omeconsole.core.config import Settings
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.screens.ad_events import AdEventsScreen

__all__ = ["quiet_ui"]

ON_AIR = NodePath("default", "app", "news")
IDLE = NodePath("default", "app", "sports")
SIZES = {"80x24": (80, 24), "120x40": (120, 40), "160x48": (160, 48), "200x60": (200, 60)}
PICTURES = [(theme, size) for theme in ("ome-dark", "ome-light") for size in SIZES]
SnapCompare = Callable[..., bool]
Prepare = Callable[[Pilot[Any], Rig, FakeClock], Awaitable[None]]


@dataclass(frozen=True)
class FrozenWorld:
    simulator: ThreadedSimulator
    wall: datetime


@pytest.fixture(scope="module")
def world() -> Iterator[FrozenWorld]:
    with ThreadedSimulator() as simulator:
        simulator.advance(20)

        async def cue_out() -> None:
            async with OmeClient(simulator.api_url, TOKEN) as client:
                await client.cue_out(ON_AIR, 60_000)

        simulator.run(cue_out())
        simulator.advance(10)
        now_ms = simulator.call(lambda: simulator.clock.now_ms())
        yield FrozenWorld(simulator, datetime.fromtimestamp(now_ms / 1000, UTC))
        # The publisher holds blocked playlist reloads until their deadline, even after the client
        # left; let it pass so the simulator can stop.
        simulator.advance(20)


def _audit_line(kind: str, send_id: str, server: str, profile: str | None, **more: Any) -> str:
    key = "send_id" if kind == "confirmation" else "id"
    record = {"type": kind, key: send_id, "time": "2026-01-01T12:00:00.000+00:00", **more}
    if kind == "intent":
        record |= {"server": server, "profile": profile, "vhost": "default", "app": "app", "stream": "news",
                   "path": "/v1/vhosts/default/apps/app/streams/news:sendEvent"}
    return json.dumps(record)


AUDIT = "\n".join([
    _audit_line("intent", "e1", "ome-b.example:8081", "backup", action="cue-out",
                body={"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}),
    _audit_line("outcome", "e1", "", None, outcome="accepted", status=200, message="OK", items=[]),
    _audit_line("confirmation", "e1", "", None, seen_after_s=1.4,
                detail="cue-out: seen in playlist after 1.4 s"),
    _audit_line("intent", "e2", "ome.example:8081", "prod", action="cue-out",
                body={"eventFormat": "cue", "events": [{"cueType": "out", "duration": 60000}]}),
    _audit_line("intent", "e3", "ome.example:8081", "prod", action="id3",
                body={"eventFormat": "id3v2", "eventType": "event",
                      "events": [{"frameType": "TXXX", "info": "adId", "data": "spot-7"}]}),
    _audit_line("outcome", "e3", "", None, outcome="rejected", status=400, message="[HTTP] Bad request", items=[]),
    "not json at all",
]) + "\n"


async def _until(pilot: Pilot[Any], shown: type[Screen[Any]]) -> None:
    """Until `shown` is in front (each pause lets the app handle what is queued; nothing waits on time)."""
    for _ in range(200):
        if isinstance(pilot.app.screen, shown):
            break
        await pilot.pause()
    assert isinstance(pilot.app.screen, shown), pilot.app.screen


async def _read(rig: Rig, path: NodePath) -> None:
    assert await rig.adops.stream(path).follower.read_once()


async def break_idle(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await _read(rig, IDLE)


async def break_on_air(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await _read(rig, ON_AIR)


async def break_ended(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await _read(rig, ON_AIR)
    clock.advance(60)  # the screen's tick on the console clock: the break ran out


async def cue_out_dialog(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await pilot.press("o")
    await _until(pilot, CueOutDialog)


async def cue_out_confirm(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await pilot.press("o")
    await _until(pilot, CueOutDialog)
    await pilot.press("enter")
    await _until(pilot, ConfirmSend)


async def cue_in_warning(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await _read(rig, IDLE)  # the flow's baseline is in: it asks at once
    await pilot.press("i")
    await _until(pilot, ConfirmSend)


async def id3_dialog(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await pilot.press("m")
    await _until(pilot, Id3Dialog)
    dialog = pilot.app.screen
    dialog.query_one("#info-0", Input).value = "adId"  # as typed, without a key press per character
    dialog.query_one("#data-0", Input).value = "spot-7"
    await pilot.press("ctrl+n")  # a second frame row, focused


async def cue_in_confirm(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await _read(rig, ON_AIR)  # a break on air: "End the ad break now?", no warning
    await pilot.press("i")
    await _until(pilot, ConfirmSend)


async def id3_confirm(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await pilot.press("m")
    await _until(pilot, Id3Dialog)
    dialog = pilot.app.screen
    dialog.query_one("#info-0", Input).value = "adId"
    dialog.query_one("#data-0", Input).value = "spot-7"
    await pilot.press("ctrl+s")
    await _until(pilot, ConfirmSend)


async def events(pilot: Pilot[Any], rig: Rig, clock: FakeClock) -> None:
    await pilot.press("E")
    await _until(pilot, AdEventsScreen)
    pilot.app.screen.query_one("#server-filter", Select).value = Select.NULL  # both servers


SCREENS: dict[str, tuple[Prepare, NodePath, bool]] = {
    "break-idle": (break_idle, IDLE, True),
    "break-on-air": (break_on_air, ON_AIR, True),
    "break-ended": (break_ended, ON_AIR, True),
    "cue-out-dialog": (cue_out_dialog, IDLE, False),
    "cue-out-confirm": (cue_out_confirm, IDLE, False),
    "cue-in-warning": (cue_in_warning, IDLE, False),
    "cue-in-confirm": (cue_in_confirm, ON_AIR, False),
    "id3-dialog": (id3_dialog, IDLE, False),
    "id3-confirm": (id3_confirm, IDLE, False),
    "events": (events, IDLE, False),
}
"""name: (what to do before the picture, the stream, whether the ad-break screen is the first screen)."""


@pytest.mark.parametrize(("theme", "size"), PICTURES)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_ad_ops_screens(snap_compare: SnapCompare, world: FrozenWorld, tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch, screen: str, theme: str, size: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("audit.jsonl").write_text(AUDIT)
    simulator = world.simulator
    clock = FakeClock(wall_start=world.wall)
    settings = Settings(api_url="http://ome.example:8081", token=SecretStr(TOKEN))
    rig = named_rig(simulator.api_url, simulator.running.publisher_url, TOKEN, clock, Path("audit.jsonl"), settings)
    prepare, path, on_break_screen = SCREENS[screen]
    app = AdOpsHost(rig, path, theme=theme, first=(lambda r: r.ad_break(path)) if on_break_screen else None)

    async def run_before(pilot: Pilot[Any]) -> None:
        await prepare(pilot, rig, clock)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)

"""The ad-ops keys against the real simulator, on a screen shaped as the console's: dialogs, the
confirmation (what will be sent, its warnings), the panel through a whole break, the events screen.

The simulator runs in-process on a ManualClock that is also the console's clock (`SharedClock`), so
"seen after N s" and the countdown are the same every run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from adops_support import SharedClock
from adops_ui_support import AdOpsHost, Rig, StreamScreen, sends_done, text_of, toasts
from pydantic import SecretStr
from sim_support import TEST_TOKEN, running_simulator
from textual.widgets import Button, DataTable, Input, Select, Static
from wait_support import palette_searched

from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.config import ConfirmSettings, Id3Template, Settings
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.screens.ad_break import AdBreakScreen
from omeconsole.ui.screens.ad_events import AdEventDetail, AdEventsScreen
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

STREAM = NodePath("default", "app", "stream")
CUE_OUT_60 = {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 60000}]}


@pytest.fixture
async def sim() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        manual.advance(20)
        yield simulator, SharedClock(manual)


def _host(simulator: RunningSimulator, clock: SharedClock, audit: Path, **overrides: Any) -> AdOpsHost:
    settings = Settings(api_url=simulator.api_url, token=SecretStr(TEST_TOKEN),
                        publisher_url=simulator.publisher_url, **overrides)
    return AdOpsHost(Rig.of(connector(clock, audit_path=audit)(settings)), STREAM)


def _bodies(simulator: RunningSimulator) -> list[object]:
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None
    return [event.body for event in stream.events.events]


def _text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


async def test_cue_out_key_dialog_confirm_panel_through_a_whole_break(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        controller = app.rig.adops.stream(STREAM)
        await pilot.press("o")
        dialog = app.screen
        assert isinstance(dialog, CueOutDialog)
        assert dialog.query_one("#seconds", Input).value == "30"  # the config's default
        assert _text(dialog, "#target").startswith("to default/app/stream on 127.0.0.1:")
        await pilot.click("#preset-60")
        await pilot.press("enter")
        confirm = app.screen
        assert isinstance(confirm, ConfirmSend)
        assert _text(confirm, "#question") == "Start a 60 s ad break?"
        request = _text(confirm, "#plan")
        assert request.startswith("POST /v1/vhosts/default/apps/app/streams/stream:sendEvent on 127.0.0.1:")
        assert request.endswith('\n{"eventFormat":"cue","events":[{"cueType":"out","duration":60000}]}')
        await pilot.press("y")
        await sends_done(app)
        await pilot.pause()
        assert _bodies(simulator) == [CUE_OUT_60]
        assert [t for t in toasts(app) if "cue-out" in t] == [t for t in toasts(app) if "cue-out accepted" in t]
        assert len(toasts(app)) == 1, "the outcome is said once"
        panel = app.screen
        assert isinstance(panel, AdBreakScreen)  # opened by the accepted cue-out
        assert "SCHEDULED" in _text(panel, "#adbreak-state")
        for _ in range(6):
            clock.advance(0.5)
            await controller.follower.read_once()
        await pilot.pause()
        state = _text(panel, "#adbreak-state")
        assert "ON AIR" in state and "AD 0:" in state and "left of 60 s" in state, state
        assert "cue-out: seen in playlist after" in state
        assert "#EXT-X-CUE-OUT:DURATION=60.000" in _text(panel, "#adbreak-tail")
        clock.advance(57)  # sent at 20 s; the splice is the next keyframe, 21 s: one second of the break left
        await controller.follower.read_once()
        await pilot.pause()
        assert "AD 0:01 left of 60 s" in _text(panel, "#adbreak-state")
        clock.advance(1)
        await pilot.pause()  # the screen's own tick on the console clock, no read needed
        assert "ENDED" in _text(panel, "#adbreak-state")
        assert controller.view().state is BreakState.ENDED
        await pilot.press("escape", "E")
        events = app.screen
        assert isinstance(events, AdEventsScreen)
        table = events.query_one(DataTable)
        assert table.row_count == 1
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert cells[1].startswith("127.0.0.1:") and cells[4] == "cue-out" and cells[5] == "200"
        assert cells[7].startswith("seen after")
        await pilot.press("enter")  # the full record: the exact body and the confirmation
        assert isinstance(app.screen, AdEventDetail)
        detail = _text(app.screen, "#event-detail")
        assert '"duration": 60000' in detail and "seen in playlist after" in detail
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["intent", "outcome", "confirmation"]
    assert lines[0]["body"] == CUE_OUT_60


async def test_id3_dialog_frames_come_back_out_of_the_media(sim, tmp_path: Path) -> None:
    """Two quick clicks on "+ frame" give two more rows (the button does not move as rows appear)."""
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl", confirm=ConfirmSettings(id3=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        controller = app.rig.adops.stream(STREAM)
        await pilot.press("m")
        dialog = app.screen
        assert isinstance(dialog, Id3Dialog)
        assert dialog.focused is dialog.query_one("#type-0", Input), "the dialog opens in the frame id"
        assert await pilot.click("#add-frame")
        assert await pilot.click("#add-frame")
        assert [dialog.query_one(f"#row-{i}").display for i in range(4)] == [True, True, True, False]
        await pilot.click("#info-0")
        await pilot.press(*"adId", "tab", *"spot-7")
        await pilot.click("#type-1")
        await pilot.press(*"TIT2", "tab", "tab", *"Song title")
        await pilot.click("#type-2")
        await pilot.press(*"PRIV", "tab", *"com.example", "tab", *"private-bytes")
        await pilot.press("enter")  # confirmation is off for id3 in this config and nothing is empty: sent
        await sends_done(app)
        sent = [{"frameType": "TXXX", "info": "adId", "data": "spot-7"},
                {"frameType": "TIT2", "data": "Song title"},
                {"frameType": "PRIV", "info": "com.example", "data": "private-bytes"}]
        assert _bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "event", "events": sent}]
        for _ in range(4):
            clock.advance(0.5)
            await controller.follower.read_once()
        frames = controller.last_id3
        assert frames is not None
        assert {(f.frame_type, f.info, f.data) for f in frames} == {
            ("TXXX", "adId", "spot-7"), ("TIT2", None, "Song title"), ("PRIV", "com.example", "private-bytes")}


async def test_enter_on_an_empty_id3_frame_never_sends_it_silently(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl", confirm=ConfirmSettings(id3=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("m", "tab", *"adId", "enter")  # TXXX adId with no value
        confirm = app.screen
        assert isinstance(confirm, ConfirmSend), "asked although id3 confirmation is off"
        assert "⚠ frame 1 (TXXX) has no value" in _text(confirm, "#warnings")
        assert confirm.focused is confirm.query_one("#no", Button)
        await pilot.press("enter")  # on Cancel
        await sends_done(app)
        assert isinstance(app.screen, StreamScreen) and _bodies(simulator) == []
        await pilot.press("m", "tab", *"adId", "enter", "y")
        assert "y again sends" in _text(app.screen, "#confirm-hint")
        assert _bodies(simulator) == []
        await pilot.press("y")  # confirmed twice: sent as it is
        await sends_done(app)
    assert _bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "event",
                                   "events": [{"frameType": "TXXX", "info": "adId", "data": ""}]}]


async def test_a_bad_frame_id_is_said_in_the_dialog_and_nothing_leaves(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("m", *"ABCD", "tab", "tab", *"value", "enter")
        assert isinstance(app.screen, Id3Dialog)
        assert "ABCD is not a frame id servers take" in _text(app.screen, "#id3-error")
        await pilot.press("escape")
        await sends_done(app)
    assert _bodies(simulator) == []


async def test_read_only_is_said_in_the_dialogs_and_nothing_is_sent(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl", read_only=True)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        assert _text(app.screen, "#banner").startswith(" READ-ONLY  read-only mode: nothing is sent")
        await pilot.press("enter")
        await sends_done(app)
        await pilot.press("m")
        assert isinstance(app.screen, Id3Dialog)
        assert "READ-ONLY" in _text(app.screen, "#banner")
        await pilot.press("escape", "i")
        await sends_done(app)
        await pilot.pause()
        assert isinstance(app.screen, StreamScreen)
        said = [t for t in toasts(app) if "read-only mode: nothing is sent" in t]
        assert len(said) == 2
        assert any(t.startswith("cue-out") for t in said) and any(t.startswith("cue-in") for t in said)
        await pilot.press("a")
        assert "READ-ONLY" in _text(app.screen, "#adbreak-context")
    assert _bodies(simulator) == []
    assert not (tmp_path / "audit.jsonl").exists()


async def test_cue_in_with_no_break_on_air_warns_and_asks_twice(sim, tmp_path: Path) -> None:
    """Confirmation is off for cue-in, but the plan has a warning: it is shown, and Enter cancels."""
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl", confirm=ConfirmSettings(cue_in=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("i")  # the flow reads the playlist first: no break on air
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmSend)
        assert "⚠ no ad break is on air on this stream" in _text(confirm, "#warnings")
        assert _text(confirm, "#plan").endswith('\n{"eventFormat":"cue","events":[{"cueType":"in"}]}')
        await pilot.press("enter")
        await sends_done(app)
        assert isinstance(app.screen, StreamScreen) and _bodies(simulator) == []
        await pilot.press("i")
        await pilot.pause()
        await pilot.press("y", "y")
        await sends_done(app)
    assert _bodies(simulator) == [{"eventFormat": "cue", "events": [{"cueType": "in"}]}]


async def test_a_second_press_while_the_first_is_in_flight_says_so(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl", confirm=ConfirmSettings(cue_in=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.rig.adops.stream(STREAM).ad_break.try_begin("cue-out")  # a send that has not been answered yet
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        assert "cue-out is still being sent" in _text(app.screen, "#banner")
        await pilot.press("enter", "i")
        await sends_done(app)
        await pilot.pause()
        assert len([t for t in toasts(app) if "cue-out is still being sent" in t]) == 2
        assert isinstance(app.screen, StreamScreen)
    assert _bodies(simulator) == []


async def test_palette_runs_what_the_keys_run_for_the_selected_stream(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = _host(simulator, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await palette_searched(pilot, *"cue-out (cue_out)")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CueOutDialog)
        await pilot.press("escape")
        await palette_searched(pilot, *"events (ad_events)")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AdEventsScreen)


async def test_id3_template_from_the_config_fills_the_dialog(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    template = Id3Template(name="now playing", event_type="audio", frames=[
        {"frameType": "TIT2", "data": "Track"},
        {"frameType": "TXXX", "info": "artist", "data": "Band"}])  # type: ignore[list-item]
    app = _host(simulator, clock, tmp_path / "audit.jsonl", id3_templates=[template])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("m")
        dialog = app.screen
        assert isinstance(dialog, Id3Dialog)
        dialog.query_one("#template", Select).value = "now playing"
        await pilot.pause()
        assert [dialog.query_one(f"#type-{i}", Input).value for i in range(2)] == ["TIT2", "TXXX"]
        assert dialog.query_one("#info-1", Input).value == "artist"
        assert dialog.query_one("#event-type", Select).value == "audio"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmSend)
        assert _text(app.screen, "#plan").endswith(
            '{"eventFormat":"id3v2","eventType":"audio","events":[{"frameType":"TIT2","data":"Track"},'
            '{"frameType":"TXXX","info":"artist","data":"Band"}]}]')
        await pilot.press("y")
        await sends_done(app)
        assert isinstance(app.screen, StreamScreen)
    assert _bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "audio", "events": [
        {"frameType": "TIT2", "data": "Track"}, {"frameType": "TXXX", "info": "artist", "data": "Band"}]}]


def _intent(send_id: str, server: str, profile: str | None, *, outcome: bool = True) -> str:
    lines = [json.dumps({"type": "intent", "id": send_id, "time": "2026-01-01T12:00:00.000+00:00", "server": server,
                         "profile": profile, "vhost": "default", "app": "app", "stream": "stream",
                         "action": "cue-out", "path": "/x", "body": {"eventFormat": "cue"}})]
    if outcome:
        lines.append(json.dumps({"type": "outcome", "id": send_id, "time": "2026-01-01T12:00:00.100+00:00",
                                 "outcome": "accepted", "status": 200, "message": "OK", "items": []}))
    return "\n".join(lines) + "\n"


async def test_the_events_screen_shows_this_server_first_and_a_send_killed_in_flight(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    audit = tmp_path / "audit.jsonl"
    app = _host(simulator, clock, audit)
    ours = app.rig.context.host
    audit.write_text(_intent("a1", "ome-b.example:8081", "backup") + _intent("a2", ours, None, outcome=False)
                     + "not json at all\n" + _intent("a3", ours, None))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("E")
        events = app.screen
        assert isinstance(events, AdEventsScreen)
        table = events.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [(r[1], r[5], r[6]) for r in rows] == [(ours, "200", "OK"),
                                                      (ours, "unknown", "outcome unknown — check the playlist")]
        summary = _text(events, "#events-summary")
        assert "2 of 3 send(s) shown" in summary and "1 outcome unknown — check the playlist" in summary
        assert "1 unreadable line(s) skipped" in summary
        events.query_one("#server-filter", Select).value = Select.NULL  # every server
        await pilot.pause()
        assert table.row_count == 3 and str(table.get_row_at(2)[1]) == "ome-b.example:8081"
        events.query_one("#profile-filter", Select).value = ("backup",)
        await pilot.pause()
        assert table.row_count == 1 and str(table.get_row_at(0)[2]) == "backup"


async def test_the_events_screen_reads_sends_made_elsewhere(sim, tmp_path: Path) -> None:
    """A send from the command line in another terminal appears without pressing r."""
    simulator, clock = sim
    audit = tmp_path / "audit.jsonl"
    app = _host(simulator, clock, audit)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("E")
        table = app.screen.query_one(DataTable)
        assert table.row_count == 0
        audit.write_text(_intent("cli", app.rig.context.host, None))
        clock.advance(2)
        await pilot.pause()
        assert table.row_count == 1 and text_of(table)

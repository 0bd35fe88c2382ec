"""The keys against the real simulator, in a small host app: dialogs, confirmation, panel, events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from adops_support import SharedClock
from conftest import TEST_TOKEN, running_simulator
from pydantic import SecretStr
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Select, Static

from omeconsole.core.adops.ad_break import BreakState
from omeconsole.core.config import ConfirmSettings, Id3Template, Settings
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops import ADOPS_BINDINGS, AdOpsActions, AdOpsCommands
from omeconsole.ui.adops.break_screen import AdBreakScreen
from omeconsole.ui.adops.dialogs import ConfirmSend, CueOutDialog, Id3Dialog
from omeconsole.ui.adops.events_screen import AdEventDetail, AdEventsScreen
from omeconsole.ui.adops.panel import AdBreakPanel
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

STREAM = NodePath("default", "app", "stream")


class StreamScreen(Screen[None]):
    """Stands in for the dashboard: a stream is selected."""

    selected = STREAM

    def compose(self) -> ComposeResult:
        yield Static("dashboard")
        yield Footer()


class Host(AdOpsActions, App[None]):
    BINDINGS = ADOPS_BINDINGS
    COMMANDS = App.COMMANDS | {AdOpsCommands}

    def __init__(self, settings: Settings, clock: SharedClock, audit_path: Path, read_only: bool = False) -> None:
        super().__init__()
        settings = settings.model_copy(update={"read_only": read_only})
        self.session = connector(clock, audit_path=audit_path)(settings)

    def on_mount(self) -> None:
        self.adops_attach(self.session)
        self.push_screen(StreamScreen())

    async def on_unmount(self) -> None:
        await self.session.aclose()


@pytest.fixture
async def sim() -> AsyncIterator[tuple[RunningSimulator, SharedClock]]:
    manual = ManualClock()
    async with running_simulator(clock=manual) as simulator:
        manual.advance(20)
        yield simulator, SharedClock(manual)


def _settings(simulator: RunningSimulator, **overrides: object) -> Settings:
    return Settings(api_url=simulator.api_url, token=SecretStr(TEST_TOKEN), publisher_url=simulator.publisher_url,
                    **overrides)  # type: ignore[arg-type]


def _bodies(simulator: RunningSimulator) -> list[object]:
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None
    return [event.body for event in stream.events.events]


def _text(widget: Static) -> str:
    return str(widget.content)


async def test_cue_out_key_dialog_confirm_panel_through_a_whole_break(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = Host(_settings(simulator), clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        watcher = app.adops().stream(STREAM).follower
        assert await watcher.read_once()
        await pilot.press("o")
        assert isinstance(app.screen, CueOutDialog)
        assert app.screen.query_one("#seconds", Input).value == "30"  # the config's default
        await pilot.click("#preset-60")
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmSend)
        assert "60 s ad break on default/app/stream" in str(app.screen.query_one("#question").content)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _bodies(simulator) == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 60000}]}]
        assert isinstance(app.screen, AdBreakScreen)
        panel = app.screen.query_one(AdBreakPanel)
        assert "SCHEDULED" in _text(panel.query_one("#adbreak-state", Static))
        for _ in range(6):
            clock.advance(0.5)
            await watcher.read_once()
        await pilot.pause()
        state = _text(panel.query_one("#adbreak-state", Static))
        assert "ON AIR" in state and "left of 60 s" in state and "seen in playlist after" in state
        assert "#EXT-X-CUE-OUT:DURATION=60.000" in _text(panel.query_one("#adbreak-tail", Static))
        clock.advance(57)  # sent at 20 s; the splice is the next keyframe, 21 s: one second of the break left
        await watcher.read_once()
        app.screen.redraw()
        assert "0:01 left of 60 s" in _text(panel.query_one("#adbreak-state", Static))
        clock.advance(1)
        await watcher.read_once()
        app.screen.redraw()
        assert "ENDED" in _text(panel.query_one("#adbreak-state", Static))
        assert app.adops().stream(STREAM).view().state is BreakState.ENDED
        await pilot.press("E")
        assert isinstance(app.screen, AdEventsScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        assert "seen after" in str(table.get_row_at(0)[5]) and table.get_row_at(0)[2] == "cue-out"
        await pilot.press("enter")  # the full record: the exact body and the confirmation
        assert isinstance(app.screen, AdEventDetail)
        detail = str(app.screen.query_one("#event-detail", Static).content)
        assert '"duration": 60000' in detail and "seen in playlist after" in detail
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["intent", "outcome", "confirmation"]
    assert lines[0]["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 60000}]}


async def test_id3_dialog_frames_come_back_out_of_the_media(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    template = Id3Template(name="now playing", event_type="video", frames=[
        {"frameType": "TIT2", "data": "placeholder"}])  # type: ignore[list-item]
    settings = _settings(simulator, id3_templates=[template], confirm=ConfirmSettings(id3=False))
    app = Host(settings, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        watcher = app.adops().stream(STREAM).follower
        assert await watcher.read_once()
        await pilot.press("m")
        dialog = app.screen
        assert isinstance(dialog, Id3Dialog)
        dialog.query_one("#type-0", Input).value = "TXXX"
        dialog.query_one("#info-0", Input).value = "adId"
        dialog.query_one("#data-0", Input).value = "spot-7 ✓"
        await pilot.press("ctrl+n")
        await pilot.pause()
        dialog.query_one("#type-1", Input).value = "TIT2"
        dialog.query_one("#data-1", Input).value = "Song title"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert dialog.query_one("#row-2").display
        dialog.query_one("#type-2", Input).value = "PRIV"
        dialog.query_one("#info-2", Input).value = "com.example"
        dialog.query_one("#data-2", Input).value = "private-bytes"
        await pilot.press("ctrl+s")  # confirmation is off for id3 in this config: sent at once
        await app.workers.wait_for_complete()
        sent = [{"frameType": "TXXX", "info": "adId", "data": "spot-7 ✓"},
                {"frameType": "TIT2", "data": "Song title"},
                {"frameType": "PRIV", "info": "com.example", "data": "private-bytes"}]
        assert _bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "event", "events": sent}]
        for _ in range(4):
            clock.advance(0.5)
            await watcher.read_once()
        frames = app.adops_last_id3(STREAM)
        assert frames is not None
        assert {(f.frame_type, f.info, f.data) for f in frames} == {
            ("TXXX", "adId", "spot-7 ✓"), ("TIT2", None, "Song title"), ("PRIV", "com.example", "private-bytes")}


async def test_read_only_sends_nothing_and_says_so_on_screen(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = Host(_settings(simulator), clock, tmp_path / "audit.jsonl", read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("o", "i", "m"):
            await pilot.press(key)
            assert isinstance(app.screen, StreamScreen), f"{key} opened a dialog in read-only mode"
        messages = [n.message for n in app._notifications]
        assert sum("read-only mode: nothing is sent" in m for m in messages) == 3
        await pilot.press("a")
        assert isinstance(app.screen, AdBreakScreen)
        assert "READ-ONLY" in _text(app.screen.query_one("#adbreak-state", Static))
    assert _bodies(simulator) == []
    assert not (tmp_path / "audit.jsonl").exists()


async def test_cue_in_key_with_confirmation_declined_sends_nothing(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = Host(_settings(simulator), clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("i")
        assert isinstance(app.screen, ConfirmSend)
        await pilot.press("n")
        await app.workers.wait_for_complete()
        assert isinstance(app.screen, StreamScreen)
        await pilot.press("i", "y")
        await app.workers.wait_for_complete()
    assert _bodies(simulator) == [{"eventFormat": "cue", "events": [{"cueType": "in"}]}]


async def test_a_second_press_while_the_first_is_in_flight_says_so(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    settings = _settings(simulator, confirm=ConfirmSettings(cue_in=False))
    app = Host(settings, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        app.adops().stream(STREAM).ad_break.try_begin("cue-out")  # a send that has not been answered yet
        await pilot.press("i")
        await pilot.press("o")
        await app.workers.wait_for_complete()
        messages = [n.message for n in app._notifications]
        assert sum("cue-out is still being sent" in m for m in messages) == 2
        assert isinstance(app.screen, StreamScreen)
    assert _bodies(simulator) == []


async def test_palette_offers_the_actions_for_the_selected_stream(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    app = Host(_settings(simulator), clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        provider = AdOpsCommands(app.screen)
        titles = [title for title, _, _ in provider._commands()]
        assert titles[:3] == ["Cue-out: start an ad break on default/app/stream",
                              "Cue-in: end the ad break on default/app/stream",
                              "ID3 metadata to default/app/stream"]
        assert any(b.id == "cue_out" and b.key == "o" for b in app.BINDINGS)  # type: ignore[union-attr]
        await pilot.press("ctrl+p")
        await pilot.press(*"cue-out: start")
        await pilot.pause(0.3)  # the palette searches in a worker of its own
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CueOutDialog)


async def test_id3_template_from_the_config_fills_the_dialog(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    template = Id3Template(name="now playing", event_type="audio", frames=[
        {"frameType": "TIT2", "data": "Track"},
        {"frameType": "TXXX", "info": "artist", "data": "Band"}])  # type: ignore[list-item]
    settings = _settings(simulator, id3_templates=[template], confirm=ConfirmSettings(id3=False))
    app = Host(settings, clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("m")
        dialog = app.screen
        assert isinstance(dialog, Id3Dialog)
        dialog.query_one("#template", Select).value = "now playing"
        await pilot.pause()
        assert [dialog.query_one(f"#type-{i}", Input).value for i in range(2)] == ["TIT2", "TXXX"]
        assert dialog.query_one("#info-1", Input).value == "artist"
        assert dialog.query_one("#event-type", Select).value == "audio"
        await pilot.press("ctrl+s")  # confirmation is off for id3 in this config: sent at once
        await app.workers.wait_for_complete()
        assert isinstance(app.screen, StreamScreen)
    assert _bodies(simulator) == [{"eventFormat": "id3v2", "eventType": "audio", "events": [
        {"frameType": "TIT2", "data": "Track"}, {"frameType": "TXXX", "info": "artist", "data": "Band"}]}]


async def test_the_confirmation_shows_the_request_and_a_warning_asks_even_with_confirmation_off(
        sim, tmp_path: Path) -> None:
    simulator, _clock = sim
    app = Host(_settings(simulator, confirm=ConfirmSettings(cue_in=False)), _clock, tmp_path / "audit.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        assert await app.adops().stream(STREAM).follower.read_once()  # the playlist: no break on air
        await pilot.press("i")
        assert isinstance(app.screen, ConfirmSend)  # asked although cue_in confirmation is off
        texts = [str(w.content) for w in app.screen.query(Static)]
        assert any("no ad break is on air" in t for t in texts)
        plan_text = str(app.screen.query_one("#plan", Static).content)
        assert plan_text.startswith("POST /v1/vhosts/default/apps/app/streams/stream:sendEvent on 127.0.0.1:")
        assert '"cueType": "in"' in plan_text
        await pilot.press("n")
        await app.workers.wait_for_complete()
    assert _bodies(simulator) == []


async def test_the_events_screen_shows_a_send_killed_in_flight_as_outcome_unknown(sim, tmp_path: Path) -> None:
    simulator, clock = sim
    audit = tmp_path / "audit.jsonl"
    audit.write_text(json.dumps({"type": "intent", "id": "abc", "time": "2026-01-01T12:00:00.000+00:00",
                                 "server": "ome.example:8081", "profile": "prod", "vhost": "default", "app": "app",
                                 "stream": "stream", "action": "cue-out", "path": "/x",
                                 "body": {"eventFormat": "cue"}}) + "\n")
    app = Host(_settings(simulator), clock, audit)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("E")
        assert isinstance(app.screen, AdEventsScreen)
        row = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert row[2] == "cue-out" and row[3] == "unknown" and row[4] == "outcome unknown — check the playlist"

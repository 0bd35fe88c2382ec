"""Server and file text in the ad-ops UI is data: replies, stream names, playlist lines and audit files
are shown as the characters they are, never read as markup, never written raw to the terminal.

A real server does not answer `accepted [/oops] boom` or put `ESC ] 52` in its playlists, so the API
and the publisher here are loopback servers that answer what each test tells them to. A property test
runs any string through the events screen and its detail and checks what the terminal would get.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from adops_support import SharedClock
from adops_ui_support import AdOpsHost, Rig, named_rig, rendered, sends_done, text_of, toasts
from fake_clock import FakeClock
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from loopback_server import Answer, LoopbackServer, Request
from pydantic import SecretStr
from sim_support import TEST_TOKEN
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Select, Static
from wait_support import until

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.config import ConfirmSettings, Settings
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath
from omeconsole.model.server import LinkState
from omeconsole.ui.adops.dialogs import CueOutDialog, Id3Dialog
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.screens.ad_events import AdEventDetail, AdEventsScreen
from omeconsole.ui.widgets.status_bar import StatusLine
from simulator.world.clock import ManualClock

CLICK_QUIT = "s1[@click=app.quit]X"
NASTY = "\x1b]52;c;cHduZWQ=\x07 \x1b[2J \u202egnp.exe \x00"
NASTY_SHOWN = "\\x1b]52;c;cHduZWQ=\\x07 \\x1b[2J ⟨U+202E⟩gnp.exe \\x00"
PLAYLIST = "\n".join([
    "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
    f'#EXT-X-DATERANGE:ID="evil",START-DATE="2026-01-01T00:00:00.000Z",X-NOTE="{NASTY}"',
    "#EXTINF:2.0,", "seg0.m4s", f"#X-NOTE:{NASTY} [@click=app.quit]X", "#EXTINF:2.0,", "seg1.m4s", ""])


@dataclass
class Servers:
    """The API answers every send with `status` and `message`; the publisher serves `PLAYLIST`."""

    api: LoopbackServer
    publisher: LoopbackServer
    clock: SharedClock
    status: int = 200
    message: str = "OK"
    sent: list[bytes] = field(default_factory=list)

    def rig(self, audit: Path, **overrides: Any) -> Rig:
        settings = Settings(api_url="http://ome.example:8081", token=SecretStr(TEST_TOKEN),
                            confirm=ConfirmSettings(cue_out=False, cue_in=False, id3=False), **overrides)
        return named_rig(self.api.url, self.publisher.url, TEST_TOKEN, self.clock, audit, settings)


@pytest.fixture
async def servers() -> AsyncIterator[Servers]:
    holder: list[Servers] = []

    async def api(request: Request) -> Answer:
        if request.path.endswith((":sendEvent", ":sendEvents")):
            holder[0].sent.append(request.body)
            return Answer.json({"statusCode": holder[0].status, "message": holder[0].message}, holder[0].status)
        return Answer.json({"statusCode": 404, "message": "Not found"}, 404)

    async def publisher(request: Request) -> Answer:
        if request.path.endswith("llhls.m3u8"):
            return Answer(200, PLAYLIST.encode(), {"Content-Type": "application/vnd.apple.mpegurl"})
        return Answer(404, b"")

    async with LoopbackServer(api) as api_server, LoopbackServer(publisher) as publisher_server:
        holder.append(Servers(api_server, publisher_server, SharedClock(ManualClock())))
        yield holder[0]


def lines_of(app: App[Any]) -> Iterator[tuple[Widget, str, Any]]:
    """Every segment of every widget on the screen: (widget, text, style)."""
    for widget in app.screen.query("*"):
        if widget.size.area:
            for line in rendered(widget):
                for segment in line:
                    yield widget, segment.text, segment.style


def interpretable(app: App[Any]) -> list[str]:
    """What on the screen a terminal or Textual would act on: control or bidi characters in the text,
    click actions or links in the styles."""
    found = []
    for widget, text, style in lines_of(app):
        bad = [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")]
        if bad:
            found.append(f"{widget!r}: {bad!r} in {text!r}")
        if style is not None and (style.link or any(key.startswith("@") for key in style.meta)):
            found.append(f"{widget!r}: action or link {style.meta or style.link!r} on {text!r}")
    return found


async def test_reply_with_markup_is_said_as_it_came_and_a_click_on_it_does_nothing(servers: Servers,
                                                                                   tmp_path: Path) -> None:
    screenshot = tmp_path / "pwned.svg"
    servers.message = f"OK [@click=app.screenshot('pwned.svg','{tmp_path}')]Details[/] accepted [/oops] boom"
    app = AdOpsHost(servers.rig(tmp_path / "audit.jsonl"), NodePath("default", "app", "stream"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("m", "tab", *"adId", "tab", *"spot-1", "enter")
        await sends_done(app)
        await pilot.pause()
        said = toasts(app)
        assert len(said) == 1 and f"{servers.message}" in said[0], said
        assert interpretable(app) == []
        await pilot.click("Toast")
        await pilot.pause()
        await pilot.press("E")
        assert isinstance(app.screen, AdEventsScreen)
        row = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert row[6] == servers.message
        assert interpretable(app) == []
    assert len(servers.sent) == 1 and not screenshot.exists()


async def test_brackets_in_a_refusal_stay_in_the_toast_and_the_events(servers: Servers, tmp_path: Path) -> None:
    servers.status, servers.message = 400, "[HTTP] bad request for [default/app/stream] [b]x[/b]"
    app = AdOpsHost(servers.rig(tmp_path / "audit.jsonl"), NodePath("default", "app", "stream"))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("o", "enter")
        await sends_done(app)
        await pilot.pause()
        said = toasts(app)
        assert len(said) == 1 and servers.message in said[0], said
        await pilot.press("E")
        table = app.screen.query_one(DataTable)
        assert [str(cell) for cell in table.get_row_at(0)][6] == servers.message
        await pilot.press("enter")
        assert isinstance(app.screen, AdEventDetail)
        assert servers.message in text_of(app.screen.query_one("#event-detail", Static))
        assert interpretable(app) == []
    assert len(servers.sent) == 1


async def test_a_stream_named_with_a_click_action_is_shown_as_named_and_clicking_it_does_nothing(
        servers: Servers, tmp_path: Path) -> None:
    app = AdOpsHost(servers.rig(tmp_path / "audit.jsonl"), NodePath("default", "app", CLICK_QUIT))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        for key, dialog in (("o", CueOutDialog), ("m", Id3Dialog)):
            await pilot.press(key)
            assert isinstance(app.screen, dialog)
            target = app.screen.query_one("#target", Static)
            assert text_of(target).startswith(f"to default/app/{CLICK_QUIT} on ome.example:8081")
            await pilot.click(target, offset=(20, 0))
            await pilot.click(target, offset=(30, 0))
            assert interpretable(app) == []
            await pilot.press("escape")
        await pilot.press("a")
        panel = app.screen.query_one("#ad-break-panel")
        assert CLICK_QUIT in text_of(panel)
        await pilot.click(panel, offset=(20, 0))
        assert interpretable(app) == []
        assert app.is_running and app.return_code is None


async def test_control_and_bidi_characters_in_the_playlist_tail_are_shown_as_escapes(servers: Servers,
                                                                                      tmp_path: Path) -> None:
    app = AdOpsHost(servers.rig(tmp_path / "audit.jsonl"), NodePath("default", "app", "stream"))
    async with app.run_test(size=(200, 60), notifications=True) as pilot:
        await pilot.press("a")
        await app.rig.adops.stream(NodePath("default", "app", "stream")).follower.read_once()
        await pilot.pause()
        tail = text_of(app.screen.query_one("#adbreak-tail", Static))
        assert f'X-NOTE="{NASTY_SHOWN}"' in tail and f"#X-NOTE:{NASTY_SHOWN} [@click=app.quit]X" in tail
        assert interpretable(app) == []


async def test_control_characters_in_a_reply_never_reach_the_terminal(servers: Servers, tmp_path: Path) -> None:
    servers.message = f"OK {NASTY}"
    app = AdOpsHost(servers.rig(tmp_path / "audit.jsonl"), NodePath("default", "app", "stream"))
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await pilot.press("o", "enter")
        await sends_done(app)
        await pilot.pause()
        assert any(f"OK {NASTY_SHOWN}" in toast for toast in toasts(app))
        assert interpretable(app) == []  # on the ad-break panel, which the accepted cue-out opened
        await pilot.press("escape", "E")
        assert [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)][6] == f"OK {NASTY_SHOWN}"
        assert interpretable(app) == []


def _audit_with(text: str) -> str:
    intent = {"type": "intent", "id": "h1", "time": "2026-01-01T12:00:00.000+00:00", "server": text,
              "profile": text, "vhost": "default", "app": "app", "stream": text, "action": "cue-out",
              "path": f"/v1/{text}", "body": {"eventFormat": "cue", "note": text}}
    outcome = {"type": "outcome", "id": "h1", "time": "2026-01-01T12:00:00.100+00:00", "outcome": "rejected",
               "status": 400, "message": text, "items": []}
    confirmation = {"type": "confirmation", "send_id": "h1", "time": "2026-01-01T12:00:01.000+00:00",
                    "seen_after_s": None, "detail": text}
    return "\n".join(json.dumps(line) for line in (intent, outcome, confirmation)) + "\n"


@pytest.fixture
async def bare_app() -> AsyncIterator[tuple[App[None], Pilot[None]]]:
    """One running app for every example of the property (a new screen each time, then closed)."""
    app: App[None] = PaletteApp()
    async with app.run_test(size=(200, 30)) as pilot:
        yield app, pilot


# Every markup and escape sequence in one line, always; then a dozen derived ones (each is a new screen: ~0.5 s).
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(text="[b]\x1b]52;c;[/][@click=app.quit]\x1b[2J\u202emoov")
@given(text=st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
                     | st.sampled_from(["[b]", "[/]", "[@click=app.quit]", "\x1b]52;c;", "\x1b[2J", "\u202e"]),
                     min_size=1, max_size=6).map("".join))
async def test_any_text_in_the_audit_log_is_shown_as_data(bare_app: tuple[App[None], Pilot[None]], tmp_path: Path,
                                                          text: str) -> None:
    """Whatever a file holds in a send's server, profile, stream, message and playlist lines, the events
    screen and the send's detail draw it with nothing a terminal or Textual would act on."""
    app, pilot = bare_app
    audit = tmp_path / "audit.jsonl"
    audit.write_text(_audit_with(text), encoding="utf-8")
    context = ServerContext(api_url="http://ome.example:8081", profile=None, read_only=False)
    connected = StatusLine(connection=LinkState("connected", "connected"))
    await app.push_screen(AdEventsScreen(AuditLog(audit), context, FakeClock(), status_line=lambda: connected))
    try:
        await pilot.pause()
        assert interpretable(app) == []  # the filters name the servers and profiles in the log
        app.screen.query_one("#server-filter", Select).value = Select.NULL  # every server, this one too
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 1, guard_s=10)  # the filter's Changed bubbles up first
        assert interpretable(app) == []
        table.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, AdEventDetail)
        assert interpretable(app) == []
    finally:
        while len(app.screen_stack) > 1:
            await app.pop_screen()

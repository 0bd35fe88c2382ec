"""Server text is data in the TUI: names, messages and realms from a hostile server are shown as text,
never read as markup, with control and bidi characters escaped; nothing stops the app or the polling.

The server is the in-memory `FakeOme` on a real loopback port, on the console's FakeClock; the app is
the real one through Pilot. Names are what an operator would see in the tree and header; a property
test throws any string at the tree and checks that nothing interpretable reaches the screen.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import unicodedata
from pathlib import Path

from fake_clock import FakeClock
from fake_ome_server import FakeOme
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loopback_server import Answer, Behaviour, Request
from textual.widgets import Static
from ui_support import Driver, ParkingClock, make_app, quiet_ui, shown, status_of

from omeconsole.core.text import visible
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.screens.node_screen import NodeScreen
from omeconsole.ui.screens.prompts import ExportDone, TokenPrompt
from omeconsole.ui.widgets.node_tree import NodeTree

__all__ = ["quiet_ui"]

CLICK_QUIT = "s1[@click=app.quit]X"
HOSTILE_NAMES = [CLICK_QUIT, "osc\x1b]52;c;cHduZWQ=\x07", "cls\x1b[2J", "bidi\u202etxt.exe", "nul\x00x",
                 "[b]bold[/b]", "[HTTP]"]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class HostileOme(FakeOme):
    """A FakeOme whose 401s carry a message of the test's choosing (markup-like, control characters)."""

    refusal = ""

    async def handle(self, request: Request) -> Behaviour:
        if self.refusal:
            self.requests.append((self.clock.monotonic(), request.path))
            return Answer.json({"message": self.refusal, "statusCode": 401}, 401,
                               headers={"WWW-Authenticate": 'Basic realm="ome\x1b[2J[@click=app.quit]x"'})
        return await super().handle(request)


def hostile(clock: FakeClock, names: list[str]) -> HostileOme:
    fake = HostileOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=0)
    fake.tree = {"default": {"app": ["good", *names]}}
    return fake


def app_for(fake: FakeOme, clock: FakeClock, tmp_path: Path, **options: object) -> ConsoleApp:
    return make_app(fake.url, clock, tmp_path, token=fake.token, **options)  # type: ignore[arg-type]


def screen_text(app: ConsoleApp) -> str:
    return "\n".join(shown(widget) for widget in app.screen.query("NodeTree, #detail-header, StatusBar, Banner")
                     if widget.display)


def tree_paths(app: ConsoleApp) -> list[NodePath]:
    return app.screen.query_one(NodeTree).paths()


async def test_hostile_names_are_shown_as_text_and_a_click_on_them_does_nothing(
        quiet_ui: None, tmp_path: Path) -> None:
    clock = ParkingClock()
    async with hostile(clock, HOSTILE_NAMES).serving() as fake:
        app = app_for(fake, clock, tmp_path, select="default/app/" + CLICK_QUIT)
        async with app.run_test(size=(160, 40)) as pilot:
            driver = Driver(pilot, clock, None)
            await driver.warm_up(3)
            text = screen_text(app)
            for name in HOSTILE_NAMES:
                assert visible(name) in text, name  # the whole name, escapes and brackets included
            assert "bidi⟨U+202E⟩txt.exe" in text and "cls\\x1b[2J" in text
            assert not CONTROL.search(text)
            good = app.session.engine.node(NodePath("default", "app", "good"))
            assert good.state is NodeState.LIVE and good.age(clock.monotonic()) == 0.0  # the others polled
            tree = app.screen.query_one(NodeTree)
            row = tree_paths(app).index(NodePath("default", "app", CLICK_QUIT)) - int(tree.scroll_y)
            await pilot.click(NodeTree, offset=(8, row))  # on the would-be link: it opens the stream, no more
            # The stream's screen is pushed and tells the engine what it shows before the clock moves:
            # a loaded machine must not let the step's round run before the screen exists.
            await driver.until(lambda: isinstance(app.screen, NodeScreen))
            await driver.settle()
            await driver.step()
            assert app.is_running and isinstance(app.screen, NodeScreen) and app.screen.path.name == CLICK_QUIT
            clicked = app.session.engine.node(app.screen.path)
            assert clicked.state is NodeState.LIVE and clicked.age(clock.monotonic()) == 0.0  # polled as any
            assert not CONTROL.search(app.export_screenshot().replace("\n", ""))


async def test_a_nul_in_a_stream_name_then_export_writes_files_and_says_where(
        quiet_ui: None, tmp_path: Path) -> None:
    clock = ParkingClock()
    async with hostile(clock, ["nul\x00x"]).serving() as fake:
        app = app_for(fake, clock, tmp_path, select="default/app/nul\x00x")
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, None)
            await driver.warm_up(3)
            await pilot.press("e")
            await driver.settle()
            assert isinstance(app.screen, ExportDone)
            said = "\n".join(shown(widget) for widget in app.screen.query(Static))
            assert "nul\\x00x" in said and not CONTROL.search(said)
            written = os.listdir(tmp_path / "exports")
            assert written and all("\x00" not in name for name in written)


async def test_a_refusal_with_brackets_and_escapes_is_shown_whole_in_the_token_prompt(
        quiet_ui: None, tmp_path: Path) -> None:
    clock = ParkingClock()
    fake = hostile(clock, [])
    fake.refusal = "Invalid credential [/x] [@click=app.quit]now\x1b]52;c;eA==\x07"
    async with fake.serving():
        app = app_for(fake, clock, tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, None)
            await driver.warm_up(1)
            assert isinstance(app.screen, TokenPrompt)
            said = " ".join(shown(widget) for widget in app.screen.query(Static))
            assert not CONTROL.search(said)
            assert "Invalid credential [/x] [@click=app.quit]now\\x1b]52;c;eA==\\x07" in re.sub(r"\s+", " ", said)
            await pilot.click(Static, offset=(30, 2))
            assert app.is_running and isinstance(app.screen, TokenPrompt)


async def test_a_server_that_answers_garbage_for_one_stream_keeps_the_others_polled_and_counts_errors(
        quiet_ui: None, tmp_path: Path) -> None:
    clock = ParkingClock()
    fake = hostile(clock, ["bad"])
    fake.broken.add("/v2/stats/current/vhosts/default/apps/app/streams/bad")
    async with fake.serving():
        app = app_for(fake, clock, tmp_path, select="default/app/bad")
        async with app.run_test(size=(160, 40)) as pilot:
            driver = Driver(pilot, clock, None)
            await driver.warm_up(4)
            engine = app.session.engine
            good = engine.node(NodePath("default", "app", "good"))
            assert good.state is NodeState.LIVE and good.age(clock.monotonic()) == 0.0
            assert engine.node(NodePath("default", "app", "bad")).error is not None
            assert re.search(r"▲ \d+ err/min", status_of(app)), status_of(app)


# Any text as a stream's name: whatever it holds, the tree shows it as inert, escaped text.
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=24).filter(
    lambda name: "/" not in name and name.strip() not in ("", ".", ".."))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_any_stream_name_reaches_the_screen_as_inert_text(quiet_ui: None, name: str) -> None:
    asyncio.run(_show_name(name))


async def _show_name(name: str) -> None:
    clock = ParkingClock()
    with tempfile.TemporaryDirectory() as scratch:
        async with hostile(clock, [name]).serving() as fake:
            app = app_for(fake, clock, Path(scratch), select=str(NodePath("default", "app", name)))
            async with app.run_test(size=(160, 30)) as pilot:
                driver = Driver(pilot, clock, None)
                await driver.warm_up(2)
                assert app.is_running and isinstance(app.screen, DashboardScreen)
                text = screen_text(app)
                assert not CONTROL.search(text)
                assert all(unicodedata.category(c) not in ("Cc", "Cf") or c == "\n" for c in text)
                shown_name = visible(name)
                assert shown_name[:20] in text  # the name as data, markup-looking parts included

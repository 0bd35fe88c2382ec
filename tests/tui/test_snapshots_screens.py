"""SVG snapshots at 80x24, 120x40, 160x48 and 200x60 in the dark and light themes of the screens issue 27 left
without: the alerts screen with rules (two firing, one resolving with its keep-firing countdown), the
schedules screen, and the replay's dashboard and stream screen (`--replay` of a recorded history).

One app run per screen and theme, warmed on a seeded simulator with both clocks frozen, then resized through
the four sizes (no clock moves between the pictures). What would change from run to run is fixed data: the
schedules screen runs in the test's directory with the audit log (and so the runners' lock) named
`audit.jsonl`, and reads its schedules on the console's clock; the replay is recorded on fixed wall times
and opened at a fixed moment. Regenerate with `pytest tests/tui/test_snapshots_screens.py --snapshot-update`
and review the SVGs.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from layout_support import screen_text
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from textual.app import App
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, make_settings, quiet_ui
from wait_support import resized

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.paths import NodePath
from omeconsole.ui.replay.app import open_replay, replay_app
from omeconsole.ui.screens.alerts import AlertsScreen
from omeconsole.ui.screens.replay import ReplayDashboard, ReplayNodeScreen
from omeconsole.ui.screens.schedules import SchedulesScreen
from omeconsole.ui.themes import BUILTIN_THEME_DIR

__all__ = ["quiet_ui"]

SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
THEMES = ["ome-dark", "ome-light"]
NEWS = "default/app/news"
WALL = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

RULES = [
    AlertRule(name="news ingest", kind="ingest_stopped", scope=NEWS, after=3, keep_firing_for=30,
              severity="critical", summary="The news encoder stopped sending"),
    AlertRule(name="news is watched", kind="viewers_above", scope=NEWS, viewers=0, severity="info"),
    AlertRule(name="sports crowd", kind="viewers_above", scope="default/app/sports", viewers=10,
              severity="warning"),
]

SCHEDULES = """
[templates.spot]
duration = 45
id3_out = [{frameType = "TXXX", info = "adId", data = "spot-9"}]

[templates.long-break]
duration = 120

[[schedules]]
name = "news-breaks"
stream = "default/app/news"
template = "spot"
every = "12m"
offset = "3m"

[[schedules]]
name = "sports-half-time"
stream = "default/app/sports"
template = "long-break"
every = "1h"
offset = "45m"
"""


@pytest.fixture
def svg(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGImageSnapshotExtension)


async def at_every_size(app: App[None], driver: Driver) -> dict[str, str]:
    """The screen in front, one picture per size (nothing moves the clocks between them)."""
    taken: dict[str, str] = {}
    for width, height in SIZES:
        await resized(driver.pilot, width, height)
        await driver.settle()
        await driver.pilot.wait_for_scheduled_animations()
        taken[f"{width}x{height}"] = app.export_screenshot()
    return taken


def mismatched(svg: SnapshotAssertion, taken: dict[str, str]) -> list[str]:
    """The sizes whose picture differs from its stored SVG (each is compared; `--snapshot-update` updates)."""
    return [size for size, picture in taken.items() if not bool(svg(name=size) == picture)]


@pytest.mark.parametrize("theme", THEMES)
async def test_the_alerts_screen_with_alerts_firing_and_one_resolving(
        svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path, theme: str) -> None:
    """The news encoder stalls from 12 s to 18 s of world time: its alert fired and is now held by its
    30 s keep-firing period (the countdown shows); two viewer rules fire."""
    clock = ParkingClock()
    with ThreadedSimulator(faults=f"ingest-stall=at:12s:for:6s,streams={NEWS}") as simulator:
        app = make_app(simulator.api_url, clock, tmp_path, theme=theme, select=NEWS, fixed_address=True,
                       alerts=RULES)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(26)
            await pilot.press("A")
            await driver.settle()
            assert isinstance(app.screen, AlertsScreen), app.screen
            states = {alert.key.rule: alert.status.value for alert in app.screen.alerts()}
            assert states == {"news ingest": "firing", "news is watched": "firing", "sports crowd": "firing"}
            assert "⚑ resolving (keep-firing 0:" in screen_text(app), screen_text(app)
            taken = await at_every_size(app, driver)
    assert mismatched(svg, taken) == []


@pytest.mark.parametrize("theme", THEMES)
async def test_the_schedules_screen(svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    """Two schedules read from the config on the console's clock (2026-01-01 00:00:0x UTC), run by nobody."""
    config = Path(os.environ["OMECONSOLE_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(SCHEDULES)
    config.chmod(0o600)
    monkeypatch.chdir(tmp_path)  # the audit log, and so the runners' lock the screen names, is ./audit.jsonl
    clock = ParkingClock()
    with ThreadedSimulator() as simulator:
        app = make_app(simulator.api_url, clock, Path(), theme=theme, select=NEWS, fixed_address=True)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(3)
            await pilot.press("S")
            await driver.settle()
            assert isinstance(app.screen, SchedulesScreen), app.screen
            assert "news-breaks" in screen_text(app) and "sports-half-time" in screen_text(app)
            taken = await at_every_size(app, driver)
    assert mismatched(svg, taken) == []


async def record(history: HistorySettings, tmp_path: Path) -> None:
    """A history of the seeded simulator: 8 s of the console's readings from WALL on, with `news` open."""
    live_clock = ParkingClock(wall_start=WALL)
    with ThreadedSimulator() as simulator:
        app = make_app(simulator.api_url, live_clock, tmp_path, select=NEWS, history=history,
                       fixed_address=True)  # recorded as 127.0.0.1:8081, whatever port it had
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, live_clock, simulator)
            await driver.warm_up(3)
            await driver.step(1.0, times=5)
            await pilot.press("q")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("screen", ["dashboard", "stream"])
async def test_the_replay_screens(svg: SnapshotAssertion, quiet_ui: None, tmp_path: Path, theme: str,
                                  screen: str) -> None:
    """`--replay` five minutes after the recording, moved 10 s into it, paused."""
    history = HistorySettings(path=tmp_path / "history.sqlite3")
    await record(history, tmp_path)
    replay_clock = ParkingClock(wall_start=WALL + timedelta(minutes=5))
    settings = make_settings("http://127.0.0.1:9/never", history=history, theme=theme)
    replay = open_replay(settings, replay_clock, since=3600)
    try:
        app = replay_app(replay, settings, replay_clock, select=NodePath.parse(NEWS),
                         audit_path=tmp_path / "audit.jsonl", theme_dirs=[BUILTIN_THEME_DIR])
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, replay_clock, None)
            await driver.settle()
            await pilot.press("right")  # 10 s into the recording
            await driver.settle()
            if screen == "stream":
                await pilot.press("enter")
                await driver.until(lambda: isinstance(app.screen, ReplayNodeScreen))
                await driver.settle()
            assert isinstance(app.screen, ReplayNodeScreen if screen == "stream" else ReplayDashboard)
            assert "REPLAY" in screen_text(app)
            taken = await at_every_size(app, driver)
    finally:
        replay.reader.close()
    assert mismatched(svg, taken) == []

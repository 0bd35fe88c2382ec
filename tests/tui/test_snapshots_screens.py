"""SVG snapshots at 80x24, 120x40, 160x48 and 200x60 in the dark and light themes of the screens issue 27 left
without: the alerts screen with rules (two firing, one resolving with its keep-firing countdown) and the
schedules screen.

One app run per screen and theme, warmed on a seeded simulator with both clocks frozen, then resized through
the four sizes (no clock moves between the pictures). What would change from run to run is fixed data: the
schedules screen runs in the test's directory with the audit log (and so the runners' lock) named
`audit.jsonl`, and reads its schedules on the console's clock.
Regenerate with `pytest tests/tui/test_snapshots_screens.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from layout_support import screen_text
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from textual.app import App
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui
from wait_support import resized

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.ui.screens.alerts import AlertsScreen
from omeconsole.ui.screens.schedules import SchedulesScreen

__all__ = ["quiet_ui"]

SIZES = [(80, 24), (120, 40), (160, 48), (200, 60)]
THEMES = ["ome-dark", "ome-light"]
NEWS = "default/app/news"

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

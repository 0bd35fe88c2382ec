"""SVG snapshots of the alerts screen at 120x40, dark and light: one alert firing, one resolved.

The simulator is seeded on a ManualClock and its encoder for `news` stalls from 12 s to 18 s of world
time; the console's FakeClock moves with it one second a step, so the alerts fire and resolve at the
same step every run and the picture (times, durations, values) repeats. Regenerate with
`--snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import SVGImageSnapshotExtension
from ui_support import Driver, ParkingClock, ThreadedSimulator, make_app, quiet_ui

from omeconsole.core.alerts.rules import AlertRule
from omeconsole.ui.screens.alerts import AlertsScreen

__all__ = ["quiet_ui"]

RULES = [
    AlertRule(name="news ingest", kind="ingest_stopped", scope="default/app/news", after=3, keep_firing_for=3,
              severity="critical", summary="The news encoder stopped sending"),
    AlertRule(name="news is watched", kind="viewers_above", scope="default/app/news", viewers=0, severity="info"),
]


@pytest.mark.parametrize("theme", ["ome-dark", "ome-light"])
async def test_the_alerts_screen_with_one_alert_firing_and_one_resolved(snapshot: SnapshotAssertion, quiet_ui: None,
                                                                         tmp_path: Path, theme: str) -> None:
    clock = ParkingClock()
    with ThreadedSimulator(faults="ingest-stall=at:12s:for:6s,streams=default/app/news") as simulator:
        app = make_app(simulator.api_url, clock, tmp_path, theme=theme, select="default/app/news",
                       fixed_address=True, alerts=RULES)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = Driver(pilot, clock, simulator)
            await driver.warm_up(30)
            await pilot.press("A")
            await driver.settle()
            assert isinstance(app.screen, AlertsScreen)
            alerts = app.screen.alerts()
            assert [(a.key.rule, a.status.value) for a in alerts] == [("news is watched", "firing"),
                                                                      ("news ingest", "resolved")]
            picture = app.export_screenshot()
    assert snapshot.use_extension(SVGImageSnapshotExtension)(name="120x40") == picture

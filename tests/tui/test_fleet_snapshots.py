"""SVG snapshots of the fleet screen (dark theme) at 120x40 and 160x48: an origin and two edges of one
simulated fleet, on a ManualClock and a frozen console clock, the stream `default/app/stream` selected
(its fleet view: ingest on the origin, viewers per edge and protocol, the sums).

Regenerate with `pytest tests/tui/test_fleet_snapshots.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_ui_support import FleetDriver, ThreadedFleet, fleet_app, shown_fleet
from textual.pilot import Pilot
from ui_support import ParkingClock, quiet_ui

__all__ = ["quiet_ui"]

SnapCompare = Callable[..., bool]


@pytest.fixture
def lab() -> Iterator[ThreadedFleet]:
    fleet = ThreadedFleet()
    yield fleet
    fleet.stop()


@pytest.mark.parametrize("size", [(120, 40), (160, 48)], ids=["120x40", "160x48"])
def test_fleet_dashboard(snap_compare: SnapCompare, quiet_ui: None, lab: ThreadedFleet, tmp_path: Path,
                         size: tuple[int, int]) -> None:
    clock = ParkingClock()
    # No playlist following: the simulators run in a thread of their own, so whether a stats reading falls
    # while one of the console's playlist reads is open (and counted) would depend on the machine's timing.
    settings, real = shown_fleet(lab.servers, follow_playlists=False)
    app = fleet_app(settings, clock, tmp_path, select="default/app/stream", names=real)

    async def run_before(pilot: Pilot[Any]) -> None:
        driver = FleetDriver(pilot, clock, len(lab.servers), [lab.advance])
        await driver.warm_up(4)

    assert snap_compare(app, terminal_size=size, run_before=run_before)

"""The tree says a stream's input as soon as it is known, not only once the stream is opened: on an open
source server (v1 statistics have no inbound counts) it comes from the stream's info, read once for each
stream on screen."""

from __future__ import annotations

from pathlib import Path

from ui_support import Driver, ParkingClock, ThreadedSimulator, console_clock, make_app, quiet_ui, tree_row

from omeconsole.model.paths import NodePath

__all__ = ["console_clock", "quiet_ui"]


async def test_every_stream_row_of_an_open_source_server_names_its_input_unopened(
        console_clock: ParkingClock, tmp_path: Path) -> None:
    with ThreadedSimulator(edition="oss") as sim:
        streams = sim.call(lambda: sorted((s.vhost, s.app, s.name) for s in sim.running.world.live_streams()))
        app = make_app(sim.api_url, console_clock, tmp_path)
        async with app.run_test(size=(160, 60)) as pilot:
            driver = Driver(pilot, console_clock, sim)
            await driver.warm_up(6)
            assert app.screen.selected_path() is None or app.screen.selected_path().level != "stream"
            for vhost, application, name in streams:
                row = tree_row(app, NodePath(vhost, application, name))
                assert " n/a " not in row and "live" in row, row

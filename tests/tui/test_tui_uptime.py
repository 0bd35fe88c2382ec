"""A stream's uptime on its detail header and its streams-table row, against the real simulator: the
figure the server's `createdTime` and its own clock give, counting with the console's clock, and starting
again when the simulator restarts the stream (a new `createdTime`)."""

from __future__ import annotations

import re
from pathlib import Path

from ui_support import (
    Driver,
    ParkingClock,
    ThreadedSimulator,
    console_clock,
    make_app,
    quiet_ui,
    shown,
    threaded_sim,
)

from omeconsole.model.paths import NodePath
from omeconsole.ui.app import ConsoleApp
from omeconsole.ui.widgets.stream_table import StreamTableView
from simulator.world.scenario import StreamSpec

__all__ = ["console_clock", "quiet_ui", "threaded_sim"]

NEWS = NodePath("default", "app", "news")
_FIGURE = re.compile(r"(?:(\d+) min )?(\d+(?:\.\d)?) s")


def seconds_of(figure: str) -> float:
    """`12 min 05 s` or `7.5 s` as seconds (the figure must be all of `figure`)."""
    found = _FIGURE.fullmatch(figure)
    assert found is not None, figure
    return 60 * int(found.group(1) or 0) + float(found.group(2))


def header_of(app: ConsoleApp) -> str:
    return shown(app.screen.query_one("#detail-header"))


def header_uptime(app: ConsoleApp) -> float:
    """The seconds the header's `up …` says."""
    found = re.search(r"up ([\d. mins]+ s)", header_of(app))
    assert found is not None, header_of(app)
    return seconds_of(found.group(1))


def server_uptime(sim: ThreadedSimulator) -> float:
    """What the simulator knows: its clock now less the stream's creation."""
    def read() -> float:
        stream = sim.running.world.find_stream("default", "app", "news")
        assert stream is not None
        return (sim.running.world.clock.now_ms() - stream.created_ms) / 1000

    return sim.call(read)


def restart_news(sim: ThreadedSimulator) -> None:
    """The stream's input goes and comes back at once under the same name: a new life, a new createdTime."""
    def restart() -> None:
        world = sim.running.world
        stream = world.find_stream("default", "app", "news")
        assert stream is not None
        spec = StreamSpec(stream.name, stream.input_protocol, stream.bitrate_kbps, stream.audience, stream.permanent)
        world.end_stream(stream)
        world.start_stream("default", "app", spec)

    sim.call(restart)


def table_uptime_cell(app: ConsoleApp) -> str:
    table = app.screen.query_one(StreamTableView)
    lines = shown(table).splitlines()
    header = lines[0]
    row = next(line for line in lines[1:] if line.startswith(str(NEWS) + " "))
    start = header.index("uptime")
    return row[start - 4: start + len("uptime")].strip()


async def test_the_header_and_the_row_count_up_from_the_servers_created_time_and_start_again_at_a_restart(
        threaded_sim: ThreadedSimulator, console_clock: ParkingClock, tmp_path: Path) -> None:
    app = make_app(threaded_sim.api_url, console_clock, tmp_path, select=str(NEWS))
    async with app.run_test(size=(200, 50)) as pilot:
        driver = Driver(pilot, console_clock, threaded_sim)
        await driver.warm_up(3)
        await driver.step(1.0, times=40)  # the demo's streams start with the world: 40 s and more
        first = header_uptime(app)
        assert abs(first - server_uptime(threaded_sim)) <= 1.0, (first, header_of(app))
        assert first >= 40
        await driver.step(1.0, times=5)
        assert abs(header_uptime(app) - (first + 5)) <= 1.0, header_of(app)
        await pilot.press("t")
        await driver.step(1.0, times=2)
        cell = table_uptime_cell(app)
        assert abs(seconds_of(cell) - server_uptime(threaded_sim)) <= 1.0, cell

        restart_news(threaded_sim)
        await driver.step(1.0, times=3)
        cell = table_uptime_cell(app)
        assert seconds_of(cell) <= 4.0, f"a restart starts the count again: {cell}"
        await pilot.press("t")
        await driver.step(1.0)
        assert header_uptime(app) <= server_uptime(threaded_sim) + 1.0 <= 6.0, header_of(app)

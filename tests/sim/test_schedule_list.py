"""`omeconsole schedule list` against the real simulator: the next runs of every schedule with the streams
each matches in the listing now, a pattern or a stream that matches nothing said so, and a server that
cannot be read said so while the runs are still listed (exit 0)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sim_support import TEST_TOKEN, running_simulator

from simulator.http.server import RunningSimulator
from simulator.world.scenario import AppSpec, Scenario, StreamSpec, VhostSpec

BIN = Path(sys.executable).parent
WAIT_S = 60.0
CHANNELS = Scenario("channels", (VhostSpec("default", (AppSpec("app", tuple(
    StreamSpec(name, permanent=True) for name in ("news", "sport1", "sport2", "weather"))),)),))
CONFIG = '[templates.spot]\nduration = "30s"\n' + "".join(
    f'[[schedules]]\nname = "{name}"\nstream = "{stream}"\ntemplate = "spot"\nevery = "12m"\n'
    for name, stream in (("news", "default/app/news"), ("sports", "default/app/sport*"), ("none", "default/app/zz*"),
                         ("absent", "default/app/ghost"), ("elsewhere", "default/nope/*")))


@pytest.fixture
async def simulator() -> AsyncIterator[RunningSimulator]:
    async with running_simulator(CHANNELS) as running:
        yield running


async def _list(tmp_path: Path, api_url: str, *extra: str) -> tuple[int, str, str]:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env.update(OME_API_URL=api_url, OME_ACCESS_TOKEN=TEST_TOKEN, OMECONSOLE_CONFIG=str(config),
               OMECONSOLE_SCHEDULES=str(tmp_path / "schedules.toml"), OMECONSOLE_AUDIT_LOG=str(tmp_path / "a.jsonl"))
    child = await asyncio.create_subprocess_exec(str(BIN / "omeconsole"), "schedule", "list", *extra, env=env,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(child.communicate(), WAIT_S)
    assert child.returncode is not None
    return child.returncode, out.decode(), err.decode()


def _streams_lines(out: str) -> dict[str, str]:
    """Each schedule's `streams now:` line, by the schedule's name."""
    found: dict[str, str] = {}
    name = ""
    for line in out.splitlines():
        if not line.startswith(" "):
            name = line.split(":", 1)[0]
        elif line.startswith("  streams now: "):
            found[name] = line.removeprefix("  streams now: ")
    return found


async def test_each_schedule_lists_the_streams_it_matches_now(simulator: RunningSimulator, tmp_path: Path) -> None:
    status, out, err = await _list(tmp_path, simulator.api_url)
    assert status == 0, err
    assert _streams_lines(out) == {
        "news": "default/app/news",
        "sports": "default/app/sport1, default/app/sport2",
        "none": "none (the pattern matches no stream now; a run with none sends nothing)",
        "absent": "none (the stream is not live now; a run with none sends nothing)",
        "elsewhere": "none (the pattern matches no stream now; a run with none sends nothing)",
    }
    assert "  next: " in out
    status, out, _ = await _list(tmp_path, simulator.api_url, "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["sports"]["streams_now"] == ["default/app/sport1", "default/app/sport2"]
    assert rows["none"]["streams_now"] == [] and rows["news"]["streams_problem"] is None


async def test_the_listing_follows_the_server_now(simulator: RunningSimulator, tmp_path: Path) -> None:
    simulator.world.start_stream("default", "app", StreamSpec("sport3", permanent=True))
    sport1 = simulator.world.find_stream("default", "app", "sport1")
    assert sport1 is not None
    simulator.world.end_stream(sport1)
    _, out, _ = await _list(tmp_path, simulator.api_url)
    assert _streams_lines(out)["sports"] == "default/app/sport2, default/app/sport3"


async def test_a_server_that_cannot_be_reached_is_said_and_the_runs_still_listed(tmp_path: Path) -> None:
    status, out, err = await _list(tmp_path, "http://127.0.0.1:9")
    assert status == 0, err
    lines = _streams_lines(out)
    assert set(lines) == {"news", "sports", "none", "absent", "elsewhere"}
    assert all(line.startswith("not known — the server 127.0.0.1:9 cannot be read (") for line in lines.values())
    assert out.count("  next: ") == 5
    _, out, _ = await _list(tmp_path, "http://127.0.0.1:9", "--json")
    rows = json.loads(out)
    assert all(row["streams_now"] is None and "cannot be read" in row["streams_problem"] for row in rows)

"""`omeconsole cue-out --template NAME`: the config's template as one request — its cue-out and its ID3
frames in one `:sendEvents` array (both accepted or neither), written ahead to the audit log; an unknown
template is a usage error and sends nothing. The CLI runs as the operator runs it, against the simulator
on the system clock; the simulator's request counter counts the POSTs."""

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
from simulator.world.clock import SystemClock

BIN = Path(sys.executable).parent
CONFIG = ('[templates.tagged]\nduration = "20s"\n'
          'id3_out = [{frameType = "TXXX", info = "adId", data = "spot-9"}]\n')


@pytest.fixture
async def sim() -> AsyncIterator[RunningSimulator]:
    async with running_simulator(clock=SystemClock(), faults="") as simulator:
        yield simulator


async def _cue_out(simulator: RunningSimulator, tmp_path: Path, template: str) -> tuple[int, str, int]:
    assert simulator.faults is not None
    before = simulator.faults.http.counts["POST"]
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    config.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env.update(OME_API_URL=simulator.api_url, OME_PUBLISHER_URL=simulator.publisher_url, OME_ACCESS_TOKEN=TEST_TOKEN,
               OMECONSOLE_AUDIT_LOG=str(tmp_path / "audit.jsonl"), OMECONSOLE_CONFIG=str(config))
    child = await asyncio.create_subprocess_exec(str(BIN / "omeconsole"), "cue-out", "default/app/stream",
                                                 "--template", template, env=env, stdout=asyncio.subprocess.PIPE,
                                                 stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(child.communicate(), 60)
    assert child.returncode is not None
    return child.returncode, out.decode() + err.decode(), simulator.faults.http.counts["POST"] - before


async def test_a_template_goes_as_one_array_of_its_cue_and_its_id3(sim: RunningSimulator, tmp_path: Path) -> None:
    status, said, posts = await _cue_out(sim, tmp_path, "tagged")
    assert status == 0, said
    assert posts == 1
    [intent] = [line for line in map(json.loads, (tmp_path / "audit.jsonl").read_text().splitlines())
                if line["type"] == "intent"]
    assert str(intent["path"]).endswith("/streams/stream:sendEvents")
    assert intent["body"] == [{"eventFormat": "cue", "events": [{"cueType": "out", "duration": 20000}]},
                              {"eventFormat": "id3v2", "eventType": "event",
                               "events": [{"frameType": "TXXX", "info": "adId", "data": "spot-9"}]}]
    stream = sim.world.find_stream("default", "app", "stream")
    assert stream is not None
    assert [e.event_set.eventFormat for e in stream.events.events] == ["cue", "id3v2"]


async def test_an_unknown_template_is_a_usage_error_and_sends_nothing(sim: RunningSimulator, tmp_path: Path) -> None:
    status, said, posts = await _cue_out(sim, tmp_path, "nope")
    assert status == 2 and posts == 0
    assert "no template named 'nope'" in said and "(templates: tagged)" in said

"""Two processes: the command line is killed while its POST is in flight; the intent is already on disk.

The simulator runs here, with every request to the stream actions stalled after it was applied (its
answer never comes); `omeconsole cue-out` runs as a child process. Once the server holds the request,
the intent line must be on disk, the child is killed (SIGKILL, which nothing can catch, or SIGTERM /
SIGHUP, which it turns into an "unknown" outcome line), and the server has applied the cue once.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from sim_support import TEST_TOKEN, running_simulator

BIN = Path(sys.executable).parent
WAIT_S = 30.0


async def _until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    """Wait for a condition another process makes true (a bound only keeps a broken run from hanging)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not condition():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.01)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGKILL, -signal.SIGKILL), (signal.SIGTERM, 143),
                                                (signal.SIGHUP, 129)])
async def test_killed_while_the_post_is_in_flight_the_intent_is_on_disk_and_the_cue_applied_once(
        tmp_path: Path, signum: int, status: int) -> None:
    audit = tmp_path / "audit.jsonl"
    async with running_simulator(faults="stall=1:30s,paths=/v1/vhosts/default/apps/app/streams/") as simulator:
        assert simulator.faults is not None
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
        env.update(OME_API_URL=simulator.api_url, OME_ACCESS_TOKEN=TEST_TOKEN, OMECONSOLE_AUDIT_LOG=str(audit),
                   OMECONSOLE_CONFIG=str(tmp_path / "absent.toml"))
        child = await asyncio.create_subprocess_exec(
            str(BIN / "omeconsole"), "cue-out", "default/app/stream", "--duration", "30", "--force", env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            faults = simulator.faults
            await _until(lambda: faults.http.held == 1, "the server holding the applied POST")
            lines = [json.loads(line) for line in audit.read_text().splitlines()]
            assert [line["type"] for line in lines] == ["intent"]  # on disk before the request left
            child.send_signal(signum)
            _out, err = await asyncio.wait_for(child.communicate(), WAIT_S)
        finally:
            if child.returncode is None:
                child.kill()
                await child.wait()
        assert child.returncode == status, err
        stream = simulator.world.find_stream("default", "app", "stream")
        assert stream is not None and len(stream.events.events) == 1
        assert faults.counts()["POST"] == 1
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert lines[0]["type"] == "intent" and lines[0]["action"] == "cue-out"
    assert lines[0]["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    if signum == signal.SIGKILL:
        assert len(lines) == 1  # nothing could follow; reading it back says what to do
    else:
        assert [line["type"] for line in lines] == ["intent", "outcome"]
        assert lines[1]["outcome"] == "unknown" and lines[1]["message"] == "the console stopped waiting for the answer"
        assert b"check the playlist" in err

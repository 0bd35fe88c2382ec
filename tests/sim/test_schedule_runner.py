"""The runner against the real simulator on one injected clock: each planned break sent once, on time, confirmed."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from schedule_support import drive, rig

START = datetime(2026, 1, 1, 0, 0, 20, tzinfo=UTC)
SIMULATED = timedelta(days=1, seconds=10)
SLOTS = 720
EVERY_2M = """
[templates.spot]
duration = "30s"

[[schedules]]
name = "spots"
stream = "default/app/stream"
template = "spot"
every = "2m"
"""


def _audit(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
async def test_every_two_minutes_for_a_simulated_day_sends_one_confirmed_break_per_slot(tmp_path: Path) -> None:
    async with rig(tmp_path, EVERY_2M) as r:
        runner = r.runner(watch_s=60)
        runner.start()
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(stop))
        end = START + SIMULATED
        await drive(runner, r.clock, end)
        stop.set()
        await task
        runner.close()
    slots = [START.replace(second=0) + timedelta(minutes=2 * k) for k in range(1, SLOTS + 1)]
    sent = r.kinds("sent")
    assert [e.run for e in sent] == slots
    assert [e.run for e in r.kinds("confirmed")] == slots
    assert not r.kinds("skipped") and not r.kinds("missed") and not r.kinds("unconfirmed")
    intents = [line for line in _audit(r.audit) if line["type"] == "intent"]
    assert len(intents) == SLOTS and {line["origin"] for line in intents} == {"schedule:spots"}
    assert len({line["id"] for line in intents}) == SLOTS
    assert all(line["body"] == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
               for line in intents)
    assert [datetime.fromisoformat(str(line["time"])) for line in intents] == slots  # exact start, no jitter

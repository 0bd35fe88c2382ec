"""`omeconsole record` as its own process: stopped by SIGTERM or SIGINT, it exits 0 and every sample it
acknowledged (and every one it had taken) is in the database another process then reads."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.core.history.reader import HistoryReader

PROGRAM = Path(sys.executable).with_name("omeconsole")


async def _line(stream: asyncio.StreamReader) -> dict[str, Any]:
    raw = await asyncio.wait_for(stream.readline(), 60)
    assert raw, "the recorder stopped writing its status"
    value: dict[str, Any] = json.loads(raw)
    return value


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stopped_recorder_loses_no_acknowledged_sample(signum: signal.Signals, tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    async with running_simulator() as sim:
        environment = {**os.environ, "OMECONSOLE_HISTORY_DB": str(db), "OME_API_URL": sim.api_url,
                       "OME_ACCESS_TOKEN": TEST_TOKEN, "OMECONSOLE_CONFIG": str(tmp_path / "none.toml")}
        process = await asyncio.create_subprocess_exec(
            str(PROGRAM), "record", "--json", "--status-every", "0.2", env=environment,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        try:
            started = await _line(process.stdout)
            assert started["event"] == "started" and started["db"] == str(db)
            assert TEST_TOKEN not in json.dumps(started)
            acknowledged = started
            while acknowledged.get("samples", 0) < 15:
                acknowledged = await _line(process.stdout)
            process.send_signal(signum)
            code = await asyncio.wait_for(process.wait(), 60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        rest = (await process.stdout.read()).decode().splitlines()
        errors = (await process.stderr.read()).decode()
    assert code == 0, errors
    assert "Traceback" not in errors
    stopped = json.loads(rest[-1])
    assert stopped["event"] == "stopped"
    assert stopped["committed"] == stopped["accepted"] and stopped["lost"] == 0 and stopped["pending"] == 0
    assert stopped["samples"] >= acknowledged["samples"]
    with sqlite3.connect(db) as raw:
        (rows,) = raw.execute("SELECT count(*) FROM samples").fetchone()
    assert rows == stopped["samples"]
    with HistoryReader(db) as reader:
        recorded = {str(s.path) for s in reader.summaries()}
    assert {"default/app/stream", "default/app/news"} <= recorded

"""`omeconsole scheduler` as the process an operator runs: killed between the intent and the answer it
does not resend on restart (the unknown outcome is said), a second one is refused with the holder named,
SIGTERM stops it cleanly, a bad file or read-only mode starts nothing. The simulator runs here; the
scheduler is a child process on the real clock, its schedule a few seconds ahead."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sim_support import TEST_TOKEN, running_simulator

from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock

BIN = Path(sys.executable).parent
WAIT_S = 30.0
STALL = "stall=1:600s,paths=/v1/vhosts/default/apps/app/streams/"


def _config(tmp_path: Path, lead_s: int = 4) -> tuple[Path, datetime]:
    """A schedule every minute whose next run is `lead_s`-`lead_s + 1` s from now."""
    run = (datetime.now(UTC) + timedelta(seconds=lead_s + 1)).replace(microsecond=0)
    config = tmp_path / "config.toml"
    config.write_text('[templates.spot]\nduration = "30s"\n[[schedules]]\nname = "spots"\n'
                      f'stream = "default/app/stream"\ntemplate = "spot"\nevery = "1m"\noffset = "{run.second}s"\n')
    config.chmod(0o600)
    return config, run


def _env(simulator: RunningSimulator, tmp_path: Path, config: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env.update(OME_API_URL=simulator.api_url, OME_PUBLISHER_URL=simulator.publisher_url, OME_ACCESS_TOKEN=TEST_TOKEN,
               OMECONSOLE_AUDIT_LOG=str(tmp_path / "audit.jsonl"), OMECONSOLE_CONFIG=str(config),
               OMECONSOLE_SCHEDULES=str(tmp_path / "schedules.toml"))
    return env


class Child:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.events: list[dict[str, Any]] = []

    async def until(self, kind: str) -> dict[str, Any]:
        """The next event of `kind` the scheduler prints (every one before it is kept in `events`)."""
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), WAIT_S)
            assert line, f"the scheduler ended before saying {kind!r}"
            event = json.loads(line)
            self.events.append(event)
            if event["event"] == kind:
                return event


@pytest.fixture
async def simulator() -> AsyncIterator[RunningSimulator]:
    manual = ManualClock()
    async with running_simulator(clock=manual, faults=STALL) as running:
        manual.advance(20)
        yield running


async def _start(env: dict[str, str], *extra: str) -> Child:
    return Child(await asyncio.create_subprocess_exec(
        str(BIN / "omeconsole"), "scheduler", "--json", *extra, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE))


async def _stop(child: Child, *, signal_it: bool = True) -> tuple[int, bytes]:
    """SIGTERM (unless it ends by itself), then its exit status and what it said on stderr."""
    if signal_it and child.process.returncode is None:
        child.process.send_signal(signal.SIGTERM)
    _out, err = await asyncio.wait_for(child.process.communicate(), WAIT_S)
    assert child.process.returncode is not None
    return child.process.returncode, err


async def _kill(child: Child) -> None:
    if child.process.returncode is None:
        child.process.kill()
        await child.process.wait()


async def _held(simulator: RunningSimulator) -> None:
    faults = simulator.faults
    assert faults is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while faults.http.held < 1:  # the server holds the scheduler's applied POST
        assert loop.time() < deadline, "the scheduled POST never arrived"
        await asyncio.sleep(0.01)


async def test_killed_between_the_intent_and_the_answer_it_does_not_resend_on_restart(
        simulator: RunningSimulator, tmp_path: Path) -> None:
    config, run = _config(tmp_path)
    env = _env(simulator, tmp_path, config)
    audit = tmp_path / "audit.jsonl"
    first = await _start(env)
    try:
        await first.until("started")
        await _held(simulator)
        lines = [json.loads(line) for line in audit.read_text().splitlines()]
        assert [line["type"] for line in lines] == ["intent"] and lines[0]["origin"] == "schedule:spots"
        first.process.send_signal(signal.SIGKILL)
        await first.process.wait()
    finally:
        await _kill(first)
    second = await _start(env)
    try:
        unknown = await second.until("unknown")
        assert unknown["send_id"] == lines[0]["id"] and unknown["schedule"] == "spots"
        assert "unknown outcome" in unknown["message"] and "it is not sent again" in unknown["message"]
        await second.until("started")
        status, err = await _stop(second)
    finally:
        await _kill(second)
    assert status == 0, err
    assert not [e for e in second.events if e["event"] in ("missed", "sent")]  # not sent late, not twice
    assert simulator.faults is not None and simulator.faults.counts()["POST"] == 1
    stream = simulator.world.find_stream("default", "app", "stream")
    assert stream is not None and len(stream.events.events) == 1
    assert [json.loads(line)["type"] for line in audit.read_text().splitlines()] == ["intent"]
    assert run.second == datetime.fromisoformat(lines[0]["time"]).second


async def test_a_second_scheduler_is_refused_with_the_holder_named(simulator: RunningSimulator, tmp_path: Path) -> None:
    config, _run = _config(tmp_path, lead_s=50)
    env = _env(simulator, tmp_path, config)
    first = await _start(env)
    try:
        await first.until("started")
        second = await _start(env)
        status, err = await _stop(second, signal_it=False)
        assert status == 1
        assert f"already run by omeconsole scheduler pid {first.process.pid} on " in err.decode()
        status, err = await _stop(first)
        assert status == 0, err
        assert first.events[-1]["event"] != "sent"
    finally:
        await _kill(first)


@pytest.mark.parametrize(("setup", "status", "words"), [
    ("bad", 2, "[[schedules]] #1 (spots): key 'timezone': no time zone named 'Moon/Base'"),
    ("read-only", 6, "read-only mode: nothing is sent: schedules are not run in read-only mode"),
])
async def test_nothing_starts_on_a_bad_file_or_in_read_only_mode(simulator: RunningSimulator, tmp_path: Path,
                                                                 setup: str, status: int, words: str) -> None:
    config, _run = _config(tmp_path, lead_s=50)
    if setup == "bad":
        config.write_text(config.read_text() + 'timezone = "Moon/Base"\n')
    child = await _start(_env(simulator, tmp_path, config), *(["--read-only"] if setup == "read-only" else []))
    try:
        code, err = await _stop(child, signal_it=False)
    finally:
        await _kill(child)
    assert code == status and words in err.decode()
    assert setup == "read-only" or f"{config}: [[schedules]]" in err.decode()
    assert not (tmp_path / "audit.jsonl").exists()


async def test_without_json_every_event_is_one_line_on_stderr_and_stdout_stays_empty(
        simulator: RunningSimulator, tmp_path: Path) -> None:
    config, _run = _config(tmp_path, lead_s=50)
    child = await asyncio.create_subprocess_exec(
        str(BIN / "omeconsole"), "scheduler", env=_env(simulator, tmp_path, config), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        assert child.stderr is not None
        first = await asyncio.wait_for(child.stderr.readline(), WAIT_S)
        child.send_signal(signal.SIGTERM)
        out, rest = await asyncio.wait_for(child.communicate(), WAIT_S)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0 and out == b""
    assert re.fullmatch(rb"\d{4}-\d\d-\d\dT[\d:.]+\+00:00 started: 1 schedule\(s\) from .*\n", first), first
    assert re.search(rb"\+00:00 stopped: stopped\n$", rest), rest

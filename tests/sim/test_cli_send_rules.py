"""A send says what happened on air (issue 26): the CLI reads the playlist first and refuses what the server
would drop, with exit 8 and the rule in words, and nothing POSTed; `--force` sends it anyway.

The simulator runs in this process on the system clock (the CLI, another process, compares the playlist's
times with its own clock); the CLI runs as the operator runs it. The simulator's request counter (its
`faults`, installed with an empty spec) counts every POST that reached it, whoever sent it.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.cli import exit_codes
from simulator.http.auth import basic_header
from simulator.http.server import RunningSimulator
from simulator.world.clock import SystemClock

BIN = Path(sys.executable).parent
CUE_OUT_30 = b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}'


@dataclass(frozen=True)
class Ran:
    status: int
    out: str
    err: str
    posts: int
    """POSTs that reached the server while the command ran."""


@pytest.fixture
async def sim(tmp_path: Path) -> AsyncIterator[RunningSimulator]:
    async with running_simulator(clock=SystemClock(), faults="") as simulator:
        yield simulator


async def _cli(simulator: RunningSimulator, tmp_path: Path, *args: str) -> Ran:
    assert simulator.faults is not None
    before = simulator.faults.http.counts["POST"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
    env.update(OME_API_URL=simulator.api_url, OME_PUBLISHER_URL=simulator.publisher_url, OME_ACCESS_TOKEN=TEST_TOKEN,
               OMECONSOLE_AUDIT_LOG=str(tmp_path / "audit.jsonl"), OMECONSOLE_CONFIG=str(tmp_path / "absent.toml"))
    child = await asyncio.create_subprocess_exec(str(BIN / "omeconsole"), *args, env=env,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(child.communicate(), 60)
    assert child.returncode is not None
    return Ran(child.returncode, out.decode(), err.decode(), simulator.faults.http.counts["POST"] - before)


async def _post_cue_out(simulator: RunningSimulator, stream: str) -> None:
    """A cue-out straight to the API, as automation or a second operator sends it (not through the console)."""
    async with httpx.AsyncClient(base_url=simulator.api_url, timeout=10,
                                 headers={"Authorization": basic_header(TEST_TOKEN)}) as http:
        reply = await http.post(f"/v1/vhosts/default/apps/app/streams/{stream}:sendEvent", content=CUE_OUT_30)
        assert reply.status_code == 200


async def _until_on_air(simulator: RunningSimulator, stream: str) -> None:
    """Until the chunklist lists the break's first part: each reload blocks until the next part exists."""
    async with httpx.AsyncClient(base_url=simulator.publisher_url, timeout=10) as http:
        master = (await http.get(f"/app/{stream}/llhls.m3u8")).text
        chunklist = f"/app/{stream}/" + next(line for line in master.splitlines() if line and line[0] != "#")
        params: dict[str, str] = {}
        for _ in range(40):
            text = (await http.get(chunklist, params=params)).text
            if "#EXT-X-CUE-OUT:" in text:
                return
            hint = re.search(r'PRELOAD-HINT:TYPE=PART,URI="part_\d+_(\d+)_(\d+)_', text)
            assert hint is not None, text
            params = {"_HLS_msn": hint[1], "_HLS_part": hint[2]}
    raise AssertionError("the break never went on air")


async def test_a_cue_out_inside_a_break_is_refused_and_a_cue_in_let_through(sim, tmp_path: Path) -> None:
    await _post_cue_out(sim, "stream")  # not sent by this console: known from the playlist only
    await _until_on_air(sim, "stream")
    inside = await _cli(sim, tmp_path, "cue-out", "default/app/stream", "--duration", "30")
    assert (inside.status, inside.posts) == (exit_codes.NEEDS_FORCE, 0), inside.err
    assert "a break is already on air since" in inside.err
    assert "the server drops a cue-out inside a break" in inside.err and "--force" in inside.err
    assert not (tmp_path / "audit.jsonl").exists()  # nothing was about to leave
    forced = await _cli(sim, tmp_path, "cue-out", "default/app/stream", "--duration", "30", "--force")
    assert (forced.status, forced.posts) == (exit_codes.OK, 1), forced.err
    assert "accepted by the server; not yet seen in the playlist" in forced.out
    cue_in = await _cli(sim, tmp_path, "cue-in", "default/app/stream")  # the break on air is a break to end
    assert (cue_in.status, cue_in.posts) == (exit_codes.OK, 1), cue_in.err
    assert "HTTP 200 OK\naccepted by the server; not yet seen in the playlist\n" in cue_in.out
    assert "warning" not in cue_in.err


async def test_a_break_not_longer_than_one_and_a_half_segments_is_refused(sim, tmp_path: Path) -> None:
    short = await _cli(sim, tmp_path, "cue-out", "default/app/news", "--duration", "5")
    assert (short.status, short.posts) == (exit_codes.NEEDS_FORCE, 0), short.err
    assert ("the server drops a break of 5 s: it must be longer than 1.5 x the segment duration (9 s)"
            in short.err)
    forced = await _cli(sim, tmp_path, "cue-out", "default/app/news", "--duration", "5", "--force")
    assert (forced.status, forced.posts) == (exit_codes.OK, 1), forced.err


async def test_a_cue_in_with_no_break_is_refused(sim, tmp_path: Path) -> None:
    lone = await _cli(sim, tmp_path, "cue-in", "default/app/sports")
    assert (lone.status, lone.posts) == (exit_codes.NEEDS_FORCE, 0), lone.err
    assert "no ad break is on air on this stream: the server drops a cue-in outside a break" in lone.err
    assert "its first marker must be an out" in lone.err
    forced = await _cli(sim, tmp_path, "cue-in", "default/app/sports", "--force")
    assert (forced.status, forced.posts) == (exit_codes.OK, 1), forced.err


async def test_a_cue_in_on_an_unknown_stream_is_refused_because_the_check_could_not_run(
        sim, tmp_path: Path) -> None:
    unknown = await _cli(sim, tmp_path, "cue-in", "default/app/no-such-stream")
    assert (unknown.status, unknown.posts) == (exit_codes.NEEDS_FORCE, 0), unknown.err
    assert "the stream's playlist could not be read" in unknown.err and "could not be checked" in unknown.err
    forced = await _cli(sim, tmp_path, "cue-in", "default/app/no-such-stream", "--force")
    assert (forced.status, forced.posts) == (exit_codes.REFUSED, 1), forced.err  # sent; the server says 404
    assert "no-such-stream" in forced.err

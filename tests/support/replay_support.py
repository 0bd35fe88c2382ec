"""The console's commands run in this process against `OmeReplay`, on one FakeClock that a test drives.

`run_command` parses the command line as `omeconsole` does, builds the session from the same connector as
the command line (only the clock is the test's) and runs the command while `drive` moves the clock: it
advances by `step` each time the command has nothing left to do but wait on the clock, so a command that
waits 15 s of the clock's time takes a few hundred loop turns, never 15 s. What the command printed is read
from pytest's `capsys`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fake_clock import FakeClock
from ome_replay import OmeReplay

from omeconsole.api.errors import OmeError
from omeconsole.cli import exit_codes
from omeconsole.cli.commands import UsageError
from omeconsole.cli.exit_handling import reported
from omeconsole.cli.main import _dispatch, _settings
from omeconsole.cli.parser import build_parser
from omeconsole.core.session import connector

STREAM = "default/app/stream"
CAPTURE_START = datetime(2026, 11, 29, 0, 5, 9, 299000, tzinfo=UTC)
"""The wall time of the first reading of `stats_stream_series_60s.json`: the console's clock starts there."""
T = TypeVar("T")


@dataclass(frozen=True)
class Ran:
    status: int
    out: str
    err: str
    took: float
    """Seconds of the clock's time the command took."""


def captured_rates(readings: list[dict[str, Any]], series: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(the console's input rate, the truth) for each printed reading with a rate: the truth is the capture's
    own byte delta over its poll times, from the newest printed reading about 5 s older (rates.RATE_WINDOW_S),
    or the first."""
    by_update = {json.loads(r["body"])["response"]["lastUpdatedTime"]: r for r in series}
    shown = [by_update[reading["stats"]["last_updated"]] for reading in readings]

    def total_in(poll: dict[str, Any]) -> int:
        return int(json.loads(poll["body"])["response"]["totalBytesIn"])

    pairs = []
    for index, reading in enumerate(readings):
        if reading["rate_in_bps"] is None:
            continue
        now = shown[index]
        start = max((before for before in shown[:index] if before["t_wall"] <= now["t_wall"] - 4.95),
                    key=lambda before: before["t_wall"], default=shown[0])
        pairs.append((float(reading["rate_in_bps"]),
                      (total_in(now) - total_in(start)) * 8 / (now["t_wall"] - start["t_wall"])))
    return pairs


def replay_clock() -> FakeClock:
    return FakeClock(wall_start=CAPTURE_START)


@contextlib.asynccontextmanager
async def replaying(clock: FakeClock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *,
                    series: str = "60s") -> AsyncIterator[OmeReplay]:
    """The replay, with the environment a command line would have to reach it (no user config)."""
    async with OmeReplay(clock, series=series) as replay:
        for name in ("OME_STREAM", "OME_PROFILE", "OMECONSOLE_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OME_API_URL", replay.api_url)
        monkeypatch.setenv("OME_PUBLISHER_URL", replay.publisher_url)
        monkeypatch.setenv("OME_ACCESS_TOKEN", replay.token)
        monkeypatch.setenv("OMECONSOLE_CONFIG", str(tmp_path / "absent.toml"))
        monkeypatch.setenv("OMECONSOLE_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
        yield replay


async def drive(clock: FakeClock, work: Awaitable[T], *, step: float = 0.05, limit: float = 120.0) -> T:
    """`work` run to its end while the clock moves by `step` whenever everything else waits on it.

    "Everything else waits" is read from the loop: the work has not finished after the loop has run every
    ready callback twice over. `limit` bounds the clock's time, so a command that never ends fails the test.
    """
    task = asyncio.ensure_future(work)
    start = clock.monotonic()
    while not task.done():
        for _ in range(20):
            await asyncio.sleep(0)
            if task.done():
                break
        if task.done():
            break
        if clock.monotonic() - start > limit:
            task.cancel()
            raise AssertionError(f"still running after {limit} s of the clock")
        clock.advance(step)
    return task.result()


async def run_command(clock: FakeClock, capsys: pytest.CaptureFixture[str], *argv: str,
                      step: float = 0.05) -> Ran:
    """`omeconsole ARGV...` in this process on `clock` (the environment set by `replaying`)."""
    args = build_parser().parse_args(list(argv))
    session = connector(clock)(_settings(args))
    capsys.readouterr()
    start = clock.monotonic()
    failure: Exception | None = None
    status = exit_codes.OK
    try:
        status = await drive(clock, _dispatch(session, args), step=step)
    except (OmeError, UsageError) as error:
        failure = error
    finally:
        await session.aclose()

    def outcome() -> int:  # the command line's own reporting of a failure (its message and exit status)
        if failure is not None:
            raise failure
        return status

    status = reported(outcome)
    captured = capsys.readouterr()
    return Ran(status, captured.out, captured.err, clock.monotonic() - start)


async def until(clock: FakeClock, condition: Callable[[], bool], *, step: float = 0.05, limit: float = 60.0) -> None:
    """Moves the clock by `step` until `condition` holds (bounded by `limit` seconds of the clock)."""
    start = clock.monotonic()
    while not condition():
        for _ in range(20):
            await asyncio.sleep(0)
        if condition():
            return
        if clock.monotonic() - start > limit:
            raise AssertionError(f"not within {limit} s of the clock")
        clock.advance(step)

"""The console against the real OvenMediaEngine 0.19.0, replayed from its captures (tests/support/ome_replay.py).

Two figures, each against the real server's own record as its baseline:

- **Rate error**: `omeconsole stats --watch --format json` over the captured 60 s statistics series; each
  input rate the console printed against the capture's byte delta over the same window (the console's ~5 s
  window, from the newest captured reading at least 4.95 s older). Median and worst absolute error.
- **Cue-out 200 → "splice seen"**: `omeconsole cue-out --duration 30 --wait-confirm` against the replay,
  whose playlists change as the real server's did (the captured versions, at their captured offsets); the
  console's clock time from the request's answer to the confirmation, against the capture's own moment the
  cut was first listed after the request.

Everything runs on the console's FakeClock (`drive` advances it whenever the command only waits on it), so
the figures are the console's behaviour on the server's timeline, not this machine's speed; the script also
prints the real CPU time the runs took.

    .venv/bin/python bench/bench_replay.py [--step 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from fake_clock import FakeClock
from ome_replay import FIXTURES, OmeReplay
from replay_support import STREAM, captured_rates, drive, replay_clock

from omeconsole.cli.main import _dispatch, _settings
from omeconsole.cli.parser import build_parser
from omeconsole.core.session import connector

SERIES = json.loads((FIXTURES / "stats_stream_series_60s.json").read_text())
CUT_LISTED_AFTER_S = 1.21
"""markers/versions: the chunklist first listing the cut, read 1.21 s after the cue-out's answer (the capture)."""


@contextlib.contextmanager
def environment(replay: OmeReplay, audit: Path) -> Iterator[None]:
    names = {"OME_API_URL": replay.api_url, "OME_PUBLISHER_URL": replay.publisher_url,
             "OME_ACCESS_TOKEN": replay.token, "OMECONSOLE_CONFIG": str(audit.parent / "absent.toml"),
             "OMECONSOLE_AUDIT_LOG": str(audit)}
    saved = {name: os.environ.get(name) for name in [*names, "OME_STREAM", "OME_PROFILE", "OMECONSOLE_PROFILE"]}
    os.environ.update(names)
    for name in ("OME_STREAM", "OME_PROFILE", "OMECONSOLE_PROFILE"):
        os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


async def run(clock: FakeClock, step: float, *argv: str) -> tuple[int, str, float]:
    """`omeconsole ARGV...` on `clock`: its exit status, what it printed, and the clock's seconds it took."""
    args = build_parser().parse_args(list(argv))
    session = connector(clock)(_settings(args))
    out = io.StringIO()
    start = clock.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = await drive(clock, _dispatch(session, args), step=step)
    finally:
        await session.aclose()
    return status, out.getvalue(), clock.monotonic() - start


def rate_errors(printed: str) -> list[float]:
    readings = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    return [abs(shown - truth) / truth * 100 for shown, truth in captured_rates(readings, SERIES)]


async def main_async(step: float) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        clock = replay_clock()
        cpu = time.process_time()
        async with OmeReplay(clock, series="60s") as replay:
            with environment(replay, Path(scratch) / "audit-rates.jsonl"):
                status, printed, _ = await run(clock, step, "stats", STREAM, "--watch", "--count", "60",
                                               "--format", "json")
        errors = rate_errors(printed)
        rates_cpu = time.process_time() - cpu
        clock = replay_clock()
        cpu = time.process_time()
        async with OmeReplay(clock, series="60s") as replay:
            with environment(replay, Path(scratch) / "audit-cue.jsonl"):
                cue_status, cue_printed, took = await run(clock, step, "cue-out", STREAM, "--duration", "30",
                                                          "--wait-confirm")
        cue_cpu = time.process_time() - cpu
    seen_line = next((line for line in cue_printed.splitlines() if "splice seen" in line), "(no splice seen)")
    print(f"rate error, console vs captured byte deltas: {len(errors)} readings (exit {status}); "
          f"median {statistics.median(errors):.3f} %, worst {max(errors):.3f} %  (CPU {rates_cpu:.2f} s)")
    print(f"cue-out --wait-confirm: exit {cue_status}; {took:.2f} s of the console's clock from the command's "
          f"start to the confirmation (the capture listed the cut {CUT_LISTED_AFTER_S} s after the answer: "
          f"{took / CUT_LISTED_AFTER_S:.2f}x)  (CPU {cue_cpu:.2f} s)")
    print(f"  {seen_line.strip()}")
    print("  " + "\n  ".join(cue_printed.strip().splitlines()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=float, default=0.05, help="the console clock's step while it waits (s)")
    asyncio.run(main_async(parser.parse_args().step))


if __name__ == "__main__":
    main()

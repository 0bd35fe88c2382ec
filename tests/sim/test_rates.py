"""Rates held to the truth: real playlist fetches against the simulator between polls, one fake clock for the
world and the console, and the console's rate compared with the traffic's true rate over the window it
says it covers.

Tolerance: 1 % of the true rate for a stream people watch (in and out). For a stream nobody watches,
its out is only the fetched playlists, counted by the simulator at once while its ticks count ingest once
a second: there the bound is 1 % plus one second's fetched bytes at each end of the window.
"""

from __future__ import annotations

import random

import pytest
from fake_clock import FakeClock
from rate_truth import Run, errors, play
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath

WATCHED = NodePath("default", "app", "stream")  # 4.5 Mb/s, about 45 viewers
UNWATCHED = NodePath("default", "app", "backup")  # 6 Mb/s in, nobody watching
TOLERANCE = 0.01


async def run_against_the_simulator(path: NodePath, fetches_per_s: int, interval_steps: int,
                                    seconds: float = 30.0) -> Run:
    clock = FakeClock()
    async with running_simulator(clock=clock) as sim, OmeClient(sim.api_url, TEST_TOKEN) as client:
        engine = PollingEngine(client, clock, PollSettings(interval=interval_steps / 10), rng=random.Random(1))
        return await play(sim, engine, clock, path, fetches_per_s=fetches_per_s, seconds=seconds,
                          interval_steps=interval_steps, offset_steps=3)


@pytest.mark.parametrize("fetches_per_s", [0, 2, 10])
async def test_playlist_fetches_between_polls_never_move_the_rate(fetches_per_s: int) -> None:
    run = await run_against_the_simulator(WATCHED, fetches_per_s, interval_steps=10)
    if fetches_per_s:
        assert len(run.truth.fetched) >= fetches_per_s * 29  # the fetches did happen, and moved the counters
        assert all(size > 0 for _, size in run.truth.fetched)
    rated = errors(run)
    assert len(rated) >= 2 * 25
    assert max(rated) <= TOLERANCE, max(rated)
    assert not any(sample.disagree for _, sample in run.samples)  # and the server's own figures agree


@pytest.mark.parametrize("interval_steps", [5, 7, 13])
async def test_polls_at_any_phase_of_the_servers_counter_steps_give_the_true_rate(interval_steps: int) -> None:
    """Every 0.5, 0.7 and 1.3 s: a window on the console's clock would hold one counter step more or less
    than its length (0.7 s polls, 5 s windows: 5.6 s with 5 or 6 steps); on the server's ingress clock it
    holds whole steps."""
    run = await run_against_the_simulator(WATCHED, 10, interval_steps)
    rated = errors(run)
    assert max(rated) <= TOLERANCE, max(rated)
    assert {sample.window_clock for _, sample in run.samples if sample.window_s} == {"server"}
    assert not any(sample.disagree for _, sample in run.samples)


async def test_a_stream_nobody_watches_shows_its_ingest_and_its_fetched_playlists() -> None:
    run = await run_against_the_simulator(UNWATCHED, 10, interval_steps=7)
    per_second = 8 * sum(size for _, size in run.truth.fetched) / 30  # bits a second of fetched playlists
    checked = 0
    for now_s, sample in run.samples:
        if sample.window_s is None or now_s >= run.truth.ticks[-1][0]:
            continue
        assert sample.stats.last_recv is not None
        end = run.truth.world_seconds(sample.stats.last_recv)
        true_in, true_out = run.truth.true_rate(end - sample.window_s, end)
        assert sample.rate_in_bps == pytest.approx(true_in, rel=TOLERANCE)
        assert sample.rate_out_bps is not None
        assert abs(sample.rate_out_bps - true_out) <= TOLERANCE * true_out + 2 * per_second / sample.window_s
        checked += 1
    assert checked >= 30 and per_second > 0

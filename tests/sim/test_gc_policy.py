"""The process's garbage collection (`cli/gc_policy.py`) and Textual's private API (`ui/textual_compat.py`).

What the console promises: what is long-lived is frozen at its start (the engine knows nothing of it), no
collection stands in the first screen's way, and a Textual version the compatibility module was not
written for is left alone and said so. The promise "no GC pause over 50 ms" is measured by
`bench/bench_tui.py --phase history` (BENCHMARKS.md), not here. The tuning is process-wide: the console's
real tuning runs in a process of its own (`textual_compat_probe.py`)."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_clock import FakeClock
from fake_ome_server import FakeOme
from textual.strip import Strip

from omeconsole.api.client import DETECTION_REQUESTS
from omeconsole.cli.gc_policy import MIDDLE_EVERY, ConsoleStart
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.ui.textual_compat import WRITTEN_FOR, installed_textual, uncycle_strips

PROBE = Path(__file__).parents[1] / "support" / "textual_compat_probe.py"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """This test worker's collector as it was after the test: the freezes are for a console process."""
    gc.unfreeze()
    was_enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


async def test_the_first_complete_listing_freezes_what_was_allocated_so_far(unfrozen: None) -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=2, apps_per_vhost=3, streams_per_app=10)
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(request_budget=float(DETECTION_REQUESTS)),
                               rng=random.Random(1))
        ConsoleStart().engine_started(engine)
        gc.unfreeze()  # what the start froze: this test looks at the listing's freeze
        await engine.poll_cycle()  # the budget allows the detection, not yet the apps' listings
        assert engine.listing() and gc.get_freeze_count() == 0
        for _ in range(4):
            clock.advance(1.0)
            await engine.poll_cycle()
        assert [len(apps) for apps in engine.listing().values()] == [3, 3]
        assert gc.get_freeze_count() > 0  # everything listed once: the long-lived objects are set aside


async def test_while_collections_are_held_off_the_first_listing_leaves_collecting_to_the_first_screen(
        unfrozen: None) -> None:
    """The console's start holds collections off until its first screen is drawn, then collects and freezes:
    a collection at the first listing would only stand in the first screen's way."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=2, apps_per_vhost=3, streams_per_app=10)
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.disable()
    gc.callbacks.append(count)
    start = ConsoleStart()
    try:
        async with fake.serving(), fake.client() as client:
            engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
            start.engine_started(engine)
            gc.unfreeze()
            for _ in range(4):
                await engine.poll_cycle()
                clock.advance(1.0)
            assert [len(apps) for apps in engine.listing().values()] == [3, 3]
            assert collections == [] and gc.get_freeze_count() == 0
            start.first_screen_drawn()
            assert gc.isenabled() and collections == [2] and gc.get_freeze_count() > 0
    finally:
        gc.callbacks.remove(count)


async def test_an_engine_that_starts_freezes_what_exists_and_an_engine_alone_freezes_nothing(unfrozen: None) -> None:
    """Modules, the app and its screens: frozen when the console's engine starts; the engine itself, as a
    library user or a test runs it, never touches the collector."""
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=2, streams_per_app=3)
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
        task = asyncio.create_task(engine.run())
        try:
            for _ in range(4):
                await asyncio.wait_for(clock.parked(1), 10)
                clock.advance(1.0)
            assert engine.listing()["vh0"]["app1"].live == ("s0", "s1", "s2")
            assert gc.get_freeze_count() == 0
            ConsoleStart().engine_started(engine)
            assert gc.get_freeze_count() > 0
        finally:
            engine.stop()
            await asyncio.wait_for(task, 10)


def test_on_a_textual_version_it_was_not_written_for_the_compatibility_module_changes_nothing_and_says_so() -> None:
    divide, crop_extend = Strip.divide, Strip.crop_extend
    compat = uncycle_strips("9.0.0")
    assert not compat.applied
    assert "Textual 9.0.0 is not a version" in compat.words and "left as they are" in compat.words
    assert (Strip.divide, Strip.crop_extend) == (divide, crop_extend)


def test_the_textual_the_lock_file_installs_is_one_the_compatibility_module_was_written_for() -> None:
    assert installed_textual() in WRITTEN_FOR


def test_a_console_on_the_known_textual_draws_as_before_and_leaves_nothing_it_draws_to_the_cycle_collector() -> None:
    result = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=120,
                            cwd=PROBE.parent)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    before, after = found["before"], found["after"]
    # Strips divide and crop exactly as Textual's own methods did ...
    assert (after["cuts"], after["crops"]) == (before["cuts"], before["crops"])
    # ... what is drawn is freed as soon as it is replaced, never left for a full collection ...
    assert after["left"] == 0, after
    assert before["middle_every"] == 10 and after["middle_every"] == MIDDLE_EVERY
    # ... and --debug says what was done.
    assert any(f"Textual {installed_textual()}: strips" in words for words in after["said"]), after["said"]
    assert any(f"thresholds (700, {MIDDLE_EVERY}" in words for words in after["said"]), after["said"]

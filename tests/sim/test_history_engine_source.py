"""The recorder's view of the polling engine: what an engine read before the recorder followed it is
recorded too (the command line starts the first session while the UI loads, before the console's
recorder exists), and nothing is passed on twice."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from ui_support import SEED, ThreadedSimulator, make_settings

from omeconsole.core.clock import SystemClock
from omeconsole.core.history.engine_source import EngineSampleSource
from omeconsole.core.history.observations import Observation, ObservedSample, ServerId
from omeconsole.core.session import connector
from omeconsole.model.paths import NodePath

NEWS = NodePath("default", "app", "news")


async def test_readings_taken_before_the_recorder_followed_are_recorded_once(tmp_path: Path) -> None:
    with ThreadedSimulator() as simulator:
        session = connector(SystemClock(), rng=random.Random(SEED), audit_path=tmp_path / "audit.jsonl")(
            make_settings(simulator.api_url))
        engine = session.engine
        engine.select(NEWS)
        running = asyncio.create_task(engine.run())
        try:
            arrived = asyncio.Event()
            stop = engine.add_listener(lambda _update: arrived.set())
            while engine.node(NEWS).latest is None:  # the first reading, with nobody recording yet
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 30)
            first = engine.node(NEWS).latest
            assert first is not None

            recorded: list[Observation] = []
            unsubscribe = EngineSampleSource(engine, session.clock, ServerId.from_url(simulator.api_url)) \
                .subscribe(recorded.append)
            samples = [o for o in recorded if isinstance(o, ObservedSample) and o.path == NEWS]
            assert [o.sample.at for o in samples] == [first.at], "the reading taken before is recorded, once"

            engine.refresh_now()  # and what comes after follows as before, never the first one again
            while len([o for o in recorded if isinstance(o, ObservedSample) and o.path == NEWS]) < 2:
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 30)
            stop()
            ats = [o.sample.at for o in recorded if isinstance(o, ObservedSample) and o.path == NEWS]
            assert ats[0] == first.at and len(set(ats)) == len(ats)
            unsubscribe()
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await session.aclose()

"""The engine cannot die of one bad item: a hostile server on loopback (names the API cannot address,
numbers and times out of any range, wrong types) and a bug of our own in one job. The good nodes keep
polling, the bad ones are shown for what they are, every failure is counted and the loop never ends."""

from __future__ import annotations

import asyncio
import math
import random
from typing import Any

import pytest
from fake_clock import FakeClock
from fake_ome_server import IN_BYTES_PER_S, FakeOme

from omeconsole.api.client import OmeClient
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats

GOOD = NodePath("vh0", "app0", "s0")
BAD_NAMES = ["a/b", "", "\ud800", ".."]
ODD_NAMES = ["x\x00y", "\x1b]0;pwned\x07", "s p a c e", "%2F"]
"""Strange but addressable: percent-encoded in the URL, polled like any other."""
HOSTILE_VALUES: list[tuple[str, Any]] = [
    ("providers.totalBytesIn", 10**400),
    ("publishers.totalBytesOut", -5),
    ("providers.totalBytesIn", "12345"),
    ("publishers.totalConnections", 10**30),
    ("createdTime", "9999-12-31T23:59:59-23:59"),
    ("providers.lastRecvTime", "9999-12-31T23:59:59-23:59"),
    ("providers.lastRecvTime", "0001-01-01T00:00:00+14:00"),
    ("lastUpdatedTime", None),
    ("providers", []),
]


def hostile_fake(clock: FakeClock) -> FakeOme:
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=2, streams_per_app=3)
    fake.tree["vh0"]["app0"] += BAD_NAMES + ODD_NAMES
    fake.tree["vh0"]["a/b"] = ["s"]  # an app the API cannot address, with a stream under it
    fake.tree["\ud800"] = {"app": ["s"]}  # and a vhost
    return fake


async def cycles(engine: PollingEngine, clock: FakeClock, count: int) -> None:
    for _ in range(count):
        await engine.poll_cycle()
        clock.advance(1.0)


async def test_names_the_api_cannot_address_are_listed_flagged_and_never_polled() -> None:
    clock = FakeClock()
    fake = hostile_fake(clock)
    bad = [NodePath("vh0", "app0", name) for name in BAD_NAMES]
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
        engine.select(bad[0])
        odd = [NodePath("vh0", "app0", name) for name in ODD_NAMES]
        engine.set_on_screen([*bad, *odd, GOOD, NodePath("vh0", "a/b"), NodePath("vh0", "a/b", "s"),
                              NodePath("\ud800")],
                             [NodePath("vh0", "app0"), NodePath("vh0", "a/b")])
        await cycles(engine, clock, 12)
        listing = engine.listing()
        assert listing["vh0"]["app0"].live == ("s0", "s1", "s2", *BAD_NAMES, *ODD_NAMES)
        assert "a/b" in listing["vh0"] and "\ud800" in listing
        for path in (*bad, NodePath("vh0", "a/b"), NodePath("vh0", "a/b", "s"), NodePath("\ud800")):
            assert engine.node(path).state is NodeState.UNADDRESSABLE
        assert engine.node(GOOD).state is NodeState.LIVE
        assert [engine.node(path).state for path in odd] == [NodeState.LIVE] * len(odd)
        assert engine.node(GOOD).latest is not None and engine.node(GOOD).latest.rate_in_bps == IN_BYTES_PER_S * 8
        asked = {path for _, path in fake.requests}
        assert not [p for p in asked if "a/b" in p or p.endswith("/streams/") or "/.." in p]
        assert engine.connection.status == "connected" and engine.connection.errors_total == 0


@pytest.mark.parametrize(("field", "value"), HOSTILE_VALUES, ids=[f"{f}={v!r}"[:40] for f, v in HOSTILE_VALUES])
async def test_values_out_of_range_never_crash_never_poison_and_the_others_keep_polling(field: str,
                                                                                       value: Any) -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    poisoned, good = NodePath("vh0", "app0", "s1"), NodePath("vh0", "app0", "s2")
    async with fake.serving(), fake.client() as client:
        engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
        engine.select(poisoned)
        engine.set_on_screen([poisoned, good, NodePath("vh0", "app0")])
        await cycles(engine, clock, 4)
        fake.overrides["vh0/app0/s1"] = {field: value}
        await cycles(engine, clock, 6)
        del fake.overrides["vh0/app0/s1"]
        await cycles(engine, clock, 4)
        assert engine.node(good).state is NodeState.LIVE  # the others kept polling all along
        assert all(s.rate_in_bps == IN_BYTES_PER_S * 8 for s in list(engine.node(good).history)[1:])
        view = engine.node(poisoned)
        assert view.state is NodeState.LIVE and view.error is None  # and the bad one is back
        for sample in view.history:
            for rate in (sample.rate_in_bps, sample.rate_out_bps):
                assert rate is None or (math.isfinite(rate) and 0 <= rate <= 40 * IN_BYTES_PER_S * 8), sample
        for peak in (view.peak_rate_in_bps, view.peak_rate_out_bps):
            assert peak is not None and peak <= 40 * IN_BYTES_PER_S * 8  # a bad value never became a peak
        assert view.latest is not None and view.latest.rate_in_bps == IN_BYTES_PER_S * 8
        assert engine.connection.status == "connected"


class BuggyClient(OmeClient):
    """A bug of our own that no server can produce: one path's reading blows up inside the client."""

    def __init__(self, *args: Any, broken: NodePath, error: Exception, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._broken, self._error = broken, error

    async def stats(self, path: NodePath) -> NodeStats:
        if path == self._broken:
            raise self._error
        return await super().stats(path)


@pytest.mark.parametrize("error", [ValueError("bad path segment"), OverflowError("int too large to convert"),
                                   KeyError("providers"), ZeroDivisionError("division by zero")])
async def test_any_exception_in_one_job_is_counted_and_shown_and_the_loop_goes_on(error: Exception) -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=3)
    broken, good = NodePath("vh0", "app0", "s1"), NodePath("vh0", "app0", "s2")
    async with fake.serving():
        async with BuggyClient(fake.url, fake.token, broken=broken, error=error) as client:
            engine = PollingEngine(client, clock, PollSettings(), rng=random.Random(1))
            engine.select(good)
            engine.set_on_screen([broken, good])
            task = asyncio.create_task(engine.run())
            try:
                for _ in range(20):
                    clock.advance(0.5)
                    await asyncio.wait_for(clock.parked(1), 10)
                assert not task.done()
            finally:
                engine.stop()
                await asyncio.wait_for(task, 10)
        link = engine.connection
        assert link.status == "connected" and link.errors_total >= 3
        assert link.last_error is not None and type(error).__name__ in link.last_error
        view = engine.node(broken)
        assert view.error is not None and "internal error" in view.error
        assert view.state is NodeState.UNKNOWN or view.state is NodeState.STALE
        assert engine.node(good).state is NodeState.LIVE and len(engine.node(good).history) >= 8

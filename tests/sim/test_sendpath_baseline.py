"""A send never waits for the playlist longer than its own short baseline deadline.

Before the change, a publisher trickling one byte a second held `cue-out --wait-confirm`'s POST back by
55.6 s, because the baseline read came first and had no deadline. Here the publisher accepts the
connection and never answers: the baseline wait ends on the console's clock, the request goes, and the
playlist is compared later (a marker then counts only if it splices after the send).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath

STREAM = NodePath("default", "app", "stream")


@pytest.fixture
async def silent_publisher() -> AsyncIterator[str]:
    """A TCP server that takes connections and requests and never says a word."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    for writer in held:
        writer.close()
    server.close()
    await server.wait_closed()


async def test_a_silent_publisher_delays_the_post_by_the_baseline_deadline_only(
        silent_publisher: str, tmp_path: Path) -> None:
    clock = FakeClock()
    async with running_simulator() as simulator, OmeClient(simulator.api_url, TEST_TOKEN) as client:
        ops = AdOps(client, AuditLog(tmp_path / "audit.jsonl"), clock,
                    ServerContext(client.api_url, None, read_only=False), publisher_url=silent_publisher)
        controller = ops.stream(STREAM)
        try:
            with controller.watch():
                waiting = asyncio.create_task(controller.baseline(2.0))
                while clock.sleepers == 0:  # parked on the clock, and on the publisher
                    await asyncio.sleep(0)
                clock.advance(1.99)
                await asyncio.sleep(0)
                assert not waiting.done()
                clock.advance(0.01)
                assert await asyncio.wait_for(waiting, 10) is False  # no baseline: the rules could not be checked
                plan = controller.plan_cue_out(30)
                assert [w.code for w in plan.to_confirm] == ["check-not-run"]  # the CLI's --force
                outcome = await controller.send(plan, confirmed=plan.warning_codes)
                assert outcome.status == "accepted"
                stream = simulator.world.find_stream("default", "app", "stream")
                assert stream is not None and len(stream.events.events) == 1
                assert controller.playlist is None  # the publisher still has not answered
                assert outcome.confirmation is not None
                clock.advance(15)
                sighting = await asyncio.wait_for(outcome.confirmation, 10)
                assert sighting.detail == ("cue-out in the playlist not seen within 15 s (no playlist read "
                                           "finished: the publisher is slow or silent)")
        finally:
            await ops.aclose()

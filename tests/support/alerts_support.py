"""A real simulator and a real exporter (engine, alert rules, webhooks, HTTP listener) on clocks the test moves.

One interval is one second on both clocks, then one exporter step (an engine cycle and an alert pass).
The audit log is a file of the test's own, written with the console's clock, so nothing of the user's
is read.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fake_clock import FakeClock
from sim_support import TEST_TOKEN, running_simulator

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.state import Transition
from omeconsole.core.alerts.webhook_config import WebhookConfig
from omeconsole.core.config import Settings
from omeconsole.exporter.service import Exporter
from omeconsole.model.paths import NodePath
from simulator.http.server import RunningSimulator
from simulator.world.clock import ManualClock
from simulator.world.topology import Stream


@dataclass
class Rig:
    simulator: RunningSimulator
    world_clock: ManualClock
    console_clock: FakeClock
    exporter: Exporter
    audit: AuditLog
    base_url: str
    transitions: list[Transition]

    async def cycle(self, count: int = 1) -> list[Transition]:
        """`count` intervals: both clocks one second on, then one exporter step; the transitions they made."""
        made: list[Transition] = []
        for _ in range(count):
            self.world_clock.advance(1)
            self.console_clock.advance(1)
            made += await self.exporter.step()
        return made

    def stream(self, name: str) -> Stream:
        return next(s for s in self.simulator.world.live_streams() if s.name == name)

    def path(self, name: str) -> NodePath:
        stream = self.stream(name)
        return NodePath(stream.vhost, stream.app, stream.name)

    def firing(self) -> list[tuple[str, NodePath | None]]:
        return [(a.key.rule, a.key.path) for a in self.exporter.evaluator.firing()]

    def http_faults(self, on: bool) -> None:
        """Switch the simulator's HTTP faults (the rig's `faults=`) on or off."""
        assert self.simulator.faults is not None
        self.simulator.faults.http.active = on

    def input_share(self, name: str, share: float) -> None:
        """The stream's encoder sends `share` of its scenario's bit rate (0: stalled; the stream stays listed)."""
        stream = self.stream(name)
        self.simulator.world.traffic.bitrate_bps[stream.row] = stream.bitrate_kbps * 1000 * share

    async def get(self, path: str, **headers: str) -> httpx.Response:
        async with httpx.AsyncClient(base_url=self.base_url, timeout=10) as http:
            return await http.get(path, headers=headers)


@contextlib.asynccontextmanager
async def exporter_rig(tmp_path: Path, *, rules: Sequence[AlertRule] = (), scenario: Any = "demo",
                       webhooks: Sequence[WebhookConfig] = (), environ: dict[str, str] | None = None,
                       max_streams: int | None = None, faults: str | None = None, edition: str = "enterprise",
                       profile: str | None = None, **settings: Any) -> AsyncIterator[Rig]:
    world_clock, console_clock = ManualClock(), FakeClock()
    extra: dict[str, Any] = {"faults": faults} if faults else {}
    async with running_simulator(scenario, clock=world_clock, edition=edition, **extra) as simulator:  # type: ignore[arg-type]
        if simulator.faults is not None:
            simulator.faults.http.active = False
        audit = AuditLog(tmp_path / "audit.jsonl", now=console_clock.wall)
        config = Settings(api_url=simulator.api_url, token=TEST_TOKEN, alerts=list(rules), webhooks=list(webhooks),
                          profile=profile, timeout=2.0, **settings)
        exporter = Exporter(config, console_clock, max_streams=max_streams, rng=random.Random(5), audit=audit,
                            environ=environ or {})
        transitions: list[Transition] = []
        exporter.evaluator.add_listener(transitions.append)
        async with exporter:
            host, port = await exporter.start_http("127.0.0.1", 0)
            yield Rig(simulator, world_clock, console_clock, exporter, audit, f"http://{host}:{port}", transitions)

"""One exporter for a whole fleet: every server's series labelled with its profile, from one process and one
request budget, and the alert rules judged per server (a dead edge fires `server_down` for that edge only)."""

from __future__ import annotations

import random
from pathlib import Path

import httpx
from fake_clock import FakeClock
from fleet_support import SERVERS, fleet_settings
from prometheus_client.parser import text_string_to_metric_families

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.exporter.service import Exporter
from simulator.http.fleet import start_fleet

STREAM = "default/app/stream"


async def test_one_exporter_serves_every_server_of_the_fleet(tmp_path: Path) -> None:
    clock = FakeClock()
    running = await start_fleet("demo", edges=2, access_tokens=[token for _, token, _ in SERVERS],
                                editions=[edition for _, _, edition in SERVERS], seed=3, clock=clock)
    fleet = fleet_settings("live", [(p, s) for (p, _, _), s in zip(SERVERS, running.servers, strict=True)],
                           alerts=[AlertRule(kind="server_down", scope="edge-*", after=3)])
    exporter = Exporter(fleet.servers[0], clock, fleet=fleet, max_streams=100, rng=random.Random(2),
                        audit=AuditLog(tmp_path / "audit.jsonl"), environ={})
    for server in running.servers:
        server.world.watch_bytes(STREAM)
    try:
        host, port = await exporter.start_http("127.0.0.1", 0)
        for _ in range(8):
            clock.advance(1)
            await exporter.step()
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=10) as http:
            text = (await http.get("/metrics")).text
        families = {family.name: family for family in text_string_to_metric_families(text)}
        up = {s.labels["server"]: s.value for s in families["ome_up"].samples}
        assert up == {"origin": 1.0, "edge-1": 1.0, "edge-2": 1.0}
        editions = {s.labels["server"]: s.labels["edition"] for s in families["ome_server_info"].samples}
        assert editions == {"origin": "enterprise", "edge-1": "oss", "edge-2": "enterprise"}
        def of_stream(family: str) -> dict[str, float]:
            return {s.labels["server"]: s.value for s in families[family].samples
                    if s.labels.get("stream") == "stream" and s.labels.get("app") == "app"}

        out, age = of_stream("ome_bytes_out"), of_stream("ome_sample_age_seconds")
        for (profile, _, _), server in zip(SERVERS, running.servers, strict=True):
            read_at_ms = clock.now_ms() - round(age[profile] * 1000)  # each server's stream, when it was read
            assert out[profile] == server.world.bytes_at(STREAM, read_at_ms)[1]
        # every server's engine took its requests from the one budget
        assert exporter.fleet.budget.rate == fleet.request_budget
        assert all(server.engine.requests_sent > 0 for server in exporter.servers)

        await running.edges[0].stop()
        for _ in range(6):
            clock.advance(1)
            await exporter.step()
        firing = [(alert.key.server, alert.kind) for server in exporter.servers
                  for alert in server.evaluator.firing()]
        assert firing == [("edge-1", "server_down")]
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=10) as http:
            document = (await http.get("/alerts")).json()
            text = (await http.get("/metrics")).text
        assert [(a["server"], a["rule"]) for a in document["alerts"]] == [("edge-1", "server_down")]
        families = {family.name: family for family in text_string_to_metric_families(text)}
        up = {s.labels["server"]: s.value for s in families["ome_up"].samples}
        assert up == {"origin": 1.0, "edge-1": 0.0, "edge-2": 1.0}
    finally:
        await exporter.aclose()
        await running.stop()

"""A real Prometheus scrapes the exporter against a real simulator (`make test-integration`, not `make test`).

Needs Debian's `prometheus` package (`apt-get install -y prometheus`: `prometheus` and `promtool`); skipped,
saying why, without it or outside `make test-integration` (it runs in real time, about 90 s).

- `rate(ome_bytes_out_total[1m])` from Prometheus' query API must match the simulator's own rate over the same
  minute within RATE_TOLERANCE (the exporter reads every second and Prometheus scrapes every second, so its
  window may sit up to about 2 s behind the truth's; the demo's outbound rate moves a few % over that).
- `promtool check metrics` must report nothing on the exposition, in both formats' worth of families.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import Settings
from omeconsole.exporter.service import Exporter
from simulator.http.server import start_simulator
from simulator.world.clock import SystemClock as WorldClock

RATE_TOLERANCE = 0.05
WINDOW_S = 60
TOKEN = "integration-token"

pytestmark = [
    pytest.mark.skipif(os.environ.get("OMECONSOLE_INTEGRATION") != "1",
                       reason="real time, about 90 s: run by `make test-integration`"),
    pytest.mark.skipif(shutil.which("prometheus") is None or shutil.which("promtool") is None,
                       reason="Debian's prometheus package is not installed (apt-get install -y prometheus)"),
    pytest.mark.timeout(300),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _query(prometheus: str, query: str, at: float) -> float | None:
    async with httpx.AsyncClient(timeout=10) as http:
        reply = (await http.get(f"{prometheus}/api/v1/query", params={"query": query, "time": f"{at:.3f}"})).json()
    result = reply["data"]["result"]
    return float(result[0]["value"][1]) if result else None


def _truth_at(samples: list[tuple[float, int]], at: float) -> float:
    """The simulator's counter at wall time `at`, interpolated between the samples taken around it."""
    before = max((s for s in samples if s[0] <= at), key=lambda s: s[0])
    after = min((s for s in samples if s[0] >= at), key=lambda s: s[0], default=before)
    if after[0] == before[0]:
        return float(before[1])
    share = (at - before[0]) / (after[0] - before[0])
    return before[1] + share * (after[1] - before[1])


async def test_prometheus_rate_matches_the_simulator_and_promtool_is_silent(tmp_path: Path) -> None:
    simulator = await start_simulator("demo", api_port=0, publisher_port=0, access_token=TOKEN, seed=11,
                                      clock=WorldClock())
    settings = Settings(api_url=simulator.api_url, token=TOKEN, profile="sim",
                        alerts=[AlertRule(kind="server_down"), AlertRule(kind="ingest_stopped")])
    exporter = Exporter(settings, SystemClock(), max_streams=1000, audit=AuditLog(tmp_path / "audit.jsonl"))
    host, port = await exporter.start_http("127.0.0.1", 0)
    running = asyncio.create_task(exporter.run())
    prometheus_port = _free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: omeconsole
    static_configs:
      - targets: ["{host}:{port}"]
""")
    prometheus = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{prometheus_port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{prometheus_port}"
    world = simulator.world
    vhost = world.vhosts["default"]
    truth: list[tuple[float, int]] = []
    try:
        for _ in range(WINDOW_S + 25):
            truth.append((time.time(), int(world.counters("vhost", vhost.row)["bytes_out"])))
            await asyncio.sleep(1)
        at = time.time() - 3
        query = f'rate(ome_bytes_out_total{{server="sim",vhost="default",app=""}}[{WINDOW_S}s])'
        measured = await _query(base, query, at)
        assert measured is not None, "Prometheus has no ome_bytes_out_total for the vhost"
        expected = (_truth_at(truth, at) - _truth_at(truth, at - WINDOW_S)) / WINDOW_S
        assert abs(measured - expected) / expected <= RATE_TOLERANCE, (measured, expected)
        up = await _query(base, 'ome_up{server="sim"}', time.time())
        assert up == 1.0

        async with httpx.AsyncClient(timeout=10) as http:
            exposition = (await http.get(f"http://{host}:{port}/metrics")).text
        check = subprocess.run(["promtool", "check", "metrics"], input=exposition, capture_output=True,
                               text=True, timeout=60)
        assert (check.returncode, check.stdout, check.stderr) == (0, "", "")
        print(f"rate(ome_bytes_out_total[1m]) = {measured:.0f} B/s, simulator {expected:.0f} B/s, "
              f"error {abs(measured - expected) / expected:.2%}")
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=30)
        exporter.stop()
        await running
        await exporter.aclose()
        await simulator.stop()

"""Polling cost: requests/s sent and console CPU per poll cycle, keeping 50 visible streams fresh.

The simulator runs the `scale` scenario (10,000 streams) in its own process, so this process's CPU
time is the console's alone: the engine's planning, httpx, JSON parsing and the model. The engine
runs on the real clock with its defaults (1 s interval, 20 requests/s budget, 10 s listings).

    .venv/bin/python bench/bench_polling.py [--seconds 30] [--visible 50]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from omeconsole.api.client import OmeClient, basic_authorization
from omeconsole.api.http import HttpTransport, Method, Reply
from omeconsole.core.clock import SystemClock
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.nodes import NodeState
from omeconsole.model.paths import NodePath

TOKEN = "bench-token"


class CountingTransport(HttpTransport):
    """Counts requests where they leave the process, independently of the engine's own counter."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[float] = []

    async def request(self, method: Method, url: str, **options: Any) -> Reply:
        self.sent.append(time.monotonic())
        return await super().request(method, url, **options)


def start_simulator() -> tuple[subprocess.Popen[str], str]:
    binary = Path(sys.executable).parent / "ome-simulator"
    process = subprocess.Popen([str(binary), "--scenario", "scale", "--api-port", "0", "--publisher-port", "0",
                                "--access-token", TOKEN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"management API\s+(http://\S+)", line)
        if found:
            return process, found.group(1)
    raise SystemExit("the simulator did not start")


async def measure(url: str, seconds: float, visible_count: int) -> dict[str, float]:
    transport = CountingTransport()
    async with OmeClient(url, TOKEN, transport=transport) as client:
        engine = PollingEngine(client, SystemClock(), PollSettings())
        cycle_cpu: list[float] = []
        original = engine.poll_cycle

        async def timed_cycle() -> object:
            started = time.process_time()
            result = await original()
            cycle_cpu.append(time.process_time() - started)
            return result

        engine.poll_cycle = timed_cycle  # type: ignore[method-assign]
        bookkeeping = [0.0]
        for name in ("_plan", "_apply"):  # the engine's own work, without HTTP and parsing
            setattr(engine, name, _timed(getattr(engine, name), bookkeeping))
        runner = asyncio.create_task(engine.run())
        deadline = time.monotonic() + 120
        while not any(s for apps in engine.tree().values() for s in apps.values()):  # first listing
            if time.monotonic() > deadline:
                raise SystemExit(f"no streams listed: {engine.connection.message}")
            await asyncio.sleep(0.1)
        vhost, app, streams = next((v, a, s) for v, apps in engine.tree().items() for a, s in apps.items() if s)
        visible = [NodePath(vhost, app, s) for s in streams[:visible_count]]
        engine.select(visible[0])
        engine.set_visible(visible)
        cycle_cpu.clear()
        bookkeeping[0] = 0.0
        sent_before, cpu_before, start = len(transport.sent), time.process_time(), time.monotonic()
        max_age = 0.0
        while time.monotonic() - start < seconds:
            await asyncio.sleep(0.5)
            if time.monotonic() - start > 10:  # after warm-up: how old does any visible reading get?
                now = time.monotonic()
                ages = [engine.node(p).age(now) for p in visible]
                max_age = max([max_age, *(a for a in ages if a is not None)])
        elapsed = time.monotonic() - start
        cpu = time.process_time() - cpu_before
        sent = len(transport.sent) - sent_before
        window = [t for t in transport.sent if t >= start]
        busiest = max(sum(1 for t in window if s <= t < s + 1) for s in window) if window else 0
        live = sum(engine.node(p).state is NodeState.LIVE for p in visible)
        engine.stop()
        await runner
    return {
        "seconds": elapsed, "requests_per_s": sent / elapsed, "busiest_1s": busiest,
        "cycles": len(cycle_cpu), "cpu_ms_per_cycle_mean": 1000 * statistics.mean(cycle_cpu),
        "cpu_ms_per_cycle_p95": 1000 * statistics.quantiles(cycle_cpu, n=20)[18],
        "cpu_ms_per_second": 1000 * cpu / elapsed, "cpu_ms_per_request": 1000 * cpu / sent,
        "engine_bookkeeping_ms_per_cycle": 1000 * bookkeeping[0] / len(cycle_cpu),
        "httpx_baseline_cpu_ms_per_request": await _httpx_baseline(url, visible[0]),
        "max_visible_age_s": max_age, "visible_live": live,
        "streams_listed": sum(len(s) for a in engine.tree().values() for s in a.values()),
    }


def _timed(method: Any, total: list[float]) -> Any:
    def wrapper(*args: Any) -> Any:
        started = time.process_time()
        try:
            return method(*args)
        finally:
            total[0] += time.process_time() - started
    return wrapper


async def _httpx_baseline(url: str, path: NodePath, count: int = 200) -> float:
    """CPU per request of plain httpx on the same server: the floor no console built on it goes under."""
    target = f"/v2/stats/current/vhosts/{path.vhost}/apps/{path.app}/streams/{path.stream}"
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": basic_authorization(TOKEN)}) as http:
        await http.get(target)
        started = time.process_time()
        for _ in range(count):
            (await http.get(target)).json()
        return 1000 * (time.process_time() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--visible", type=int, default=50)
    args = parser.parse_args()
    process, url = start_simulator()
    try:
        result = asyncio.run(measure(url, args.seconds, args.visible))
    finally:
        process.terminate()
        process.wait(10)
    for key, value in result.items():
        print(f"{key:24} {value:.2f}" if isinstance(value, float) else f"{key:24} {value}")


if __name__ == "__main__":
    main()

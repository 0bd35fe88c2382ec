"""Soak: the simulator and the console's core running together on the `scale` scenario (10,000 streams).

The simulator runs in its own process (real clock); this process runs what the console runs: the
polling engine (listing passes over all 10,000 streams, the selected stream every second, 40 visible
streams round-robin under the request budget), an ID3 event every 10 s, and one LL-HLS player
reading a chunklist every second. Every `--sample-every` seconds it records, for both processes,
resident memory, open file descriptors and sockets, and here the asyncio tasks: flat lines mean no
leak. The first sample is taken after a warm-up (caches filled, first listing pass done).

    .venv/bin/python bench/bench_soak.py [--duration 600] [--sample-every 30] [--append]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import sys
import time
from datetime import UTC, datetime

from bench_load import ROOT, TOKEN, Connection, Server, _rss_kib

from omeconsole.api.client import OmeClient
from omeconsole.api.wire import Id3Frame
from omeconsole.core.clock import SystemClock
from omeconsole.core.polling.engine import PollingEngine, PollSettings
from omeconsole.model.paths import NodePath


def _descriptors(pid: int) -> tuple[int, int]:
    """(open file descriptors, of which sockets) of a process."""
    fds = sockets = 0
    for entry in os.scandir(f"/proc/{pid}/fd"):
        fds += 1
        with contextlib.suppress(OSError):  # closed while we looked
            sockets += os.readlink(entry.path).startswith("socket:")
    return fds, sockets


def sample(server: Server, engine: PollingEngine, started: float) -> dict[str, float]:
    sim_fds, sim_sockets = _descriptors(server.process.pid)
    fds, sockets = _descriptors(os.getpid())
    return {"t s": round(time.monotonic() - started), "sim RSS MiB": round(server.rss_kib() / 1024, 1),
            "sim fds": sim_fds, "sim sockets": sim_sockets, "console RSS MiB": round(_rss_kib(os.getpid()) / 1024, 1),
            "console fds": fds, "console sockets": sockets, "console tasks": len(asyncio.all_tasks()),
            "requests": engine.requests_sent}


async def player(server: Server, stream: NodePath, stop: asyncio.Event) -> None:
    connection = Connection(server.pub_port)
    base = f"/{stream.app}/{stream.stream}"
    _, master = await connection.request("GET", f"{base}/llhls.m3u8")
    name = re.search(rb"chunklist_\d_video_\w+_llhls\.m3u8", master)
    assert name, master
    while not stop.is_set():
        await connection.request("GET", f"{base}/{name.group(0).decode()}")
        await asyncio.sleep(1)
    connection.close()


async def sender(client: OmeClient, stream: NodePath, stop: asyncio.Event) -> None:
    n = 0
    while not stop.is_set():
        await client.id3(stream, [Id3Frame(frameType="TXXX", info="soak", data=str(n))])
        n += 1
        await asyncio.sleep(10)


async def main_async(args: argparse.Namespace) -> list[dict[str, float]]:
    server = Server(scenario="scale", seed=args.seed)
    samples: list[dict[str, float]] = []
    try:
        client = OmeClient(f"http://127.0.0.1:{server.api_port}", TOKEN, timeout=5)
        engine = PollingEngine(client, SystemClock(), PollSettings(history_seconds=args.history_seconds))
        streams = await client.list_streams("default", "app000")
        selected = NodePath("default", "app000", streams[0])
        engine.select(selected)
        engine.set_on_screen([NodePath("default", "app000", s) for s in streams[1:41]], [NodePath("default", "app000")])
        stop = asyncio.Event()
        workers = [asyncio.create_task(engine.run()), asyncio.create_task(player(server, selected, stop)),
                   asyncio.create_task(sender(client, selected, stop))]
        started = time.monotonic()
        await asyncio.sleep(args.warm_up)
        while time.monotonic() - started < args.duration:
            samples.append(sample(server, engine, started))
            print(samples[-1], flush=True)
            await asyncio.sleep(min(args.sample_every, max(0.0, args.duration - (time.monotonic() - started))))
        samples.append(sample(server, engine, started))
        print(samples[-1], flush=True)
        view = engine.node(selected)
        samples[-1]["selected state"] = view.state.value  # type: ignore[assignment]
        samples[-1]["history samples"] = len(view.history)
        samples[-1]["history s"] = args.history_seconds
        stop.set()
        engine.stop()
        await asyncio.gather(*workers, return_exceptions=True)
        await client.aclose()
    finally:
        server.stop()
    return samples


def _markdown(samples: list[dict[str, float]], command: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    first, last = samples[0], samples[-1]
    keys = ["sim RSS MiB", "sim fds", "sim sockets", "console RSS MiB", "console fds", "console sockets",
            "console tasks"]
    lines = [f"Measured {when} with `{command}` on a shared 2-core machine; `scale` scenario (10,000 streams), "
             f"simulator in its own process, the console core in this one (engine with default settings but "
             f"{samples[-1].get('history s')} s of history, "
             f"40 visible streams, ID3 every 10 s, one LL-HLS player). First sample after the warm-up, last "
             f"at {last['t s']} s; {last['requests']} console requests in all; the selected stream ended "
             f"{last.get('selected state')} with {last.get('history samples')} samples of history.", "",
             "| Measure | " + " | ".join(f"t = {s['t s']} s" for s in samples) + " |",
             "|---|" + "---|" * len(samples)]
    lines += [f"| {key} | " + " | ".join(str(s[key]) for s in samples) + " |" for key in keys]
    lines.append("")
    lines.append(f"Start -> end: simulator {first['sim RSS MiB']} -> {last['sim RSS MiB']} MiB, console "
                 f"{first['console RSS MiB']} -> {last['console RSS MiB']} MiB; sockets {first['sim sockets']} -> "
                 f"{last['sim sockets']} (simulator), {first['console sockets']} -> {last['console sockets']} "
                 f"(console); tasks {first['console tasks']} -> {last['console tasks']}.")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds (default 600: ten minutes)")
    parser.add_argument("--sample-every", type=float, default=60.0)
    parser.add_argument("--warm-up", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--history-seconds", type=float, default=600.0,
                        help="the engine's history per node (default 600, the console's); a shorter one shows "
                             "whether memory stays flat once every history ring is full")
    parser.add_argument("--append", action="store_true", help="append the table to BENCHMARKS.md")
    args = parser.parse_args()
    samples = asyncio.run(main_async(args))
    text = _markdown(samples, " ".join(["bench/bench_soak.py", *sys.argv[1:]]))
    print(text)
    if args.append:
        with (ROOT / "BENCHMARKS.md").open("a", encoding="utf-8") as out:
            out.write("\n## Soak: simulator and console core on `scale` (bench/bench_soak.py)\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

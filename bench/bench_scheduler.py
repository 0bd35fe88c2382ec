"""The scheduler's cost with 100 schedules on `scale` against the polling alone in the same batch, and how
late a run's request leaves.

The simulator runs `scale` (10,000 streams) in its own process on the real clock. 100 schedules, one per
stream (default/app000/s0000 ...), each `every = "2m"` with offsets spread over the interval in 20 groups
(5 schedules share each instant, a run instant every 6 s): 50 breaks a minute, each a 30 s cue-out. The
scheduler is `omeconsole scheduler --json` in a child process, measured over `--minutes` of real time after
its start (utime + stime and VmRSS / VmHWM from /proc). Latency of each sent break, from its run's instant:
to its intent (the audit line written just before the POST leaves: the earliest the POST can leave) and
to the server's answer (the "sent" event: the POST has left and come back). Breaks that are skipped
(a stream ended by the scenario's churn, a break still on air) are counted, not timed.

The baseline, in the same batch: the console's polling engine alone in a second child process against
the same simulator — `--baseline view` (default): the dashboard's view declared (a vhost row, an app row
and 48 stream rows of that app, one selected, as `bench_polling.py`'s `engine`); `--baseline all`: every
node watched, as the exporter and `record` watch them — started with the scheduler and measured over the
same window (after `--warmup` seconds: the poller's first listing); the ratio is the scheduler's CPU over
the polling's.

    .venv/bin/python bench/bench_scheduler.py [--minutes 10] [--schedules 100] [--warmup 20] [--baseline view|all]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import httpx

from simulator.http.auth import basic_header

TOKEN = "bench-token"
BIN = Path(sys.executable).parent


def start_simulator() -> tuple[subprocess.Popen[str], str, str]:
    process = subprocess.Popen([str(BIN / "ome-simulator"), "--scenario", "scale", "--api-port", "0",
                                "--publisher-port", "0", "--access-token", TOKEN], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    api = publisher = None
    for line in process.stdout:
        if found := re.search(r"management API\s+(http://\S+)", line):
            api = found.group(1)
        if found := re.search(r"LL-HLS / HLS\s+(http://\S+)", line):
            publisher = found.group(1)
        if api and publisher:
            return process, api, publisher.rstrip("/")
    raise SystemExit("the simulator did not start")


def streams(api: str, count: int) -> list[str]:
    found: list[str] = []
    with httpx.Client(base_url=api, headers={"Authorization": basic_header(TOKEN)}, timeout=10) as http:
        for app in http.get("/v1/vhosts/default/apps").json()["response"]:
            names = http.get(f"/v1/vhosts/default/apps/{app}/streams").json()["response"]
            found += [f"default/{app}/{name}" for name in sorted(names)]
            if len(found) >= count:
                return found[:count]
    return found


def config(paths: list[str], every_minutes: int) -> str:
    """Each schedule `every` that many minutes, offsets spread over the interval in 20 groups."""
    lines = ['[templates.spot]\nduration = "30s"\n']
    for index, path in enumerate(paths):
        offset = (index % 20) * every_minutes * 3  # 60 s / 20 groups
        lines.append(f'[[schedules]]\nname = "s{index:03d}"\nstream = "{path}"\ntemplate = "spot"\n'
                     f'every = "{every_minutes}m"\noffset = "{offset}s"\n')
    return "\n".join(lines)


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int) -> tuple[int, int]:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]), int(status["VmHWM"].split()[0])


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def poll_alone(url: str, everything: bool) -> None:
    """The polling baseline (a child process) until SIGTERM: the engine with the dashboard's view, or
    (`everything`) with every node watched as the exporter and `record` watch them."""
    import signal

    from omeconsole.api.client import OmeClient
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.polling.engine import PollingEngine, PollSettings
    from omeconsole.model.paths import NodePath

    async with OmeClient(url, TOKEN, timeout=5) as client:
        engine = PollingEngine(client, SystemClock(), PollSettings())
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, engine.stop)
        runner = asyncio.create_task(engine.run())
        while not (listed := [(v, a, sorted(s.live)) for v, apps in engine.listing().items()
                              for a, s in apps.items() if s.live]):
            await asyncio.sleep(0.05)
        vhost, app, names = listed[0]
        rows = [NodePath(vhost), NodePath(vhost, app), *(NodePath(vhost, app, name) for name in names[:48])]
        engine.select(rows[2])
        engine.set_on_screen(rows, [NodePath(vhost, app)])
        print("polling", flush=True)
        watched = None
        while everything and not runner.done():
            listing = engine.listing()
            if listing is not watched:  # as the exporter: every vhost, app and stream, whenever the listing moves
                watched = listing
                apps = [NodePath(v, a) for v, found in listing.items() for a in found]
                streams = [NodePath(v, a, name) for v, found in listing.items() for a, s in found.items()
                           for name in s.live]
                engine.set_on_screen([*(NodePath(v) for v in listing), *apps, *streams], apps)
            await asyncio.wait({runner}, timeout=1.0)
        await runner


def started_child(command: list[str], env: dict[str, str], out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, env=env, stdout=out.open("w"), stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--schedules", type=int, default=100)
    parser.add_argument("--every", type=int, default=2, metavar="MINUTES",
                        help="each schedule's interval (2: 50 breaks a minute with 100; 12: a usual plan)")
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring (default 20)")
    parser.add_argument("--baseline", choices=("view", "all"), default="view",
                        help="the polling baseline: the dashboard's view (default) or every node watched")
    parser.add_argument("--poll-alone", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.poll_alone:
        asyncio.run(poll_alone(args.poll_alone, args.baseline == "all"))
        return
    simulator, api, publisher = start_simulator()
    work = Path(tempfile.mkdtemp(prefix="bench-scheduler-"))
    try:
        paths = streams(api, args.schedules)
        (work / "config.toml").write_text(config(paths, args.every))
        (work / "config.toml").chmod(0o600)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OME_", "OMECONSOLE_"))}
        env.update(OME_API_URL=api, OME_PUBLISHER_URL=publisher, OME_ACCESS_TOKEN=TOKEN,
                   OMECONSOLE_CONFIG=str(work / "config.toml"), OMECONSOLE_SCHEDULES=str(work / "schedules.toml"),
                   OMECONSOLE_AUDIT_LOG=str(work / "audit.jsonl"))
        child = started_child([str(BIN / "omeconsole"), "scheduler", "--json"], env, work / "events.jsonl")
        poller = started_child([sys.executable, __file__, "--poll-alone", api, "--baseline", args.baseline], env,
                               work / "poller.txt")
        while ("started" not in (work / "events.jsonl").read_text()
               or "polling" not in (work / "poller.txt").read_text()):
            time.sleep(0.05)
        time.sleep(args.warmup)  # the poller's first listing of 10,000 streams, then steady polling
        load_start = os.getloadavg()[0]
        cpu0, poll0, wall0 = cpu_s(child.pid), cpu_s(poller.pid), time.monotonic()
        time.sleep(args.minutes * 60)
        cpu1, poll1, wall1 = cpu_s(child.pid), cpu_s(poller.pid), time.monotonic()
        rss, hwm = memory_kib(child.pid)
        poll_rss, poll_hwm = memory_kib(poller.pid)
        for process in (child, poller):
            process.terminate()
            process.wait(30)
        events = [json.loads(line) for line in (work / "events.jsonl").read_text().splitlines()]
        intents = {line["id"]: line for line in map(json.loads, (work / "audit.jsonl").read_text().splitlines())
                   if line["type"] == "intent"} if (work / "audit.jsonl").exists() else {}
        to_intent: list[float] = []
        to_answer: list[float] = []
        for event in events:
            if event["event"] == "sent" and event["send_id"] in intents:
                run = datetime.fromisoformat(event["run"])
                to_intent.append((datetime.fromisoformat(intents[event["send_id"]]["time"]) - run).total_seconds())
                to_answer.append((datetime.fromisoformat(event["time"]) - run).total_seconds())
        kinds = Counter(e["event"] for e in events)
        share = (cpu1 - cpu0) / (wall1 - wall0)
        print(f"{datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, {platform.node()}, nproc {os.cpu_count()}, "
              f"Python {platform.python_version()}, load average {load_start:.1f} at the start, "
              f"{os.getloadavg()[0]:.1f} at the end")
        print(f"{len(paths)} schedules on scale over {args.minutes:g} min of real time")
        print(f"scheduler CPU: {cpu1 - cpu0:.2f} s over {wall1 - wall0:.0f} s = {share * 100:.2f} % of one core")
        print(f"scheduler memory: RSS {rss / 1024:.1f} MiB, peak {hwm / 1024:.1f} MiB")
        polling = (poll1 - poll0) / (wall1 - wall0)
        print(f"polling alone ({args.baseline}, same batch): CPU {poll1 - poll0:.2f} s = {polling * 100:.2f} % "
              f"of one core, RSS {poll_rss / 1024:.1f} MiB, peak {poll_hwm / 1024:.1f} MiB")
        print(f"scheduler / polling: CPU {share / polling:.3f}, RSS {rss / poll_rss:.2f}")
        print("events: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
        if to_intent:
            print(f"run -> intent (the POST leaves right after): p50 {quantile(to_intent, 0.5) * 1000:.1f} ms, "
                  f"p99 {quantile(to_intent, 0.99) * 1000:.1f} ms, max {max(to_intent) * 1000:.1f} ms "
                  f"({len(to_intent)} breaks)")
            print(f"run -> answer: p50 {quantile(to_answer, 0.5) * 1000:.1f} ms, "
                  f"p99 {quantile(to_answer, 0.99) * 1000:.1f} ms, max {max(to_answer) * 1000:.1f} ms")
        skipped = Counter(e["message"][:60] for e in events if e["event"] == "skipped")
        for reason, count in skipped.most_common(5):
            print(f"  skipped {count}: {reason}")
    finally:
        simulator.terminate()
        simulator.wait(30)


if __name__ == "__main__":
    main()

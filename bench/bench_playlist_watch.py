"""The cost of following playlists (breaks sent by others): requests per second and console CPU.

The console runs in a real pseudo-terminal (tmux, 160x50) against the simulator (its own process, real
clock), with a counting TCP proxy in front of the management API and one in front of the publisher, so
the requests are counted on the wire, whoever makes them. Four runs per scenario, one after the other:
following on / off (`follow_playlists` in a config file of the run's own), each with the ad-break panel
closed (the dashboard, a stream selected) and open (`a` on it: the panel's own blocking-reload reader).
Each run waits `--settle` seconds after the first data, then measures `--seconds`; with `--rounds N`
the on / off pair is run N times, alternating, and the table gives each figure's median (on a shared
machine the load moves between runs; alternating keeps it from favouring one side):

- API req/s: requests through the API proxy (the polling engine and detection);
- playlist req/s: requests through the publisher proxy (playlists, and parts when an ID3 waits);
- CPU: the console process's utime+stime over the window ÷ wall time.

    .venv/bin/python bench/bench_playlist_watch.py [--scenario demo --scenario scale] [--seconds 20]
        [--settle 8] [--panel closed --panel open] [--rounds 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
TOKEN = "bench-token"
SIZE = (160, 50)
DATA_MARK = "● live"
TICKS = os.sysconf("SC_CLK_TCK")
SELECT = {"demo": "default/app/news", "scale": "default/app000/s0001"}


class CountingProxy:
    """A TCP proxy on loopback that counts HTTP requests going through it (request lines in the client's
    bytes), on an event loop of its own thread."""

    def __init__(self, upstream: str) -> None:
        found = re.match(r"http://([^:/]+):(\d+)", upstream)
        assert found, upstream
        self._host, self._port = found.group(1), int(found.group(2))
        self.requests = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.url = ""
        threading.Thread(target=self._run, daemon=True).start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        self._ready.set()
        self._loop.run_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self._host, self._port)
        except OSError:
            writer.close()
            return

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter, count: bool) -> None:
            tail = b""
            try:
                while data := await source.read(65536):
                    if count:
                        seen = tail + data
                        self.requests += len(re.findall(rb"(?:^|\r\n)(?:GET|POST|HEAD) /", seen)) - len(
                            re.findall(rb"(?:^|\r\n)(?:GET|POST|HEAD) /", tail))
                        tail = seen[-16:]
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))


@dataclass
class Run:
    scenario: str
    follow: bool
    panel: bool
    api_rps: float
    playlist_rps: float
    cpu: float
    load: float
    """The machine's 1-minute load average at the end of the window."""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _simulator(scenario: str) -> tuple[subprocess.Popen[str], str, str]:
    process = subprocess.Popen([str(BIN / "ome-simulator"), "--scenario", scenario, "--api-port", "0",
                                "--publisher-port", "0", "--access-token", TOKEN],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    api = publisher = ""
    for line in process.stdout:
        if found := re.search(r"management API\s+(http://\S+)", line):
            api = found.group(1)
        if found := re.search(r"LL-HLS / HLS\s+(http://\S+)", line):
            publisher = found.group(1)
        if api and publisher:
            return process, api, publisher
    raise RuntimeError(f"the simulator did not start for {scenario}")


def measure(scenario: str, follow: bool, panel: bool, settle: float, seconds: float) -> Run:
    simulator, api, publisher = _simulator(scenario)
    api_proxy, publisher_proxy = CountingProxy(api), CountingProxy(publisher)
    session = f"bench-watch-{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as home:
        config = Path(home) / "config.toml"
        config.write_text(f"follow_playlists = {'true' if follow else 'false'}\n")
        command = (f"env TERM=xterm-256color OMECONSOLE_CONFIG={config} OMECONSOLE_HISTORY_DB={home}/h.sqlite3 "
                   f"{BIN / 'omeconsole'} --api-url {api_proxy.url} --publisher-url {publisher_proxy.url} "
                   f"--token {TOKEN} --select {SELECT[scenario]}")
        try:
            _tmux("new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), f"exec {command}")
            pid = int(_tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
            started = time.monotonic()
            while DATA_MARK not in _tmux("capture-pane", "-p", "-t", session):
                if time.monotonic() - started > 60:
                    raise RuntimeError(_tmux("capture-pane", "-p", "-t", session))
                time.sleep(0.05)
            time.sleep(2.0)
            if panel:
                _tmux("send-keys", "-t", session, "a")
            time.sleep(settle)
            api_before, pub_before = api_proxy.requests, publisher_proxy.requests
            cpu_before, wall_before = _cpu_seconds(pid), time.monotonic()
            time.sleep(seconds)
            wall = time.monotonic() - wall_before
            return Run(scenario, follow, panel, round((api_proxy.requests - api_before) / wall, 2),
                       round((publisher_proxy.requests - pub_before) / wall, 2),
                       round((_cpu_seconds(pid) - cpu_before) / wall, 4), round(os.getloadavg()[0], 2))
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
            simulator.terminate()
            simulator.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", choices=("demo", "scale"))
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--settle", type=float, default=8.0)
    parser.add_argument("--panel", choices=("closed", "open"), action="append")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    samples = [measure(scenario, follow, panel, args.settle, args.seconds)
               for scenario in args.scenario or ["demo", "scale"]
               for panel in [p == "open" for p in args.panel or ["closed", "open"]]
               for index in range(args.rounds) for follow in ((True, False) if index % 2 == 0 else (False, True))]
    if args.json:
        print(json.dumps([asdict(run) for run in samples], indent=2))
        return
    runs = _medians(samples)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores; "
          f"{args.seconds:g} s per window after {args.settle:g} s\n")
    print(f"{args.rounds} round(s) per pair; medians; load at the end of each window: "
          f"{', '.join(f'{run.load:.1f}' for run in samples)}\n")
    print("| scenario | panel | following | API req/s | playlist req/s | console CPU |")
    print("|---|---|---|---:|---:|---:|")
    for run in runs:
        print(f"| {run.scenario} | {'open' if run.panel else 'closed'} | {'on' if run.follow else 'off'} "
              f"| {run.api_rps:.2f} | {run.playlist_rps:.2f} | {run.cpu * 100:.2f} % |")


def _medians(samples: list[Run]) -> list[Run]:
    """One row per scenario, panel and following: the median of each figure over its rounds."""
    keys = list(dict.fromkeys((run.scenario, run.panel, run.follow) for run in samples))
    rows = []
    for scenario, panel, follow in keys:
        same = [run for run in samples if (run.scenario, run.panel, run.follow) == (scenario, panel, follow)]
        rows.append(Run(scenario, follow, panel, statistics.median(r.api_rps for r in same),
                        statistics.median(r.playlist_rps for r in same), statistics.median(r.cpu for r in same),
                        statistics.median(r.load for r in same)))
    return rows


if __name__ == "__main__":
    sys.exit(main())

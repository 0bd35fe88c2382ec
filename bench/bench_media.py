"""Media benchmark: marker latency, blocking-reload lag with 100 held clients, the publisher's CPU
per second of media for one stream watched by 1, 10 and 100 LL-HLS clients, and the publisher's memory
when the streams of `scale` are fetched once and after their clients leave.

The simulator runs as its own process (real clock) so that its CPU time and memory can be read from
/proc apart from the clients'. Usage: `.venv/bin/python bench/bench_media.py [--append]
[--baseline DIR]` (--append writes the figures to BENCHMARKS.md; --baseline runs the same measures
first against another checkout of the project, e.g. a `git worktree` of main, for a before / after
table from one batch).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
HEADING = "## Media: LL-HLS markers, blocking reload, CPU, memory (bench/bench_media.py)"
HINT = re.compile(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part_\d+_(\d+)_(\d+)_')
PART_LINE = re.compile(r'#EXT-X-PART:DURATION=([\d.]+),URI="([^"]+)"')
START_DATE = re.compile(r'START-DATE="([^"]+)"')


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Server:
    """The simulator in its own process: this checkout's, or `checkout`'s code run by this Python."""

    def __init__(self, scenario: str = "demo", checkout: Path | None = None) -> None:
        self.api_port, self.pub_port = _free_port(), _free_port()
        code = checkout or ROOT
        self.process = subprocess.Popen(
            [sys.executable, "-m", "simulator", "--scenario", scenario, "--api-port", str(self.api_port),
             "--publisher-port", str(self.pub_port), "--access-token", TOKEN],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=code,
            env={**os.environ, "PYTHONPATH": str(code)})
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("Press Ctrl+C"):
                break
        self.api = f"http://127.0.0.1:{self.api_port}"
        self.pub = f"http://127.0.0.1:{self.pub_port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


async def _chunklist(client: httpx.AsyncClient, base: str, track: str) -> str:
    master = (await client.get(f"{base}/llhls.m3u8")).text
    return next(re.search(r"chunklist_\d_" + track + r"_\w+_llhls\.m3u8", line).group(0)  # type: ignore[union-attr]
                for line in master.splitlines() if f"_{track}_" in line)


def _iso(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


async def marker_latency(server: Server, streams: list[str]) -> dict[str, list[float]]:
    """Per stream: a blocking LL-HLS client follows the chunklist while a cue-out is sent."""
    out: dict[str, list[float]] = {"daterange": [], "daterange_reloads": [], "cue_out": []}
    auth = {"Authorization": "Basic " + base64.b64encode(TOKEN.encode()).decode()}

    async def one(stream: str) -> None:
        base = f"{server.pub}/app/{stream}"
        async with httpx.AsyncClient(timeout=30) as client:
            name = await _chunklist(client, base, "video")
            text = (await client.get(f"{base}/{name}")).text
            sent = await client.post(f"{server.api}/v1/vhosts/default/apps/app/streams/{stream}:sendEvent",
                                     headers=auth, json={"eventFormat": "cue",
                                                         "events": [{"cueType": "out", "duration": 20_000}]})
            answered = time.time()
            assert sent.status_code == 200
            seen_range = None
            reloads = 0
            while True:
                hint = HINT.search(text)
                assert hint
                text = (await client.get(f"{base}/{name}", params={"_HLS_msn": hint[1], "_HLS_part": hint[2]})).text
                now = time.time()
                reloads += 1
                if seen_range is None and "#EXT-X-DATERANGE" in text:
                    seen_range = now
                    out["daterange"].append(now - answered)
                    out["daterange_reloads"].append(reloads)
                    splice = _iso(START_DATE.search(text)[1])  # type: ignore[index]
                if "#EXT-X-CUE-OUT:" in text:
                    out["cue_out"].append(now - splice)
                    return

    await asyncio.gather(*(one(s) for s in streams))
    return out


class RawClient:
    """One keep-alive HTTP/1.1 connection with almost no client-side cost, so that 100 of them in
    one process measure the server rather than the client library."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port: int) -> RawClient:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def get(self, target: str) -> tuple[float, bytes]:
        """(arrival time of the response's first line, body)."""
        self.writer.write(f"GET {target} HTTP/1.1\r\nHost: default\r\n\r\n".encode())
        status = await self.reader.readline()
        arrived = time.time()
        assert b" 200 " in status, status
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return arrived, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def reload_lag(server: Server, clients: int, rounds: int) -> list[float]:
    """Seconds from a part's completion (its end on the stream's clock) to each held response's arrival."""
    base = "/app/stream"
    async with httpx.AsyncClient(timeout=30) as client:
        name = await _chunklist(client, f"{server.pub}{base}", "video")
        connections = [await RawClient.connect(server.pub_port) for _ in range(clients)]
        lags: list[float] = []
        for _ in range(rounds):
            text = (await client.get(f"{server.pub}{base}/{name}")).text
            hint = HINT.search(text)
            assert hint
            target = f"{base}/{name}?_HLS_msn={hint[1]}&_HLS_part={int(hint[2]) + 1}"
            results = await asyncio.gather(*(c.get(target) for c in connections))
            completed = _part_end(results[0][1].decode(), int(hint[1]), int(hint[2]) + 1)
            lags.extend(arrival - completed for arrival, _ in results)
        for connection in connections:
            connection.close()
    return lags


def _part_end(text: str, msn: int, index: int) -> float:
    """Wall time at which part (msn, index) ended, from its segment's PROGRAM-DATE-TIME."""
    lines = text.splitlines()
    wanted = f"_{msn}_{index}_video_"
    for position, line in enumerate(lines):
        match = PART_LINE.match(line)
        if match and wanted in match[2]:
            start = position
            while not lines[start].startswith("#EXT-X-PROGRAM-DATE-TIME:"):
                start -= 1
            pdt = _iso(lines[start].split(":", 1)[1])
            durations = [float(m[1]) for m in map(PART_LINE.match, lines[start + 1:position + 1]) if m]
            return pdt + sum(durations)
    if index > 0:
        return _part_end(text, msn + 1, 0)  # past the segment's last part: the next segment's first
    raise ValueError(f"part {msn}.{index} not in the playlist")


async def cpu_per_media_second(server: Server, clients: int, seconds: float) -> float:
    """Server CPU seconds per second of media while `clients` players follow app/stream part by part
    (blocking reload of both chunklists, then the new video and audio parts)."""
    base = "/app/stream"
    async with httpx.AsyncClient(timeout=30) as client:
        video = await _chunklist(client, f"{server.pub}{base}", "video")
        audio = await _chunklist(client, f"{server.pub}{base}", "audio")
    connections = [await RawClient.connect(server.pub_port) for _ in range(clients)]
    stop = time.time() + seconds

    async def player(connection: RawClient) -> None:
        texts = {name: (await connection.get(f"{base}/{name}"))[1].decode() for name in (video, audio)}
        while time.time() < stop:
            for name, text in texts.items():
                hint = HINT.search(text)
                assert hint
                target = f"{base}/{name}?_HLS_msn={hint[1]}&_HLS_part={hint[2]}"
                texts[name] = (await connection.get(target))[1].decode()
                parts = [m[2] for m in PART_LINE.finditer(texts[name])]
                await connection.get(f"{base}/{parts[-1]}")

    before, started = _cpu_seconds(server.process.pid), time.time()
    await asyncio.gather(*(player(c) for c in connections))
    used = (_cpu_seconds(server.process.pid) - before) / (time.time() - started)
    for connection in connections:
        connection.close()
    return used


@dataclass
class DemoFigures:
    """One round on `demo`."""

    daterange_ms: float
    daterange_reloads: float
    """Blocking reloads after the cue-out's 200 until one showed the DATERANGE (1: the next part's)."""
    cue_out_ms: float
    lag_ms: tuple[float, float, float]
    """p50, p95, max."""
    cpu_ms: dict[int, float]
    """Clients -> ms of CPU per second of media."""


@dataclass
class Figures:
    """One checkout: its `demo` rounds and its memory on `scale`."""

    rounds: list[DemoFigures]
    rss_mib: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Before the fetch, after it, after the clients left."""
    received_mib: float = 0.0


async def memory(checkout: Path | None, streams: int, leave_seconds: float,
                 warm_up_seconds: float) -> tuple[tuple[float, float, float], float]:
    """Simulator RSS (MiB) on `scale`: after `warm_up_seconds` (full playlist windows), once every file both
    chunklists of `streams` streams list (init, parts, segments) has been fetched once, and `leave_seconds`
    after those clients stopped; and the MiB received."""
    server = Server("scale", checkout)
    limit = asyncio.Semaphore(8)

    async def fetch_all(client: httpx.AsyncClient, name: str) -> int:
        async with limit:
            total = 0
            master = await client.get(f"{server.pub}/{name}/llhls.m3u8")
            if master.status_code != 200:  # ended by churn meanwhile
                return 0
            for chunklist in re.findall(r"chunklist_\w+_llhls\.m3u8", master.text):
                text = (await client.get(f"{server.pub}/{name}/{chunklist}")).text
                listed = "\n".join(line for line in text.splitlines() if not line.startswith("#EXT-X-PRELOAD-HINT"))
                for file in re.findall(r"(?:init|part|seg)_\w+_llhls\.m4s", listed):
                    total += len((await client.get(f"{server.pub}/{name}/{file}")).content)
            return total

    try:
        await asyncio.sleep(warm_up_seconds)
        start = _rss_mib(server.process.pid)
        names = [f"app{n // 100:03d}/s{n % 100:04d}" for n in range(streams)]
        async with httpx.AsyncClient(timeout=30) as client:
            received = sum(await asyncio.gather(*(fetch_all(client, name) for name in names)))
        fetched = _rss_mib(server.process.pid)
        await asyncio.sleep(leave_seconds)
        left = _rss_mib(server.process.pid)
    finally:
        server.stop()
    return (start, fetched, left), received / 2**20


async def measure_demo(checkout: Path | None) -> DemoFigures:
    server = Server("demo", checkout)
    try:
        await asyncio.sleep(3)  # let a few parts exist
        markers = await marker_latency(server, ["stream", "backup", "sports"])
        lag = await reload_lag(server, 100, 10)
        cpu = {n: await cpu_per_media_second(server, n, 8.0) for n in (1, 10, 100)}
    finally:
        server.stop()
    lag_ms = sorted(x * 1000 for x in lag)
    return DemoFigures(max(markers["daterange"]) * 1000, max(markers["daterange_reloads"]),
                       max(markers["cue_out"]) * 1000,
                       (statistics.median(lag_ms), lag_ms[int(0.95 * (len(lag_ms) - 1))], lag_ms[-1]),
                       {n: value * 1000 for n, value in cpu.items()})


def _row(measure: str, results: dict[str, Figures], value: Callable[[Figures], list[float]], unit: str,
         aim: str) -> str:
    """Median of the rounds (and their range when there are several), then after / before."""
    cells = []
    for figures in results.values():
        values = value(figures)
        spread = f" ({min(values):.1f}-{max(values):.1f})" if len(values) > 1 else ""
        cells.append(f"{statistics.median(values):.1f} {unit}{spread}".replace("  ", " "))
    ratio = []
    if len(results) == 2:
        ratio = [f"{statistics.median(value(results['after'])) / statistics.median(value(results['before'])):.2f}"]
    return "| " + " | ".join([measure, *cells, *ratio, aim]) + " |"


def _demo(pick: Callable[[DemoFigures], float]) -> Callable[[Figures], list[float]]:
    return lambda figures: [pick(round_) for round_ in figures.rounds]


def _lag(index: int) -> Callable[[Figures], list[float]]:
    return _demo(lambda round_: round_.lag_ms[index])


def _cpu(clients: int) -> Callable[[Figures], list[float]]:
    return _demo(lambda round_: round_.cpu_ms[clients])


def _rss(index: int) -> Callable[[Figures], list[float]]:
    return lambda figures: [figures.rss_mib[index]]


async def main(append: bool, baseline: Path | None, rounds: int, streams: int, leave_seconds: float,
               warm_up_seconds: float) -> None:
    checkouts = {"before": baseline, "after": None} if baseline else {"after": None}
    results = {label: Figures([]) for label in checkouts}
    for _ in range(rounds):  # interleaved, so that the machine's load falls on both alike
        for label, checkout in checkouts.items():
            results[label].rounds.append(await measure_demo(checkout))
    for label, checkout in checkouts.items():
        results[label].rss_mib, results[label].received_mib = await memory(
            checkout, streams, leave_seconds, warm_up_seconds)
    load = os.getloadavg()[0]
    columns = ["Measure", *results, *(["after / before"] if baseline else []), "Aim"]
    lag_names = (("p50", ""), ("p95", "p95 <= 20 ms"), ("max", ""))
    report = "\n".join([
        HEADING,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `.venv/bin/python bench/bench_media.py "
        f"--append --rounds {rounds}{' --baseline ' + str(baseline) if baseline else ''}` on a shared 2-core machine "
        f"(load average {load:.1f} at the end); the simulator runs in its own process (uvloop, real clock), clients "
        f"in this one. Markers, lag and CPU on `demo` (part target 0.5 s, segment 6 s): median of {rounds} rounds "
        "(range in brackets)" + (", before and after interleaved" if baseline else "") + "; lag is measured at the "
        "client, so it includes the client's own reading of 100 responses; the cue-out latency is bound by where "
        "the request falls in the 0.5 s part (a blocking client sees the DATERANGE with the next part). Memory on "
        f"`scale`, once: the simulator's RSS {warm_up_seconds:.0f} s after its start (full windows: ten 6 s "
        f"segments), once every init, part and segment both chunklists of {streams} streams list has been fetched "
        f"once ({results['after'].received_mib:.0f} MiB received), and {leave_seconds:.0f} s after those clients "
        "stopped." + (" `before` is the baseline checkout's code run by the same Python." if baseline else ""),
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        _row("Cue-out 200 -> first blocking chunklist showing the DATERANGE (max of 3 streams)", results,
             _demo(lambda r: r.daterange_ms), "ms", "<= 1 part target (500 ms)"),
        _row("Blocking reloads after the cue-out's 200 until one shows the DATERANGE (max of 3 streams)", results,
             _demo(lambda r: r.daterange_reloads), "", "1 (the next part's chunklist)"),
        _row("Splice time -> first chunklist showing CUE-OUT (max of 3 streams)", results,
             _demo(lambda r: r.cue_out_ms), "ms", "<= 1 part target (500 ms)"),
        *(_row(f"Blocking-reload lag, part completion -> response, 100 held clients x 10 parts, {name}", results,
               _lag(i), "ms", aim) for i, (name, aim) in enumerate(lag_names)),
        *(_row(f"Publisher CPU per second of media, {n} LL-HLS client(s) (chunklists + parts, both tracks)",
               results, _cpu(n), "ms CPU / s", "sub-linear") for n in (1, 10, 100)),
        _row("Simulator RSS before the fetch (`scale`)", results, _rss(0), "MiB", ""),
        _row(f"Simulator RSS, {streams} streams' files fetched once", results, _rss(1), "MiB",
             "bounded (cache budget 32 MiB)"),
        _row(f"Simulator RSS {leave_seconds:.0f} s after the clients left", results, _rss(2), "MiB", "released"),
        "",
    ])
    print(report)
    if append:
        _write_section(ROOT / "BENCHMARKS.md", report)


def _write_section(path: Path, report: str) -> None:
    """Replace this benchmark's own section (or add it at the end); other sections stay as they are."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    start = text.find(HEADING)
    if start >= 0:
        following = text.find("\n## ", start + len(HEADING))
        rest = text[following + 1:] if following >= 0 else ""
        text = text[:start].rstrip("\n") + "\n\n" + report + ("\n" + rest if rest else "")
    else:
        text = text.rstrip("\n") + "\n\n" + report
    path.write_text(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--append", action="store_true", help="append the figures to BENCHMARKS.md")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of the project to measure first (before / after columns)")
    parser.add_argument("--streams", type=int, default=121, help="streams of `scale` fetched for the memory figures")
    parser.add_argument("--leave-seconds", type=float, default=40.0,
                        help="how long after the clients stop the memory is read again (idle 18 s + sweep)")
    parser.add_argument("--warm-up-seconds", type=float, default=66.0,
                        help="how long `scale` runs before the fetch (full windows need 10 x 6 s)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the `demo` measures (default 3)")
    args = parser.parse_args()
    asyncio.run(main(args.append, args.baseline, args.rounds, args.streams, args.leave_seconds, args.warm_up_seconds))
    sys.exit(0)

"""Media benchmark: marker latency, blocking-reload lag with 100 held clients, and the publisher's CPU
per second of media for one stream watched by 1, 10 and 100 LL-HLS clients.

The simulator runs as its own process (`ome-simulator`, real clock) so that its CPU time can be read
from /proc apart from the clients'. Usage: `.venv/bin/python bench/bench_media.py [--append]`
(--append adds the figures to BENCHMARKS.md).
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
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
HEADING = "## Media: LL-HLS markers, blocking reload, CPU (bench/bench_media.py)"
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


class Server:
    def __init__(self) -> None:
        self.api_port, self.pub_port = _free_port(), _free_port()
        self.process = subprocess.Popen(
            [str(ROOT / ".venv/bin/ome-simulator"), "--scenario", "demo", "--api-port", str(self.api_port),
             "--publisher-port", str(self.pub_port), "--access-token", TOKEN],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
    out: dict[str, list[float]] = {"daterange": [], "cue_out": []}
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
            while True:
                hint = HINT.search(text)
                assert hint
                text = (await client.get(f"{base}/{name}", params={"_HLS_msn": hint[1], "_HLS_part": hint[2]})).text
                now = time.time()
                if seen_range is None and "#EXT-X-DATERANGE" in text:
                    seen_range = now
                    out["daterange"].append(now - answered)
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
        text = (await connection.get(f"{base}/{video}"))[1].decode()
        while time.time() < stop:
            hint = HINT.search(text)
            assert hint
            query = f"?_HLS_msn={hint[1]}&_HLS_part={hint[2]}"
            text = (await connection.get(f"{base}/{video}{query}"))[1].decode()
            audio_text = (await connection.get(f"{base}/{audio}{query}"))[1].decode()
            for playlist in (text, audio_text):
                parts = [m[2] for m in PART_LINE.finditer(playlist)]
                await connection.get(f"{base}/{parts[-1]}")

    before, started = _cpu_seconds(server.process.pid), time.time()
    await asyncio.gather(*(player(c) for c in connections))
    used = (_cpu_seconds(server.process.pid) - before) / (time.time() - started)
    for connection in connections:
        connection.close()
    return used


async def main(append: bool) -> None:
    server = Server()
    try:
        await asyncio.sleep(3)  # let a few parts exist
        markers = await marker_latency(server, ["stream", "backup", "sports"])
        lag = await reload_lag(server, 100, 10)
        cpu = {n: await cpu_per_media_second(server, n, 8.0) for n in (1, 10, 100)}
    finally:
        server.stop()
    lag_ms = sorted(x * 1000 for x in lag)
    p95 = lag_ms[int(0.95 * (len(lag_ms) - 1))]
    load = os.getloadavg()[0]
    report = "\n".join([
        HEADING,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`.venv/bin/python bench/bench_media.py --append` on a shared 2-core machine (load average "
        f"{load:.1f} during the run, other engineers' tests included); the simulator runs in its own "
        "process (`ome-simulator`, asyncio loop, real clock), clients in this one; demo scenario "
        "(part target 0.5 s, segment 6 s). Lag is measured at the client, so it includes the client's "
        "own reading of 100 responses.",
        "",
        "| Measure | Result | Aim |",
        "|---|---|---|",
        f"| Cue-out 200 -> first blocking chunklist showing the DATERANGE ({len(markers['daterange'])} streams) | "
        f"max {max(markers['daterange']) * 1000:.0f} ms | <= 1 part target (500 ms) |",
        f"| Splice time -> first chunklist showing CUE-OUT | max {max(markers['cue_out']) * 1000:.0f} ms | "
        "<= 1 part target (500 ms) |",
        f"| Blocking-reload lag, part completion -> response at client, 100 held clients x 10 parts | "
        f"p50 {statistics.median(lag_ms):.1f} ms, p95 {p95:.1f} ms, max {lag_ms[-1]:.1f} ms | p95 <= 20 ms |",
        *(f"| Publisher CPU per second of media, {n} LL-HLS client(s) (chunklists + parts, both tracks) | "
          f"{value * 1000:.0f} ms CPU / s | shared bytes, sub-linear |" for n, value in cpu.items()),
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
    asyncio.run(main(parser.parse_args().append))
    sys.exit(0)

"""Load: 200 concurrent clients on loopback mixing statistics reads, playlist reads and sendEvents.

The simulator runs in its own process (`ome-simulator`, real clock, demo scenario); the clients run
here, each on one keep-alive connection written by hand, so the numbers measure the server rather
than an HTTP library. After the run the media is read back and checked without the simulator's code:

- every ID3 event the API accepted appears exactly once in the LL-HLS video segments (emsg boxes
  parsed here, tags read by mutagen), in an order consistent with acceptance (an event answered
  before another was sent is never placed after it; each sender's own events keep their order);
- every accepted cue-out and cue-in is in the LL-HLS and HLS playlists (DATERANGE pairs).

    .venv/bin/python bench/bench_load.py [--duration 30] [--clients 200] [--append]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import itertools
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from mutagen.id3 import ID3

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-load-token"
AUTH = "Basic " + base64.b64encode(TOKEN.encode()).decode()
ID3_STREAMS = ("news", "sports")
CUE_STREAMS = ("stream", "backup")
READ_STREAMS = ("stream", "news", "sports", "backup")
CUE_OUT_MS = 12_000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Server:
    """`ome-simulator` in a child process (its own CPU, as in production)."""

    def __init__(self, scenario: str = "demo", seed: int = 1) -> None:
        self.api_port, self.pub_port = _free_port(), _free_port()
        self.process = subprocess.Popen(
            [str(ROOT / ".venv/bin/ome-simulator"), "--scenario", scenario, "--seed", str(seed),
             "--api-port", str(self.api_port), "--publisher-port", str(self.pub_port), "--access-token", TOKEN],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("Press Ctrl+C"):
                break
        else:
            raise RuntimeError("the simulator did not start")

    def rss_kib(self) -> int:
        return _rss_kib(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Connection:
    """One keep-alive HTTP/1.1 connection; reconnects when the server closed it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, target: str, body: bytes = b"", auth: bool = False) -> tuple[int, bytes]:
        if self._streams is None:
            self._streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self._streams
        head = f"{method} {target} HTTP/1.1\r\nHost: default\r\nContent-Length: {len(body)}\r\n"
        if auth:
            head += f"Authorization: {AUTH}\r\nContent-Type: application/json\r\n"
        writer.write(head.encode() + b"\r\n" + body)
        try:
            status_line = await reader.readline()
            status = int(status_line.split(b" ", 2)[1])
            length, close = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
                elif name.lower() == b"connection" and value.strip().lower() == b"close":
                    close = True
            data = await reader.readexactly(length)
        except (IndexError, ValueError, ConnectionError, asyncio.IncompleteReadError):
            self.close()
            raise
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None


@dataclass
class Sent:
    label: str
    client: int
    n: int
    started: float
    ended: float
    status: int


@dataclass
class Run:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    id3: dict[str, list[Sent]] = field(default_factory=lambda: defaultdict(list))
    cues: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))

    async def timed(self, operation: str, call: asyncio.Future[tuple[int, bytes]] | object) -> tuple[int, bytes]:
        started = time.perf_counter()
        try:
            status, body = await call  # type: ignore[misc]
        except Exception:
            self.errors[operation] += 1
            return 0, b""
        self.latencies[operation].append(time.perf_counter() - started)
        if status >= 400:
            self.errors[operation] += 1
        return status, body


async def stats_reader(server: Server, run: Run, deadline: float, rng: random.Random, think: float) -> None:
    connection = Connection(server.api_port)
    targets = ["/v2/stats/current/vhosts/default", "/v2/stats/current/vhosts/default/apps/app",
               *(f"/v2/stats/current/vhosts/default/apps/app/streams/{s}" for s in READ_STREAMS),
               "/v1/vhosts/default/apps/app/streams"]
    while time.monotonic() < deadline:
        await run.timed("stats read", connection.request("GET", rng.choice(targets), auth=True))
        await asyncio.sleep(rng.uniform(0, 2 * think))
    connection.close()


async def playlist_reader(server: Server, run: Run, deadline: float, rng: random.Random, think: float) -> None:
    connection = Connection(server.pub_port)
    stream = rng.choice(READ_STREAMS)
    _, master = await run.timed("playlist read", connection.request("GET", f"/app/{stream}/llhls.m3u8"))
    names = re.findall(rb"chunklist_\d_(?:video|audio)_\w+_llhls\.m3u8", master) or [b"llhls.m3u8"]
    targets = [f"/app/{stream}/{n.decode()}" for n in names] + [f"/app/{stream}/playlist.m3u8?format=ts"]
    while time.monotonic() < deadline:
        await run.timed("playlist read", connection.request("GET", rng.choice(targets)))
        await asyncio.sleep(rng.uniform(0, 2 * think))
    connection.close()


async def id3_sender(server: Server, run: Run, deadline: float, rng: random.Random, client: int, stream: str,
                     think: float) -> None:
    connection = Connection(server.api_port)
    target = f"/v1/vhosts/default/apps/app/streams/{stream}:sendEvents"
    n = 0
    while time.monotonic() < deadline:
        label = f"c{client}-{n}"
        body = json.dumps([{"eventFormat": "id3v2", "eventType": "video",
                            "events": [{"frameType": "TXXX", "info": "load", "data": label}]}]).encode()
        started = time.monotonic()
        status, _ = await run.timed("sendEvents (ID3)", connection.request("POST", target, body, auth=True))
        run.id3[stream].append(Sent(label, client, n, started, time.monotonic(), status))
        n += 1
        await asyncio.sleep(rng.uniform(0, 2 * think))
    connection.close()


async def cue_sender(server: Server, run: Run, deadline: float, stream: str) -> None:
    """Breaks that keep the real server's rules: out (12 s), in after 4 s, next out 4 s later."""
    connection = Connection(server.api_port)
    target = f"/v1/vhosts/default/apps/app/streams/{stream}:sendEvents"
    while time.monotonic() < deadline - 9:
        for cue in ({"cueType": "out", "duration": CUE_OUT_MS}, {"cueType": "in"}):
            body = json.dumps([{"eventFormat": "cue", "events": [cue]}]).encode()
            status, _ = await run.timed("sendEvents (cue)", connection.request("POST", target, body, auth=True))
            run.cues[stream].append((str(cue["cueType"]), status))
            await asyncio.sleep(4)
    connection.close()


# -- reading the media back -------------------------------------------------------------------------

def _boxes(data: bytes) -> list[tuple[bytes, bytes]]:
    boxes, at = [], 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[at + 8:at + 16])[0], 16
        boxes.append((kind, data[at + header:at + size]))
        at += size
    return boxes


def _emsg_id3(payload: bytes) -> tuple[int, bytes] | None:
    """(event id, message data) of a version 1 emsg with the ID3 scheme."""
    if payload[0] != 1:
        return None
    event_id = struct.unpack(">I", payload[20:24])[0]
    scheme, value_and_data = payload[24:].split(b"\x00", 1)
    _value, data = value_and_data.split(b"\x00", 1)
    return (event_id, data) if scheme == b"https://aomedia.org/emsg/ID3" else None


async def media_labels(server: Server, stream: str) -> list[tuple[int, str]]:
    """(emsg id, TXXX:load value) of every ID3 tag in the stream's LL-HLS video segments, in media order."""
    connection = Connection(server.pub_port)
    _, master = await connection.request("GET", f"/app/{stream}/llhls.m3u8")
    name = re.search(rb"chunklist_\d_video_\w+_llhls\.m3u8", master)
    assert name, master
    _, chunklist = await connection.request("GET", f"/app/{stream}/{name.group(0).decode()}")
    found: list[tuple[int, str]] = []
    for segment in re.findall(rb"^(seg_\S+\.m4s)$", chunklist, re.MULTILINE):
        status, data = await connection.request("GET", f"/app/{stream}/{segment.decode()}")
        assert status == 200, (segment, status)
        for kind, payload in _boxes(data):
            carried = _emsg_id3(payload) if kind == b"emsg" else None
            if carried is not None:
                tag = ID3(io.BytesIO(carried[1]))  # type: ignore[no-untyped-call]
                found.extend((carried[0], str(frame.text[0])) for frame in tag.getall("TXXX:load"))
    connection.close()
    return found


def check_id3(sent: list[Sent], found: list[tuple[int, str]]) -> dict[str, object]:
    accepted = {s.label: s for s in sent if s.status == 200}
    labels = [label for _, label in found]
    counts: dict[str, int] = defaultdict(int)
    for label in labels:
        counts[label] += 1
    missing = [label for label in accepted if counts[label] == 0]
    doubled = [label for label, count in counts.items() if count > 1]
    unknown = [label for label in counts if label not in accepted]
    ids = [event_id for event_id, _ in found]
    inversions, latest_start = 0, float("-inf")
    per_client: dict[int, int] = {}
    client_order_broken = 0
    for label in labels:
        event = accepted.get(label)
        if event is None:
            continue
        if event.ended < latest_start:  # answered before an event placed earlier was even sent
            inversions += 1
        latest_start = max(latest_start, event.started)
        if per_client.get(event.client, -1) > event.n:
            client_order_broken += 1
        per_client[event.client] = event.n
    return {"accepted": len(accepted), "in media": len(labels), "missing": len(missing), "doubled": len(doubled),
            "unknown": len(unknown), "order inversions": inversions, "sender order broken": client_order_broken,
            "emsg ids increasing": all(a < b for a, b in itertools.pairwise(ids))}


async def check_cues(server: Server, stream: str, sent: list[tuple[str, int]]) -> dict[str, object]:
    connection = Connection(server.pub_port)
    _, master = await connection.request("GET", f"/app/{stream}/llhls.m3u8")
    name = re.search(rb"chunklist_\d_video_\w+_llhls\.m3u8", master)
    assert name
    result: dict[str, object] = {"outs accepted": sum(1 for c, s in sent if c == "out" and s == 200),
                                 "ins accepted": sum(1 for c, s in sent if c == "in" and s == 200)}
    for protocol, target in (("LL-HLS", name.group(0).decode()), ("HLS", "playlist.m3u8?format=ts")):
        _, text = await connection.request("GET", f"/app/{stream}/{target}")
        if protocol == "HLS":
            media = re.search(rb"medialist_\w+_hls\.m3u8", text)
            assert media, text
            _, text = await connection.request("GET", f"/app/{stream}/{media.group(0).decode()}")
        lines = [line for line in text.decode().splitlines() if line.startswith("#EXT-X-DATERANGE")]
        outs = {re.search(r'ID="([^"]+)"', line).group(1) for line in lines  # type: ignore[union-attr]
                if "SCTE35-OUT" in line and f"PLANNED-DURATION={CUE_OUT_MS / 1000:.3f}" in line}
        ins = {re.search(r'ID="([^"]+)"', line).group(1) for line in lines  # type: ignore[union-attr]
               if "SCTE35-IN" in line}
        result[f"{protocol} breaks (out)"] = len(outs)
        result[f"{protocol} breaks ended by an in"] = len(ins & outs)
    connection.close()
    return result


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    server = Server(seed=args.seed)
    rng = random.Random(args.seed)
    run = Run()
    try:
        rss_start = server.rss_kib()
        id3_clients = max(2, args.clients * 6 // 100)
        playlist_clients = args.clients * 25 // 100
        stats_clients = args.clients - id3_clients - playlist_clients - len(CUE_STREAMS)
        deadline = time.monotonic() + args.duration
        tasks = [stats_reader(server, run, deadline, random.Random(rng.random()), 0.5) for _ in range(stats_clients)]
        tasks += [playlist_reader(server, run, deadline, random.Random(rng.random()), 0.5)
                  for _ in range(playlist_clients)]
        tasks += [id3_sender(server, run, deadline, random.Random(rng.random()), i, ID3_STREAMS[i % 2], 0.25)
                  for i in range(id3_clients)]
        tasks += [cue_sender(server, run, deadline, stream) for stream in CUE_STREAMS]
        started = time.monotonic()
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - started
        rss_end = server.rss_kib()
        await asyncio.sleep(8)  # the segment holding the last event completes within one segment duration
        id3_checks = {s: check_id3(run.id3[s], await media_labels(server, s)) for s in ID3_STREAMS}
        cue_checks = {s: await check_cues(server, s, run.cues[s]) for s in CUE_STREAMS}
    finally:
        server.stop()
    operations = {
        name: {"count": len(values), "p50 ms": round(_percentile(values, 0.5) * 1000, 2),
               "p99 ms": round(_percentile(values, 0.99) * 1000, 2), "errors": run.errors.get(name, 0)}
        for name, values in sorted(run.latencies.items())}
    return {"clients": args.clients, "duration s": round(elapsed, 1),
            "clients by role": {"stats": stats_clients, "playlist": playlist_clients, "id3": id3_clients,
                                "cue": len(CUE_STREAMS)},
            "requests per second": round(sum(len(v) for v in run.latencies.values()) / elapsed, 1),
            "operations": operations, "id3": id3_checks, "cues": cue_checks,
            "simulator RSS MiB": [round(rss_start / 1024, 1), round(rss_end / 1024, 1)],
            "load average": os.getloadavg()[0]}


def _markdown(result: dict[str, object], command: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    operations: dict[str, dict[str, float]] = result["operations"]  # type: ignore[assignment]
    lines = [f"Measured {when} with `{command}` on a shared 2-core machine (load average "
             f"{result['load average']:.1f} at the end); the simulator in its own process, {result['clients']} "
             f"clients {result['clients by role']} in this one, {result['duration s']} s, "
             f"{result['requests per second']} requests/s in all.", "",
             "| Operation | Requests | p50 | p99 | Errors |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {v['count']} | {v['p50 ms']} ms | {v['p99 ms']} ms | {v['errors']} |"
              for name, v in operations.items()]
    lines += ["", "| Check | Result |", "|---|---|"]
    for stream, checks in result["id3"].items():  # type: ignore[attr-defined]
        lines.append(f"| ID3 on app/{stream} | " + ", ".join(f"{k} {v}" for k, v in checks.items()) + " |")
    for stream, checks in result["cues"].items():  # type: ignore[attr-defined]
        lines.append(f"| cues on app/{stream} | " + ", ".join(f"{k} {v}" for k, v in checks.items()) + " |")
    lines.append(f"| simulator RSS start / end of load | {result['simulator RSS MiB'][0]} MiB / "  # type: ignore[index]
                 f"{result['simulator RSS MiB'][1]} MiB |")  # type: ignore[index]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the raw result here")
    parser.add_argument("--append", action="store_true", help="append the tables to BENCHMARKS.md")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    command = " ".join(["bench/bench_load.py", *sys.argv[1:]])
    text = _markdown(result, command)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    if args.append:
        with (ROOT / "BENCHMARKS.md").open("a", encoding="utf-8") as out:
            out.write("\n## Load: 200 clients, stats + playlists + sendEvents (bench/bench_load.py)\n\n" + text)
    ok = all(c["missing"] == 0 and c["doubled"] == 0 and c["unknown"] == 0 and c["order inversions"] == 0
             and c["sender order broken"] == 0 for c in result["id3"].values())  # type: ignore[attr-defined]
    ok = ok and all(c["LL-HLS breaks (out)"] == c["outs accepted"] == c["HLS breaks (out)"]
                    for c in result["cues"].values())  # type: ignore[attr-defined]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

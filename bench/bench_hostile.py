"""What hostile replies cost the console's wire layer: playlist parse time per MB on the worst inputs we
know (against the old regular-expression attribute parser on the same lines), and peak memory of a
client process reading bombs and huge bodies, against the cap that bounds it.

    .venv/bin/python bench/bench_hostile.py [--rounds 3]

Parse times are process CPU seconds, best of `rounds`. Memory: each case runs in a fresh process that
reads one reply from a server in another process, after a small warm-up reply; the figure is that
client's peak RSS (ru_maxrss) minus its RSS just before the hostile request, so imports, the interpreter
and the open connection are left out.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable

from omeconsole.api.hls import MAX_LINE_CHARS, parse_attributes, parse_media_playlist

MiB = 1024 * 1024
_OLD_ATTRIBUTE = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')


def old_parse_attributes(text: str) -> dict[str, str]:
    """The parser before this change, kept here only as the baseline."""
    return {name: value[1:-1] if value.startswith('"') else value for name, value in _OLD_ATTRIBUTE.findall(text)}


def _playlist(lines: list[str], size: int) -> str:
    body: list[str] = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:1"]
    total = 0
    index = 0
    while total < size:
        line = lines[index % len(lines)].replace("{i}", str(index))
        body.append(line)
        total += len(line) + 1
        index += 1
    return "\n".join(body) + "\n"


def _hostile_inputs() -> dict[str, str]:
    width = MAX_LINE_CHARS - 20  # as long as a line may be and still be interpreted
    return {
        "normal LL-HLS (parts, PDT, segments)": _playlist([
            "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:{i:0>2}.000+00:00".replace("{i:0>2}", "00"),
            '#EXT-X-PART:DURATION=0.500,URI="part_0_{i}_0_llhls.m4s",INDEPENDENT=YES',
            '#EXT-X-PART:DURATION=0.500,URI="part_0_{i}_1_llhls.m4s"',
            "#EXTINF:1.000,", "seg_0_{i}_llhls.m4s"], MiB),
        "DATERANGE lines of one endless name": _playlist(["#EXT-X-DATERANGE:" + "A" * width], MiB),
        "DATERANGE lines of '=' runs": _playlist(["#EXT-X-DATERANGE:" + "A=" * (width // 2)], MiB),
        "PART lines of commas": _playlist(["#EXT-X-PART:" + "A-B," * (width // 4)], MiB),
        "DATERANGE lines of short attributes": _playlist(["#EXT-X-DATERANGE:" + "A=1," * (width // 4)], MiB),
        "DATERANGE lines of quoted attributes": _playlist(['#EXT-X-DATERANGE:' + 'X="",' * (width // 5)], MiB),
        "one 1 MB line": "#EXTM3U\n#EXT-X-DATERANGE:" + "A" * MiB + "\n",
    }


def _cpu(call: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        call()
        best = min(best, time.process_time() - started)
    return best


def parse_times(rounds: int) -> None:
    print("| input (1 MB) | parse_media_playlist, CPU s/MB | old attribute parser on its longest line "
          "(first 40 kB) | new parser on the same |")
    print("|---|---|---|---|")
    for name, text in _hostile_inputs().items():
        size_mb = len(text) / MiB
        new = _cpu(lambda text=text: parse_media_playlist(text), rounds) / size_mb  # type: ignore[misc]
        longest = max(text.splitlines(), key=len)
        sample = longest.partition(":")[2][:40_000]
        old = _cpu(lambda sample=sample: old_parse_attributes(sample), 1)
        new_line = _cpu(lambda sample=sample: parse_attributes(sample), rounds)
        print(f"| {name} | {new:.3f} | {old * 1000:.1f} ms ({len(sample) / 1000:.0f} kB) | {new_line * 1000:.1f} ms |")


# -- memory ----------------------------------------------------------------------------------------------

CASES = {
    "gzip bomb, 1 MB -> 1 GiB, management reply": ("api", "bomb"),
    "400 MB body, Content-Length declared": ("api", "declared"),
    "400 MB body, no length (until close)": ("api", "stream"),
    "gzip bomb, 1 MB -> 1 GiB, playlist": ("playlist", "bomb"),
    "gzip bomb, 1 MB -> 1 GiB, part": ("part", "bomb"),
}


def _serve(kind: str) -> None:
    """A server process answering every GET with `kind`; prints its URL."""
    from aiohttp import web

    bomb = gzip.compress(bytes(MiB), 9) * 1024
    served = [0]

    async def handler(request: web.Request) -> web.StreamResponse:
        served[0] += 1
        if served[0] == 1:  # the client's warm-up: a small, valid answer
            return web.json_response({"message": "OK", "response": ["warm"], "statusCode": 200})
        if kind == "bomb":
            return web.Response(body=bomb, headers={"Content-Encoding": "gzip"})
        response = web.StreamResponse(headers={"Content-Length": str(400 * MiB)} if kind == "declared" else {})
        await response.prepare(request)
        chunk = b" " * MiB
        try:
            for _ in range(400):
                await response.write(chunk)
        except ConnectionError:  # the client stopped reading at its cap and left: the expected end
            pass
        return response

    app = web.Application()
    app.router.add_get("/{tail:.*}", handler)

    async def run() -> None:
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        print(f"http://127.0.0.1:{port}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(run())


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def _read_one(target: str, url: str) -> None:
    """In a fresh process: read one reply through the console's reader; print RSS growth and the outcome."""
    from omeconsole.api.client import OmeClient
    from omeconsole.api.publisher import PlaylistUnreadable, PublisherReader

    async def run() -> str:
        if target == "api":
            async with OmeClient(url, "token") as client:
                await client.list_vhosts()  # warm: aiohttp imported, session and connection open
                before = _rss_kib()
                try:
                    await client.list_vhosts()
                    outcome = "read"
                except Exception as error:
                    outcome = type(error).__name__
        else:
            reader = PublisherReader(url, "app", "stream")
            await reader.part(url, "warm")  # warm: aiohttp imported, session and connection open
            before = _rss_kib()
            try:
                if target == "playlist":
                    await reader.chunklist()
                    outcome = "read"
                else:
                    outcome = "None" if await reader.part(url + "/app/stream/", "part.m4s") is None else "read"
            except PlaylistUnreadable:
                outcome = "PlaylistUnreadable"
            finally:
                await reader.aclose()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return json.dumps({"growth_mib": max(0, peak - before) / 1024, "outcome": outcome})

    print(asyncio.run(run()))


def memory() -> None:
    from omeconsole.api.client import DEFAULT_MAX_REPLY_BYTES
    from omeconsole.api.publisher import DEFAULT_MAX_PART_BYTES, DEFAULT_MAX_PLAYLIST_BYTES

    caps = {"api": DEFAULT_MAX_REPLY_BYTES, "playlist": DEFAULT_MAX_PLAYLIST_BYTES, "part": DEFAULT_MAX_PART_BYTES}
    print("| reply | cap (default) | client peak RSS growth | outcome |")
    print("|---|---|---|---|")
    for name, (target, kind) in CASES.items():
        server = subprocess.Popen([sys.executable, __file__, "--serve", kind], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            done = subprocess.run([sys.executable, __file__, "--read", target, url], capture_output=True, text=True,
                                  check=True, timeout=300)
            result = json.loads(done.stdout.strip().splitlines()[-1])
        finally:
            server.terminate()
            server.wait(10)
        print(f"| {name} | {caps[target] / MiB:g} MiB | {result['growth_mib']:.1f} MiB | {result['outcome']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--read", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve)
        return
    if args.read:
        _read_one(*args.read)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}")
    parse_times(args.rounds)
    print()
    memory()


if __name__ == "__main__":
    main()

"""How long `cue-out --wait-confirm` holds its POST back when the publisher trickles one byte a second.

Starts `ome-simulator` (the management API) and a publisher that answers every request with headers and
then one byte a second, and runs `omeconsole cue-out` alternately without and with `--wait-confirm`,
timing the line that reports the server's answer (the POST's outcome). The difference is what the
playlist baseline costs the request. Usage: `.venv/bin/python bench/bench_wait_confirm.py [RUNS]`.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


async def _trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apple.mpegurl\r\nContent-Length: 100000\r\n\r\n")
    try:
        while True:
            writer.write(b"#")
            await writer.drain()
            await asyncio.sleep(1)
    except (ConnectionError, asyncio.CancelledError):
        writer.close()


async def main(runs: int) -> None:
    server = await asyncio.start_server(_trickle, "127.0.0.1", 0)
    publisher = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    simulator = subprocess.Popen([str(BIN / "ome-simulator"), "--api-port", "0", "--publisher-port", "0",
                                  "--access-token", "bench"], stdout=subprocess.PIPE, text=True)
    assert simulator.stdout is not None
    api = next(m[1] for line in simulator.stdout if (m := re.search(r"management API\s+(http://\S+)", line)))
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "OME_API_URL": api, "OME_ACCESS_TOKEN": "bench", "OME_PUBLISHER_URL": publisher,
               "OMECONSOLE_AUDIT_LOG": f"{scratch}/audit.jsonl", "OMECONSOLE_CONFIG": f"{scratch}/none.toml"}
        times: dict[str, list[float]] = {"plain": [], "wait-confirm": []}
        for run in range(2 * runs):
            kind = "wait-confirm" if run % 2 else "plain"
            extra = ["--wait-confirm", "--confirm-timeout", "1"] if run % 2 else []
            start = time.monotonic()
            child = await asyncio.create_subprocess_exec(
                str(BIN / "omeconsole"), "cue-out", "default/app/stream", "--duration", "30", *extra, env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            assert child.stdout is not None
            line = await child.stdout.readline()
            times[kind].append(time.monotonic() - start)
            await child.communicate()
            assert b"HTTP 200" in line, line
    simulator.terminate()
    simulator.wait()
    server.close()
    for kind, values in times.items():
        print(f"{kind:>12}: answer line after {min(values):.2f} / {sorted(values)[len(values) // 2]:.2f} / "
              f"{max(values):.2f} s (min / median / max of {len(values)})")
    extra_s = sorted(times["wait-confirm"])[runs // 2] - sorted(times["plain"])[runs // 2]
    print(f"the baseline read held the POST back by {extra_s:.2f} s (median difference)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))

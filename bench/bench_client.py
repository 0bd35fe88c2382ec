"""HTTP client CPU per GET, side by side: which library should carry all of the console's traffic.

Each candidate runs in this process against two servers in their own processes (so this process's CPU
is the client's alone): the real simulator (`demo` scenario, one stream's v2 statistics, the console's
most frequent request) and a trivial ASGI app under uvicorn that answers the same bytes with the same
headers. Keep-alive connections; sequential, then 4 requests in flight at once. Candidates are measured
in alternating rounds (A B C ... A B C ...) so that machine noise falls on all of them alike; the median
round is reported, with its ratio to httpx (the client the console used before).

    .venv/bin/python bench/bench_client.py [--requests 1000] [--rounds 5]

A candidate that is not installed is skipped and named. Install the others in a separate virtual
environment (`pip install -e . httpx aiosonic niquests curl-cffi pyreqwest httpr`): niquests brings
urllib3-future, which replaces urllib3 and breaks requests-based test tools in the project's own venv.

    .venv/bin/python bench/bench_client.py --imports [--baseline DIR]

compares instead the CPU time of importing the console's wire layer and entry point, and of getting to a
constructed client (median of 9 fresh interpreters, alternated) with a checkout of an earlier commit in DIR
(`git archive REV | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import importlib.util
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

TOKEN = "bench-token"
AUTH = {"Authorization": "Basic " + base64.b64encode(TOKEN.encode()).decode(), "Accept": "application/json"}
Fetch = Callable[[str], Awaitable[int]]
"""GET one URL (keep-alive) and return the body's length."""


# -- candidates: each opens a keep-alive client and hands back a fetch and a close ---------------------

Close = Callable[[], Awaitable[object]]


class _Candidate:
    name = ""
    module = ""
    targets = ("simulator", "asgi")

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None

    async def start(self) -> tuple[Fetch, Close]:
        raise NotImplementedError

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Fetch]:
        fetch, close = await self.start()
        try:
            yield fetch
        finally:
            await close()


class _Httpx(_Candidate):
    name, module = "httpx", "httpx"

    async def start(self) -> tuple[Fetch, Close]:
        import httpx

        client = httpx.AsyncClient(headers=AUTH, timeout=10)

        async def fetch(url: str) -> int:
            return len((await client.get(url)).content)
        return fetch, client.aclose


class _Aiohttp(_Candidate):
    name, module = "aiohttp", "aiohttp"

    async def start(self) -> tuple[Fetch, Close]:
        import aiohttp

        session = aiohttp.ClientSession(headers=AUTH, timeout=aiohttp.ClientTimeout(total=10))

        async def fetch(url: str) -> int:
            async with session.get(url) as response:
                return len(await response.read())
        return fetch, session.close


class _Aiosonic(_Candidate):
    name, module = "aiosonic", "aiosonic"

    async def start(self) -> tuple[Fetch, Close]:
        import aiosonic

        client = aiosonic.HTTPClient()

        async def fetch(url: str) -> int:
            return len(await (await client.get(url, headers=AUTH)).content())
        return fetch, client.aclose


class _Niquests(_Candidate):
    name, module = "niquests", "niquests"

    async def start(self) -> tuple[Fetch, Close]:
        import niquests

        session = niquests.AsyncSession()
        session.headers.update(AUTH)

        async def fetch(url: str) -> int:
            return len((await session.get(url, timeout=10)).content or b"")
        return fetch, session.close


class _CurlCffi(_Candidate):
    name, module = "curl-cffi", "curl_cffi"

    async def start(self) -> tuple[Fetch, Close]:
        from curl_cffi.requests import AsyncSession

        session = AsyncSession(headers=AUTH, timeout=10)

        async def fetch(url: str) -> int:
            return len((await session.get(url)).content)
        return fetch, session.close


class _Pyreqwest(_Candidate):
    name, module = "pyreqwest", "pyreqwest"

    async def start(self) -> tuple[Fetch, Close]:
        from pyreqwest.client import ClientBuilder

        client = ClientBuilder().default_headers(AUTH).build()

        async def fetch(url: str) -> int:
            return len(await (await client.get(url).build().send()).bytes())
        return fetch, client.close


class _Httpr(_Candidate):
    name, module = "httpr", "httpr"

    async def start(self) -> tuple[Fetch, Close]:
        import httpr

        client = httpr.AsyncClient(headers=AUTH, timeout=10)

        async def fetch(url: str) -> int:
            return len((await client.get(url)).content)
        return fetch, client.aclose


class _Omeconsole(_Candidate):
    """The console's own transport: aiohttp plus the caps, deadlines and error mapping of api/http.py."""

    name, module = "omeconsole HttpTransport", "aiohttp"

    async def start(self) -> tuple[Fetch, Close]:
        from omeconsole.api.http import Cap, HttpTransport

        transport = HttpTransport(headers=AUTH)  # as OmeClient makes it: its headers on the session
        cap = Cap(8 * 1024 * 1024, "max_reply_bytes")

        async def fetch(url: str) -> int:
            return len((await transport.request("GET", url, cap=cap)).body)
        return fetch, transport.aclose


class _OmeClientStats(_Candidate):
    """Not a candidate: the whole read the console does per poll (transport, JSON, envelope, model)."""

    name, module = "omeconsole OmeClient.stats()", "aiohttp"
    targets = ("simulator",)  # it detects the server first, which the one-reply ASGI app cannot answer

    async def start(self) -> tuple[Fetch, Close]:
        from urllib.parse import unquote, urlsplit

        from omeconsole.api.client import OmeClient
        from omeconsole.model.paths import NodePath

        clients: list[OmeClient] = []

        async def fetch(url: str) -> int:
            parts = urlsplit(url)
            if not clients:  # its first call detects the edition: inside the warm-up
                clients.append(OmeClient(f"{parts.scheme}://{parts.netloc}", TOKEN))
            stats = await clients[0].stats(NodePath(*(unquote(p) for p in parts.path.split("/")[5::2])))
            return 1000 if stats.total_bytes_in is not None else 0

        async def close() -> None:
            for client in clients:
                await client.aclose()
        return fetch, close


CANDIDATES: tuple[_Candidate, ...] = (_Httpx(), _Aiohttp(), _Aiosonic(), _Niquests(), _CurlCffi(), _Pyreqwest(),
                                      _Httpr(), _Omeconsole(), _OmeClientStats())


# -- servers -----------------------------------------------------------------------------------------

def _start(command: list[str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(pattern, line)
        if found:
            return process, found.group(1)
    raise SystemExit(f"{command[0]} did not start")


def start_simulator() -> tuple[subprocess.Popen[str], str]:
    binary = Path(sys.executable).parent / "ome-simulator"
    return _start([str(binary), "--api-port", "0", "--publisher-port", "0", "--access-token", TOKEN],
                  r"management API\s+(http://\S+)")


def start_asgi(body: bytes, headers: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """uvicorn (its defaults: uvloop, httptools) serving `body` with `headers` on every GET."""
    payload = json.dumps({"body": body.decode("latin-1"), "headers": headers})
    return _start([sys.executable, __file__, "--serve-asgi", payload], r"Uvicorn running on (http://\S+)")


def _serve_asgi(payload: str) -> None:
    import uvicorn

    spec = json.loads(payload)
    body = spec["body"].encode("latin-1")
    headers = [(k.encode(), v.encode()) for k, v in spec["headers"].items()]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    uvicorn.run(app, host="127.0.0.1", port=0, log_level="info", access_log=False)


# -- measuring ----------------------------------------------------------------------------------------

async def _cpu_per_get(candidate: _Candidate, url: str, count: int, in_flight: int, expected: int | None) -> float:
    """`expected`: the body's exact length (the ASGI app); None: any statistics record (the simulator's vary)."""

    def wrong(length: int) -> bool:
        if candidate.name.startswith("omeconsole OmeClient"):
            return length != 1000  # it answers with a parsed reading, not bytes
        return length != expected if expected is not None else length < 200

    async with candidate.open() as fetch:
        for _ in range(20):  # warm: connections open, caches filled
            got = await fetch(url)
            if wrong(got):
                raise SystemExit(f"{candidate.name}: {got} bytes, not {expected}")
        per_worker = count // in_flight

        async def worker() -> None:
            for _ in range(per_worker):
                if wrong(await fetch(url)):
                    raise SystemExit(f"{candidate.name}: wrong body length")

        started = time.process_time()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        return 1e6 * (time.process_time() - started) / (per_worker * in_flight)


def _stream_stats_path(api_url: str) -> str:
    import httpx

    with httpx.Client(base_url=api_url, headers=AUTH, timeout=10) as http:
        vhost = http.get("/v1/vhosts").json()["response"][0]
        app = http.get(f"/v1/vhosts/{vhost}/apps").json()["response"][0]
        stream = http.get(f"/v1/vhosts/{vhost}/apps/{app}/streams").json()["response"][0]
    return f"/v2/stats/current/vhosts/{vhost}/apps/{app}/streams/{stream}"


def _reply_of(url: str) -> tuple[bytes, dict[str, str]]:
    import httpx

    response = httpx.get(url, headers=AUTH, timeout=10)
    keep = {k: v for k, v in response.headers.items() if k.lower() in ("content-type", "access-control-allow-origin")}
    return response.content, keep


IMPORTED = ("omeconsole.api.client", "omeconsole.api.publisher", "omeconsole.cli.main")
READY = "import + OmeClient(...) constructed"
FIRST_REPLY = "import + construct + first reply (list_vhosts from the simulator)"


_CPU = "import time; t = time.process_time(); {code}; print((time.process_time() - t) * 1e6)"
READY_CODE = "from omeconsole.api.client import OmeClient; OmeClient('https://ome.example:8081', 'token')"
FIRST_REPLY_CODE = ("exec('import asyncio\\nfrom omeconsole.api.client import OmeClient\\nasync def first():\\n"
                    "    async with OmeClient(URL, TOKEN) as client:\\n        await client.list_vhosts()\\n"
                    "asyncio.run(first())')")


def _cpu_us(source: Path, code: str) -> int:
    """CPU microseconds of `code` in a fresh interpreter importing from `source` (CPU, not wall time, so
    that other work on the machine moves the figure less)."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", _CPU.format(code=code)], env=env, capture_output=True, text=True,
                          check=True, cwd=source)
    return int(float(done.stdout.strip()))


def imports(baseline: Path | None, runs: int = 9) -> None:
    simulator, api_url = start_simulator()
    try:
        first_reply = FIRST_REPLY_CODE.replace("URL", json.dumps(api_url)).replace("TOKEN", json.dumps(TOKEN))
        _imports(baseline, runs, first_reply)
    finally:
        simulator.terminate()
        simulator.wait(10)


def _imports(baseline: Path | None, runs: int, first_reply: str) -> None:
    here = Path(__file__).resolve().parent.parent
    trees = {"this tree": here, **({"baseline": baseline.resolve()} if baseline else {})}
    times: dict[tuple[str, str], list[int]] = {}
    for _ in range(runs):
        for label, source in trees.items():
            for module in (*IMPORTED, "httpx", "aiohttp"):
                times.setdefault((label, module), []).append(_cpu_us(source, f"import {module}"))
            times.setdefault((label, READY), []).append(_cpu_us(source, READY_CODE))
            times.setdefault((label, FIRST_REPLY), []).append(_cpu_us(source, first_reply))
    print(f"CPU ms to import, median of {runs} fresh interpreters, alternated; load {os.getloadavg()[0]:.2f}")
    print("| module | " + " | ".join(trees) + " |")
    print("|---|" + "---|" * len(trees))
    for module in (*IMPORTED, "httpx", "aiohttp", READY, FIRST_REPLY):
        cells = [f"{statistics.median(times[(label, module)]) / 1000:.0f}" for label in trees]
        print(f"| {module} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="GETs per measurement (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--imports", action="store_true", help="measure import times instead")
    parser.add_argument("--baseline", type=Path, help="with --imports: a checkout of an earlier commit")
    parser.add_argument("--serve-asgi", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_asgi:
        _serve_asgi(args.serve_asgi)
        return
    if args.imports:
        imports(args.baseline)
        return
    candidates = [c for c in CANDIDATES if c.available()]
    skipped = [c.name for c in CANDIDATES if not c.available()]
    simulator, api_url = start_simulator()
    asgi: subprocess.Popen[str] | None = None
    try:
        path = _stream_stats_path(api_url)
        body, headers = _reply_of(api_url + path)
        asgi, asgi_url = start_asgi(body, headers)
        targets = {"simulator": api_url + path, "asgi": asgi_url.rstrip("/") + path}
        results: dict[tuple[str, str, int], list[float]] = {}
        for _ in range(args.rounds):
            for target, url in targets.items():
                for in_flight in (1, 4):
                    for candidate in (c for c in candidates if target in c.targets):
                        expected = len(body) if target == "asgi" else None
                        cpu = asyncio.run(_cpu_per_get(candidate, url, args.requests, in_flight, expected))
                        results.setdefault((target, candidate.name, in_flight), []).append(cpu)
    finally:
        for process in (simulator, asgi):
            if process is not None:
                process.terminate()
                process.wait(10)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load before {os.getloadavg()[0]:.2f}; "
          f"{args.requests} GETs x {args.rounds} rounds; body {len(body)} bytes")
    if skipped:
        print(f"not installed, skipped: {', '.join(skipped)}")
    print("| client | server | in flight | CPU µs/GET (median) | min-max | vs httpx |")
    print("|---|---|---|---|---|---|")
    for target in targets:
        for in_flight in (1, 4):
            base = statistics.median(results[(target, "httpx", in_flight)]) if any(
                c.name == "httpx" for c in candidates) else None
            for candidate in (c for c in candidates if target in c.targets):
                runs = results[(target, candidate.name, in_flight)]
                median = statistics.median(runs)
                ratio = f"{median / base:.2f}x" if base else "-"
                print(f"| {candidate.name} | {target} | {in_flight} | {median:.0f} | "
                      f"{min(runs):.0f}-{max(runs):.0f} | {ratio} |")


if __name__ == "__main__":
    main()

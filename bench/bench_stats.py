"""Stats requests per second on one uvicorn worker (uvloop + httptools): the simulator with the `demo`
and `scale` scenarios, side by side with the same uvicorn serving a trivial ASGI app that returns the
same bytes. Also the cost of one world tick at 10,000 streams.

    .venv/bin/python bench/bench_stats.py [--seconds 5] [--rounds 3] [--connections 32] [--baseline DIR]

With --baseline (a checkout of older code, e.g. `git archive REV | tar -x -C DIR`), that code's simulator is
served too (`demo before`, `scale before`) by the same Python, in the same interleaved rounds.

Each server runs in its own process (pinned to CPU 0 when there are two or more); the load generator
runs in another (pinned to CPU 1): wrk if it is installed (`apt-get install -y wrk`), else a small
asyncio client in this script. Rounds interleave the three servers and the median is reported, so
a noisy neighbour hurts all three alike. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOKEN = "ome-access-token"
AUTH = "Basic " + base64.b64encode(TOKEN.encode()).decode()
PATHS = {
    "demo": "/v2/stats/current/vhosts/default/apps/app/streams/stream",
    "scale": "/v2/stats/current/vhosts/default/apps/app000/streams/s0000",
}
ROOT = Path(__file__).resolve().parent.parent


# -- servers (run in child processes) -------------------------------------------------------------------


def serve_simulator(scenario: str, port: int) -> None:
    import uvloop

    from simulator.http.server import start_simulator

    async def main() -> None:
        await start_simulator(scenario, api_port=port, publisher_port=0, access_token=TOKEN, seed=1)
        print("ready", flush=True)
        await asyncio.Event().wait()

    uvloop.run(main())


def serve_trivial(body_file: str, port: int) -> None:
    """The same bytes and headers as the simulator, with no work at all: the ceiling for one worker."""
    import uvicorn
    import uvloop

    body = Path(body_file).read_bytes()
    headers = [(b"server", b"OvenMediaEngine"), (b"content-type", b"application/json;charset=UTF-8"),
               (b"content-length", str(len(body)).encode())]
    start = {"type": "http.response.start", "status": 200, "headers": headers}
    message = {"type": "http.response.body", "body": body}

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        await send(start)
        await send(message)

    async def main() -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning",
                                access_log=False, loop="none", http="httptools", server_header=False)
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        print("ready", flush=True)
        await task

    uvloop.run(main())


# -- load generators ----------------------------------------------------------------------------------


def run_wrk(url: str, seconds: float, connections: int) -> float:
    result = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "-H", f"Authorization: {AUTH}", url],
        capture_output=True, text=True, check=True, preexec_fn=_pin(1),
    )
    match = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout)
    if match is None or non_2xx is not None:
        raise RuntimeError(f"wrk failed: {result.stdout}{result.stderr}")
    return float(match.group(1))


def run_python_client(url: str, seconds: float, connections: int) -> float:
    """Keep-alive GETs on many connections from one asyncio loop; counts complete 200 responses."""
    code = f"""
import asyncio, re, time
host, port, path = re.match(r"http://([^:/]+):(\\d+)(/.*)", {url!r}).groups()
request = ("GET " + path + " HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: {AUTH}\\r\\n\\r\\n").encode()
done = 0
async def worker(deadline):
    global done
    reader, writer = await asyncio.open_connection(host, int(port))
    while time.perf_counter() < deadline:
        writer.write(request)
        head = await reader.readuntil(b"\\r\\n\\r\\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        length = int(re.search(rb"content-length: (\\d+)", head, re.I).group(1))
        await reader.readexactly(length)
        done += 1
    writer.close()
async def main():
    start = time.perf_counter()
    await asyncio.gather(*(worker(start + {seconds}) for _ in range({connections})))
    print(done / (time.perf_counter() - start))
asyncio.run(main())
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            preexec_fn=_pin(1))
    return float(result.stdout.strip())


def _pin(cpu: int):  # type: ignore[no-untyped-def]
    def pin() -> None:
        if (os.cpu_count() or 1) >= 2:
            os.sched_setaffinity(0, {cpu})
    return pin


# -- orchestration ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(args: list[str], code: Path | None = None) -> tuple[subprocess.Popen[str], int]:
    """A server in its own process; `code` is another checkout whose `simulator` package it imports."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(code)} if code else None
    process = subprocess.Popen([sys.executable, __file__, *args, str(port)], stdout=subprocess.PIPE, text=True,
                               cwd=code or ROOT, preexec_fn=_pin(0), env=env)
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError(f"server {args} did not start")
    return process, port


def fetch(port: int, path: str) -> bytes:
    import httpx

    response = httpx.get(f"http://127.0.0.1:{port}{path}", headers={"Authorization": AUTH}, timeout=30)
    response.raise_for_status()
    return response.content


def tick_cost(streams_scenario: str = "scale", ticks: int = 60) -> tuple[float, float, float]:
    """Median and 90th percentile milliseconds of one world tick, and microseconds of a no-op advance()."""
    from simulator.world.clock import ManualClock
    from simulator.world.scenario import load_scenario
    from simulator.world.world import World

    clock = ManualClock()
    world = World(load_scenario(streams_scenario), clock, seed=1)
    times = []
    for _ in range(ticks + 5):
        clock.advance(world.tick_ms / 1000)
        start = time.perf_counter()
        world.advance()
        times.append((time.perf_counter() - start) * 1000)
    times = sorted(times[5:])
    calls = 100_000
    start = time.perf_counter()
    for _ in range(calls):
        world.advance()
    idle_us = (time.perf_counter() - start) / calls * 1e6
    return statistics.median(times), times[int(len(times) * 0.9)], idle_us


def app_cost(calls: int = 50_000) -> dict[str, float]:
    """Microseconds of application code per stats request, without the server or the network.

    The same fake ASGI request goes to the simulator's app (demo and scale worlds) and to the trivial
    app; this part of the figure does not depend on the load generator or a noisy neighbour as much.
    """
    from simulator.http.auth import basic_header
    from simulator.http.management import ManagementApi
    from simulator.world.clock import SystemClock
    from simulator.world.scenario import load_scenario
    from simulator.world.world import World

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: object) -> None:
        return None

    def scope(path: str) -> dict[str, object]:
        return {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
                "headers": [(b"host", b"127.0.0.1"), (b"authorization", basic_header(TOKEN).encode())]}

    async def trivial(scope: object, receive: object, send: object) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"{}"})  # type: ignore[operator]

    async def timed(app, request) -> float:  # type: ignore[no-untyped-def]
        for _ in range(1000):
            await app(request, receive, send)
        start = time.perf_counter()
        for _ in range(calls):
            await app(request, receive, send)
        return (time.perf_counter() - start) / calls * 1e6

    results = {"trivial": asyncio.run(timed(trivial, scope(PATHS["demo"])))}
    for scenario in ("demo", "scale"):
        api = ManagementApi(World(load_scenario(scenario), SystemClock(), 1), access_token=TOKEN)
        results[scenario] = asyncio.run(timed(api, scope(PATHS[scenario])))
    return results


def protocol_cost(requests: int = 20_000, rounds: int = 5) -> dict[str, float]:
    """Microseconds of CPU per keep-alive request through uvicorn's httptools protocol and through the
    simulator's GuardedHttpProtocol (its limits), in-process with a stub transport and a two-byte app."""
    import uvicorn
    import uvloop
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.server import ServerState

    from simulator.http.limits import HttpLimits, protocol_factory

    request = f"GET {PATHS['demo']} HTTP/1.1\r\nHost: x\r\nAuthorization: {AUTH}\r\n\r\n".encode()

    class Transport(asyncio.Transport):
        def write(self, data: bytes | bytearray | memoryview) -> None:
            pass

        def get_extra_info(self, name: str, default: object = None) -> object:
            return {"peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(name, default)

        def is_closing(self) -> bool:
            return False

        def close(self) -> None:  # uvicorn's keep-alive timer may fire once the measure is over
            pass

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"{}"})

    async def per_request(protocol_class) -> float:  # type: ignore[no-untyped-def]
        config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, http=protocol_class,
                                server_header=False, date_header=False)
        config.load()
        protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
        protocol.connection_made(Transport())
        started = time.process_time()
        for _ in range(requests):
            protocol.data_received(request)
            await asyncio.sleep(0)  # the request's task runs
            await asyncio.sleep(0)
        return (time.process_time() - started) / requests * 1e6

    async def measure() -> dict[str, float]:
        guarded = protocol_factory(HttpLimits(), lambda status, text: ([], b""))
        results: dict[str, list[float]] = {"uvicorn httptools": [], "with the limits": []}
        for _ in range(rounds):  # interleaved
            results["uvicorn httptools"].append(await per_request(HttpToolsProtocol))
            results["with the limits"].append(await per_request(guarded))
        await guarded.stop_sweeping()
        return {name: statistics.median(values) for name, values in results.items()}

    return uvloop.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout of older code to serve too")
    args = parser.parse_args()
    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk") is not None)
    load = run_wrk if use_wrk else run_python_client

    servers: dict[str, tuple[subprocess.Popen[str], int]] = {}
    try:
        for scenario in ("demo", "scale"):
            servers[scenario] = start_server(["--serve-simulator", scenario])
            if args.baseline:
                servers[f"{scenario} before"] = start_server(["--serve-simulator", scenario], args.baseline.resolve())
        body = fetch(servers["demo"][1], PATHS["demo"])
        body_file = ROOT / "bench" / ".trivial_body.json"
        body_file.write_bytes(body)
        servers["trivial"] = start_server(["--serve-trivial", str(body_file)])
        urls = {
            "trivial": f"http://127.0.0.1:{servers['trivial'][1]}{PATHS['demo']}",
            "demo": f"http://127.0.0.1:{servers['demo'][1]}{PATHS['demo']}",
            "scale": f"http://127.0.0.1:{servers['scale'][1]}{PATHS['scale']}",
        }
        for scenario in ("demo", "scale") if args.baseline else ():
            urls[f"{scenario} before"] = f"http://127.0.0.1:{servers[scenario + ' before'][1]}{PATHS[scenario]}"
        for url in urls.values():  # warm-up
            load(url, 1, args.connections)
        results: dict[str, list[float]] = {name: [] for name in urls}
        for _ in range(args.rounds):
            for name, url in urls.items():
                results[name].append(load(url, args.seconds, args.connections))
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait()
        (ROOT / "bench" / ".trivial_body.json").unlink(missing_ok=True)

    median = {name: statistics.median(values) for name, values in results.items()}
    tick_median, tick_p90, idle_us = tick_cost()
    client = (f"wrk 1 thread, {args.connections} connections" if use_wrk
              else f"asyncio client, {args.connections} connections")
    print(f"load generator: {client}, {args.seconds:g} s x {args.rounds} rounds (median), body {len(body)} bytes")
    print("| server | requests/s (median) | all rounds | vs trivial |")
    print("|---|---|---|---|")
    for name in urls:
        rounds = ", ".join(f"{v:,.0f}" for v in results[name])
        print(f"| {name} | {median[name]:,.0f} | {rounds} | {median[name] / median['trivial']:.2f} |")
    print(f"scale / demo: {median['scale'] / median['demo']:.2f}")
    costs = app_cost()
    print("application code per request (in-process, no server): "
          + ", ".join(f"{name} {value:.1f} us" for name, value in costs.items()))
    protocol = protocol_cost()
    print("protocol and a two-byte app per request (in-process, median of 5 x 20,000): "
          + ", ".join(f"{name} {value:.2f} us" for name, value in protocol.items()))
    print(f"world tick at 10,000 streams: median {tick_median:.1f} ms, p90 {tick_p90:.1f} ms; "
          f"advance() with no tick due: {idle_us:.2f} us")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-simulator":
        serve_simulator(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "--serve-trivial":
        serve_trivial(sys.argv[2], int(sys.argv[3]))
    else:
        main()

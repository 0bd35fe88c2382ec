"""Running the simulator: both listeners on uvicorn, in-process or from the command line.

`start_simulator` is what the console's demo mode and the tests use: it binds free ports when
asked for port 0 and returns once both listeners accept connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import uvicorn

from simulator.http.asgi import ASGIApp
from simulator.http.faults import FaultInjector, install_faults
from simulator.http.limits import ErrorRenderer, GuardedHttpProtocol, HttpLimits, protocol_factory
from simulator.http.management import ManagementApi, refusal_reply
from simulator.world.clock import Clock, SystemClock
from simulator.world.edition import Edition, server_profile
from simulator.world.fault_spec import FaultSpec, fault_spec_from_table
from simulator.world.scenario import Scenario, load_scenario
from simulator.world.world import World

if TYPE_CHECKING:
    from simulator.http.publisher import PublisherApp, PublisherLimits

DEFAULT_ACCESS_TOKEN = "ome-access-token"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_API_PORT = 8081
DEFAULT_PUBLISHER_PORT = 3333

log = logging.getLogger("simulator")


class _QuietServer(uvicorn.Server):
    """Leaves signal handling to the caller, which runs two servers and stops both together."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class RunningSimulator:
    world: World
    api: ManagementApi
    api_url: str
    publisher_url: str
    access_token: str = field(repr=False)
    _servers: list[uvicorn.Server] = field(default_factory=list, repr=False)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list, repr=False)
    faults: FaultInjector | None = None
    """Set when started with faults (argument or the scenario's [faults] table): counts and switches."""
    _publisher: PublisherApp | None = field(default=None, repr=False)

    async def stop(self) -> None:
        """Close both listeners and end every task the simulator started (ticker, publisher sweeper)."""
        if self.faults is not None:
            self.faults.close()
        for server in self._servers:
            server.should_exit = True
        for task in self._tasks:
            if task.get_name() == "world-ticker":
                task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            protocol = server.config.http_protocol_class
            if issubclass(protocol, GuardedHttpProtocol):
                await protocol.stop_sweeping()
        if self._publisher is not None:  # after the listeners: no request can start the sweeper again
            await self._publisher.close()

    async def wait_closed(self) -> None:
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP; with proto 0
    # every reply sent in two writes waited ~40 ms for a delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it: no Nagle stalls
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def _serve(app: ASGIApp, sock: socket.socket, name: str, limits: HttpLimits,
                 render_error: ErrorRenderer) -> tuple[uvicorn.Server, asyncio.Task[None]]:
    config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, loop="none",
                            server_header=False, date_header=False,  # the real server sends neither
                            ws="none", http=protocol_factory(limits, render_error),
                            timeout_keep_alive=limits.keep_alive_timeout)  # type: ignore[arg-type]  # used as a float
    server = _QuietServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name=name)
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.005)
    return server, task


async def _tick(world: World, clock: Clock) -> None:
    while True:
        await clock.sleep(world.tick_ms / 1000)
        world.advance()


async def start_simulator(
    scenario: str | Scenario = "demo",
    *,
    host: str = DEFAULT_HOST,
    api_port: int = 0,
    publisher_port: int = 0,
    access_token: str = DEFAULT_ACCESS_TOKEN,
    seed: int = 0,
    edition: Edition = "enterprise",
    version: str | None = None,
    clock: Clock | None = None,
    faults: str | FaultSpec | None = None,
    http_limits: HttpLimits | None = None,
    publisher_limits: PublisherLimits | None = None,
) -> RunningSimulator:
    """Start the simulator inside the running event loop; port 0 picks a free port.

    `edition` and `version` choose the server played (simulator/world/edition.py; the version defaults to the
    edition's newest; an unknown one raises UnknownVersion before anything starts).
    `http_limits` bound what a client may send on both ports (request size, deadlines, connections);
    `publisher_limits` bound the publisher's memory and viewer sessions. The defaults are the README's.
    """
    profile = server_profile(edition, version)
    clock = clock or SystemClock()
    world = World(scenario if isinstance(scenario, Scenario) else load_scenario(scenario), clock, seed,
                  profile=profile)
    limits = (http_limits or HttpLimits()).fitted(listeners=2)
    return await serve_world(world, host=host, api_port=api_port, publisher_port=publisher_port,
                             access_token=access_token, faults=faults, http_limits=limits,
                             publisher_limits=publisher_limits)


async def serve_world(
    world: World,
    *,
    host: str,
    api_port: int,
    publisher_port: int,
    access_token: str,
    faults: str | FaultSpec | None,
    http_limits: HttpLimits,
    publisher_limits: PublisherLimits | None,
) -> RunningSimulator:
    """Both listeners of one server over an existing world (the fleet starts several in one process);
    the world's profile is the edition and version both listeners play."""
    api = ManagementApi(world, access_token=access_token)
    injector = None
    if faults is not None or world.scenario.faults:  # a SPEC string goes over the scenario's [faults] table
        spec = faults if isinstance(faults, FaultSpec) else fault_spec_from_table(world.scenario.faults, faults or "")
        injector = install_faults(world, api, spec, world.seed)
    publisher = _publisher_app(world, publisher_limits)
    api_sock = _bind(host, api_port)
    try:
        publisher_sock = _bind(host, publisher_port)
    except OSError:
        api_sock.close()
        raise
    api_server, api_task = await _serve(injector.app if injector else api, api_sock, "api-server", http_limits,
                                        refusal_reply)
    publisher_server, publisher_task = await _serve(publisher, publisher_sock, "publisher-server", http_limits,
                                                    publisher.refusal_reply)
    ticker = asyncio.create_task(_tick(world, world.clock), name="world-ticker")
    return RunningSimulator(
        world=world, api=api, api_url=_url(api_sock), publisher_url=_url(publisher_sock),
        access_token=access_token, _servers=[api_server, publisher_server],
        _tasks=[api_task, publisher_task, ticker], faults=injector, _publisher=publisher,
    )


def _publisher_app(world: World, limits: PublisherLimits | None) -> PublisherApp:
    from simulator.http.publisher import PublisherApp

    return PublisherApp(world, limits)

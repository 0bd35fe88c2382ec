"""The web server: pages, login, and one console process per websocket, under a cap and an idle timeout.

A websocket is accepted only from the page's own origin (another site open in the same browser cannot drive
the console on loopback), only with the login's cookie when a password is required, and only while fewer
than the cap are open. A session ends when the visitor types nothing for the idle timeout (resizes and
the page script's pings are not typing), when the console quits, or when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from omeconsole.serve.auth import Gate
from omeconsole.serve.compat import STATIC_PATH, ConsoleProcess
from omeconsole.serve.pages import Terms, console_page, full_page, login_page

MAX_INPUT_MESSAGE = 64 * 1024
MAX_FORM = 16 * 1024
MAX_CELLS = 1000
STARTUP_GRACE_S = 60.0
"""How long a console may take to draw its first screen before the idle time counts anyway."""
STOP_TIMEOUT_S = 10.0
"""How long a console is given to quit when asked before it is killed."""
HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "frame-ancestors 'none'"}


@dataclass(frozen=True)
class ConsoleCommand:
    """How a session's console is started: its command line (no secret in it) and what its environment gets."""

    command: str
    environment: Mapping[str, str] = field(default_factory=dict)
    removed: tuple[str, ...] = ()


class ConsoleServer:
    """The pages, the login and the sessions: `start` listens, `run` serves until `stop`."""

    def __init__(self, console: ConsoleCommand, terms: Terms, gate: Gate) -> None:
        self._console = console
        self._terms = terms
        self._gate = gate
        self._sessions: set[web.WebSocketResponse] = set()
        self._reserved = 0
        self._no_sessions = asyncio.Event()
        self._no_sessions.set()
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_FORM)
        app.router.add_get("/", self._index)
        app.router.add_post("/login", self._login)
        app.router.add_get("/ws", self._websocket)
        app.router.add_static("/static", STATIC_PATH)
        return app

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Listens; the address actually bound (port 0 picks a free one)."""
        self._runner = web.AppRunner(self.application(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound = self._runner.addresses[0]
        return str(bound[0]), int(bound[1])

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        """Until `stop`: then every session is closed (its console asked to quit) and the port released."""
        await self._stopping.wait()
        for websocket in list(self._sessions):
            await websocket.close(code=1001, message=b"server stopping")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._no_sessions.wait(), STOP_TIMEOUT_S * 2)
        if self._runner is not None:
            await self._runner.cleanup()

    async def _index(self, request: web.Request) -> web.Response:
        if not self._gate.admits(request.cookies.get(Gate.COOKIE)):
            return _html(login_page(self._terms, wrong=False))
        if self._reserved >= self._terms.max_sessions:
            return _html(full_page(self._terms), status=503)
        return _html(console_page(self._terms, self._reserved))

    async def _login(self, request: web.Request) -> web.Response:
        if not self._gate.required:
            raise web.HTTPSeeOther("/")
        form = await request.post()
        given = form.get("password")
        cookie = self._gate.check_password(given) if isinstance(given, str) else None
        if cookie is None:
            return _html(login_page(self._terms, wrong=True), status=401)
        response = web.HTTPSeeOther("/", headers=HEADERS)
        response.set_cookie(Gate.COOKIE, cookie, httponly=True, samesite="Strict", secure=request.secure, path="/")
        return response

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        if not self._gate.admits(request.cookies.get(Gate.COOKIE)):
            raise web.HTTPUnauthorized(text="a password is required: open / and log in")
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            raise web.HTTPForbidden(text="the console's websocket is for its own page only")
        if self._reserved >= self._terms.max_sessions or self._stopping.is_set():
            raise web.HTTPServiceUnavailable(text=f"all {self._terms.max_sessions} sessions are in use")
        self._reserved += 1
        self._no_sessions.clear()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_INPUT_MESSAGE)
        try:
            await websocket.prepare(request)
            self._sessions.add(websocket)
            await self._session(websocket, _cells(request, "width", 80), _cells(request, "height", 24))
        finally:
            self._sessions.discard(websocket)
            self._reserved -= 1
            if not self._reserved:
                self._no_sessions.set()
        return websocket

    async def _session(self, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        loop = asyncio.get_running_loop()
        typed = [loop.time()]
        drawn = asyncio.Event()

        async def draw(screen: bytes) -> None:
            if not drawn.is_set():  # the idle time counts from the console's first output, not its slow start
                typed[0] = loop.time()
                drawn.set()
            await websocket.send_bytes(screen)

        console = ConsoleProcess(self._console.command, environment=self._console.environment,
                                 removed=self._console.removed, write_bytes=draw,
                                 write_str=websocket.send_str, close=lambda: _close(websocket))
        watches = [asyncio.create_task(self._end_when_idle(websocket, typed, drawn), name="idle-timeout")]
        try:
            await console.start(width, height)
            watches.append(asyncio.create_task(_end_with_console(websocket, console), name="console-ended"))
            await _relay(websocket, console, typed, loop)
        finally:
            for watch in watches:
                watch.cancel()
            try:
                await asyncio.wait_for(console.stop(), STOP_TIMEOUT_S)
            except TimeoutError:
                console.kill()
            await asyncio.gather(*watches, return_exceptions=True)

    async def _end_when_idle(self, websocket: web.WebSocketResponse, typed: list[float], drawn: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):  # a console that never draws is ended after the grace and idle time
            await asyncio.wait_for(drawn.wait(), STARTUP_GRACE_S)
        loop = asyncio.get_running_loop()
        while (remaining := typed[0] + self._terms.idle_timeout_s - loop.time()) > 0:
            await asyncio.sleep(remaining)
        await websocket.close(code=4000, message=b"idle timeout")


async def _end_with_console(websocket: web.WebSocketResponse, console: ConsoleProcess) -> None:
    """A console that died without saying it quit still ends its session (the page says so)."""
    await console.ended()
    await _close(websocket)


async def _relay(websocket: web.WebSocketResponse, console: ConsoleProcess, typed: list[float],
                 loop: asyncio.AbstractEventLoop) -> None:
    """The page script's messages to the console: keys, size, focus; anything else is ignored."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind = envelope[0]
        data = envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            typed[0] = loop.time()
            await console.send_bytes(data.encode("utf-8", "replace"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int) and _cell_count(width) and _cell_count(height):
                await console.set_terminal_size(width, height)
        elif kind == "ping" and isinstance(data, str):
            await websocket.send_json(["pong", data[:32]])
        elif kind == "blur":
            await console.blur()
        elif kind == "focus":
            await console.focus()


def _cell_count(value: int) -> bool:
    return 0 < value <= MAX_CELLS


def _cells(request: web.Request, name: str, default: int) -> int:
    try:
        value = int(request.query.get(name, default))
    except ValueError:
        return default
    return value if 0 < value <= MAX_CELLS else default


async def _close(websocket: web.WebSocketResponse) -> None:
    """The console quit: the page is told the session ended."""
    await websocket.close(code=1000, message=b"the console quit")


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", headers=HEADERS)

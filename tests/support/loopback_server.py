"""A real HTTP/1.1 server on loopback that answers whatever a test tells it to, including what no good
server would: bodies that trickle, lie about their length, decompress to a gigabyte, never come, or are
not HTTP at all; connections closed while idle; a listening port that goes away and comes back.

It speaks raw bytes over asyncio streams so that a test controls every byte, and it runs on the test's
own event loop in a thread of its own, so that synchronous test code can start, stop and restart it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

MAX_HEAD = 64 * 1024


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.target).query))


@dataclass(frozen=True)
class Answer:
    """A reply. `repeat`: the body is sent this many times over (a huge body that costs the server
    nothing); `trickle_s`: pause between body bytes; `length`: the Content-Length to claim (None: the
    body's; -1: none, the body ends when the connection closes); `close`: close after answering."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    repeat: int = 1
    trickle_s: float | None = None
    length: int | None = None
    close: bool = False

    @classmethod
    def json(cls, value: object, status: int = 200, headers: dict[str, str] | None = None,
             **more: Any) -> Answer:
        merged = {"Content-Type": "application/json;charset=UTF-8", **(headers or {})}
        return cls(status, json.dumps(value).encode(), merged, **more)


@dataclass(frozen=True)
class Hangup:
    """Close the connection without a byte of answer."""


@dataclass(frozen=True)
class Stall:
    """Keep the connection open and never answer."""


@dataclass(frozen=True)
class RawBytes:
    """Write these bytes as they are, then close."""

    data: bytes


Behaviour = Answer | Hangup | Stall | RawBytes
Handler = Callable[[Request], Awaitable[Behaviour]]


class LoopbackServer:
    """`handler` decides each reply. `close_idle_after_reply`: close every kept-alive connection right
    after answering on it, without saying so (what a server with a short idle timeout does).

    The server runs on its own event loop in a daemon thread, so it never shares the test's loop (no
    foreign tasks there) and can be started, stopped and restarted from synchronous code. Its handler
    runs in that thread: keep what it shares with the test to plain assignments and appends.
    """

    def __init__(self, handler: Handler, *, close_idle_after_reply: bool = False,
                 tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.close_idle_after_reply = close_idle_after_reply
        self.requests: list[Request] = []
        self.connections_opened = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="loopback-server", daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._finalizer = weakref.finalize(self, _shut, self._loop, self._thread)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> LoopbackServer:
        """Listen (on the same port as before, after a `stop()`); returns once connections are accepted."""
        if not self._thread.is_alive():
            self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        return self

    def stop(self) -> None:
        """Stop listening (new connections are refused) and drop every open connection."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._unlisten(), self._loop).result(10)

    def close(self) -> None:
        self._finalizer()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> LoopbackServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _listen(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        self._server = await asyncio.start_server(self._connection, sock=sock, limit=MAX_HEAD, backlog=128,
                                                  ssl=self.tls)

    async def _unlisten(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections_opened += 1
        self._writers.add(writer)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                self.requests.append(request)
                try:
                    behaviour = await self.handler(request)
                except Exception as error:  # a broken test handler shows as a 500 naming the error
                    behaviour = Answer(500, f"test handler failed: {error!r}".encode())
                if not await _behave(behaviour, writer):
                    return
                if self.close_idle_after_reply or request.headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, ssl.SSLError):
            return
        except asyncio.CancelledError:  # the server is closing; asyncio 3.11 logs a cancelled handler as an error
            return
        finally:
            self._writers.discard(writer)
            writer.close()


def _shut(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Cancel everything on the server's loop, stop it and end its thread."""
    if thread.is_alive():
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
    if not loop.is_running():
        loop.close()


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Request(method, target, headers, body)


async def _behave(behaviour: Behaviour, writer: asyncio.StreamWriter) -> bool:
    """Answer; False when the connection must end here."""
    if isinstance(behaviour, Hangup):
        return False
    if isinstance(behaviour, Stall):
        await asyncio.Event().wait()  # until the server closes
        return False
    if isinstance(behaviour, RawBytes):
        writer.write(behaviour.data)
        await writer.drain()
        return False
    headers = dict(behaviour.headers)
    if behaviour.length is None:
        headers["Content-Length"] = str(len(behaviour.body) * behaviour.repeat)
    elif behaviour.length >= 0:
        headers["Content-Length"] = str(behaviour.length)
    if behaviour.close or behaviour.length == -1:
        headers["Connection"] = "close"
    head = f"HTTP/1.1 {behaviour.status} {_REASONS.get(behaviour.status, 'Status')}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    if behaviour.trickle_s is None:
        writer.write(head.encode("latin-1") + behaviour.body)  # one write: no wait on delayed ACKs
        await writer.drain()
        for _ in range(behaviour.repeat - 1):
            writer.write(behaviour.body)
            await writer.drain()
    else:
        writer.write(head.encode("latin-1"))
        for index in range(len(behaviour.body)):
            writer.write(behaviour.body[index:index + 1])
            await writer.drain()
            await asyncio.sleep(behaviour.trickle_s)
    return not (behaviour.close or behaviour.length == -1)


_REASONS = {200: "OK", 207: "Multi-Status", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


@contextlib.asynccontextmanager
async def serving(handler: Handler, **options: Any) -> AsyncIterator[LoopbackServer]:
    async with LoopbackServer(handler, **options) as server:
        yield server

"""A real webhook receiver for tests: a small ASGI app under uvicorn on a free loopback port.

It answers with the statuses a test scripts (200 once they run out), or holds every request until the
test lets it go; it keeps every request's headers and body.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=list)
    """Answers to give, in order; 200 once they run out."""
    hold: asyncio.Event | None = None
    """While set to an unset Event, every request waits for it."""
    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.requests.append((headers, body))
        self.arrived.set()
        if self.hold is not None:
            await self.hold.wait()
        status = self.statuses.pop(0) if self.statuses else 200
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.requests]

    async def wait_for(self, count: int) -> None:
        while len(self.requests) < count:
            self.arrived.clear()
            await self.arrived.wait()


@contextlib.asynccontextmanager
async def receiver_running() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    server = uvicorn.Server(uvicorn.Config(receiver, log_level="error", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    receiver.url = f"http://127.0.0.1:{sock.getsockname()[1]}/hook?token=in-the-query"
    try:
        yield receiver
    finally:
        if receiver.hold is not None:
            receiver.hold.set()
        server.should_exit = True
        await task

"""The publisher port (LL-HLS and HLS). Built by the media issue; until then every file is 404."""

from __future__ import annotations

from simulator.http.asgi import Receive, Scope, Send, send_bytes
from simulator.world.world import World


class PublisherApp:
    def __init__(self, world: World) -> None:
        self.world = world

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await send_bytes(send, 404, b"Not Found", [(b"content-type", b"text/plain")])

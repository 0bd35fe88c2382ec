"""Limits of a server someone may expose, on both ports: request size, request and idle deadlines, connections.

uvicorn (with httptools) bounds none of the first three for a request still arriving: a header of any size is
buffered, a half-sent request is held for ever, and `limit_concurrency` answers 503 only once a request's
headers are complete, which a slow client never sends. So each listener runs `GuardedHttpProtocol`, uvicorn's
own httptools protocol with these checks in front of its parser:

- the request line (method, target, version) and the whole head (request line and headers) are counted as
  they arrive; past `max_request_line` the client gets 414, past `max_head_bytes` 431, and the connection
  is closed without reading more;
- a request must arrive whole (head and body) within `request_timeout` of its first byte, and a new
  connection must send one within that time: otherwise 408 (or, with nothing of a request received, a
  plain close), as a slow-loris client gets (checked by one sweep per port, up to a second late);
- an idle keep-alive connection is closed after `keep_alive_timeout` (uvicorn's own timer);
- at most `max_connections` connections per port: a new one past it takes the place of the connection that
  has waited longest for its client (idle or still sending its request), so half-open connections cannot
  lock out a legitimate client; only when every connection is busy with a request is the new one answered
  503 and closed.

Every refusal carries `Connection: close` and the port's usual error body (`ErrorRenderer`); the connection is
then half-closed and drained for a moment (lingering close), so the client reads the refusal.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httptools
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from simulator.http.connection import EXTENSION, Connection

_Base = HttpToolsProtocol

# The real server's reason phrase for 207 is "Multi Status" (capture api/34; `http_datastructure.h`); uvicorn
# writes Python's "Multi-Status". Its status lines are one table read when each reply starts, so the phrase is
# set there (both ports of the process run this protocol; the publisher never answers 207).
httptools_impl.STATUS_LINE[207] = b"HTTP/1.1 207 Multi Status\r\n"

log = logging.getLogger("simulator.limits")

ErrorRenderer = Callable[[int, str], tuple[list[tuple[bytes, bytes]], bytes]]
"""(status, text) -> (headers, body) of a refusal, in the port's own style (JSON envelope, CORS text)."""

_REASONS = {408: b"Request Timeout", 414: b"URI Too Long", 431: b"Request Header Fields Too Large",
            503: b"Service Unavailable"}
_WARN_EVERY_S = 60.0
_DESCRIPTORS_KEPT = 64
_LINGER_S = 2.0
_LINGER_BYTES = 1024 * 1024
"""After a refusal the connection is half-closed and what the client still sends is read and dropped (at most
this much, for at most _LINGER_S), so that the client reads the refusal instead of losing it to a TCP reset."""
_MAX_LINGERING = 64
"""Refused connections lingering at once in the process; past it a refusal closes at once (descriptors bounded)."""
"""File descriptors left for everything but client connections (listeners, logs, the event loop)."""


@dataclass(frozen=True)
class HttpLimits:
    max_request_line: int = 8 * 1024
    """Bytes of the request target (the URL); past it 414."""
    max_head_bytes: int = 32 * 1024
    """Bytes of the request line and headers together; past it 431."""
    request_timeout: float = 10.0
    """Seconds for a request to arrive whole, from its first byte (or from the connection's start)."""
    keep_alive_timeout: float = 30.0
    """Seconds an idle connection is kept between requests."""
    max_connections: int = 1000
    """Connections at once on one port."""

    def fitted(self, listeners: int) -> HttpLimits:
        """These limits with `max_connections` lowered so that every listener's connections fit the process's
        descriptor limit (a server out of descriptors stops accepting anyone)."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self
        fits = max(16, (soft - _DESCRIPTORS_KEPT) // max(1, listeners))
        if fits >= self.max_connections:
            return self
        log.warning("at most %d connections per port: the process may open %d files", fits, soft)
        return HttpLimits(self.max_request_line, self.max_head_bytes, self.request_timeout,
                          self.keep_alive_timeout, fits)


class _Refused(Exception):
    """Raised inside a parser callback to stop parsing a request that breaks a limit."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(status)
        self.status = status
        self.text = text


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above; `protocol_factory` binds the limits to it."""

    limits: HttpLimits = HttpLimits()
    render_error: ErrorRenderer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        """Bytes of the request being received while its head is not complete."""
        self._heads_done = 0
        self._in_body = False
        self._closing = False
        self._lingers = False
        self._drained = 0
        self._arriving_since: float | None = None
        """Loop time of the first byte of the request still arriving (or of the connection's start); None while
        no request is arriving. A per-port sweep expires it: no timer per request on the hot path."""
        self._linger: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0
        """Loop time of the connection's start or its latest request's first byte: the one with the earliest
        makes room when the port is full (if it is waiting for its client, not being answered)."""
        self._connection: Connection | None = None
        """What the app sees of this connection (connection.py): it hears when it closes."""

    # -- connection ----------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._connection = Connection(transport.close)
        self._waiting_since = self._arriving_since = self.loop.time()
        self._watch_deadlines()
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        global _lingering
        self._arriving_since = None
        if self._linger is not None:
            self._linger.cancel()
        if self._lingers:
            self._lingers = False
            _lingering -= 1
        super().connection_lost(exc)
        if self._connection is not None:
            self._connection.lost()

    def _make_room(self) -> None:
        waiting = [c for c in self.connections if isinstance(c, GuardedHttpProtocol) and c is not self
                   and c._waiting() and not c._closing]
        if waiting:
            min(waiting, key=lambda c: c._waiting_since)._expire()
            return
        _warn(f"every one of {self.limits.max_connections} connections is busy; a new one was refused")
        self._refuse(503, f"Too many connections (limit {self.limits.max_connections})")

    def _waiting(self) -> bool:
        """Nothing of this connection is being answered: it waits for its client's (next) request."""
        return not self._in_body and (self.cycle is None or self.cycle.response_complete) and not self.pipeline

    # -- receiving -------------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._closing:  # lingering after a refusal: drop what the client still sends, within bounds
            self._drained += len(data)
            if self._drained > _LINGER_BYTES:
                self.transport.abort()
            return
        if not self._in_body:
            if self._arriving_since is None:  # a request's first bytes: it has request_timeout to arrive whole
                self._arriving_since = self._waiting_since = self.loop.time()
            head_bytes = self._head_bytes + len(data)
            if head_bytes > self.limits.max_head_bytes:
                self._feed_up_to_the_limit(data)
                return
            self._head_bytes = head_bytes
        self._feed(data)

    def _feed_up_to_the_limit(self, data: bytes) -> None:
        """Feed only what the head limit allows; refuse unless the head ended within it."""
        room = self.limits.max_head_bytes - self._head_bytes
        heads_done = self._heads_done
        self._head_bytes += room
        self._feed(data[:room])
        if self._closing:
            return
        if self._heads_done == heads_done:
            self._refuse(431, f"Request header is too large (limit {self.limits.max_head_bytes} bytes)")
            return
        self.data_received(data[room:])

    def _feed(self, data: bytes) -> None:
        """uvicorn's data_received, with a refusal raised by a callback answered in its own status."""
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            refused = error.__context__
            if not isinstance(refused, _Refused):
                raise
            self._refuse(refused.status, refused.text)
        except httptools.HttpParserError:
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()

    def on_message_begin(self) -> None:
        _Base.on_message_begin(self)
        self.scope["extensions"] = {EXTENSION: {"connection": self._connection}}

    def on_headers_complete(self) -> None:
        if len(self.url) > self.limits.max_request_line:  # the whole head is within max_head_bytes already
            raise _Refused(414, f"Request line is too long (limit {self.limits.max_request_line} bytes)")
        self._heads_done += 1
        self._head_bytes = 0
        self._in_body = True
        _Base.on_headers_complete(self)  # not super(): this runs on every request

    def on_message_complete(self) -> None:
        self._in_body = False
        self._arriving_since = None
        _Base.on_message_complete(self)

    # -- deadlines and refusals ------------------------------------------------------------------------

    _sweeper: asyncio.Task[None] | None = None
    """One per port (per class made by `protocol_factory`): expires requests that arrive too slowly."""

    def _watch_deadlines(self) -> None:
        cls = type(self)
        if cls._sweeper is None or cls._sweeper.done():
            cls._sweeper = self.loop.create_task(cls._sweep(self.connections, self.loop), name="http-deadlines")

    @classmethod
    async def _sweep(cls, connections: set[Any], loop: asyncio.AbstractEventLoop) -> None:
        """While the port has connections: every quarter of the deadline (at most 1 s), expire each request
        that has been arriving for `request_timeout` or more."""
        period = min(1.0, cls.limits.request_timeout / 4)
        while connections:
            await asyncio.sleep(period)
            expired_before = loop.time() - cls.limits.request_timeout
            for connection in list(connections):
                since = getattr(connection, "_arriving_since", None)
                if since is not None and since <= expired_before:
                    connection._expire()

    @classmethod
    async def stop_sweeping(cls) -> None:
        """End the port's sweep (the server calls this once its listener is closed)."""
        sweeper, cls._sweeper = cls._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            await asyncio.gather(sweeper, return_exceptions=True)

    def _expire(self) -> None:
        """The client is too slow (or its connection is needed): 408 if it had begun a request, else a plain
        close; a request whose body is still arriving is closed (its handler sees the client leave)."""
        self._arriving_since = None
        if self._closing or self.transport.is_closing():
            return
        if self._head_bytes and not self._in_body:
            self._refuse(408, f"Request not received in time ({self.limits.request_timeout:g} s)")
        else:
            self._closing = True
            self.transport.close()

    def _refuse(self, status: int, text: str) -> None:
        self._closing = True
        self._arriving_since = None
        headers, body = self.render_error(status, text)
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]),
                 *(name + b": " + value + b"\r\n" for name, value in headers),
                 b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body), body]
        self.transport.write(b"".join(lines))
        global _lingering
        if _lingering >= _MAX_LINGERING or not self.transport.can_write_eof():
            self.transport.close()
            return
        _lingering += 1
        self._lingers = True
        self.transport.write_eof()
        self._linger = self.loop.call_later(_LINGER_S, self.transport.close)


_warned_at: float | None = None
_lingering = 0


def _warn(what: str) -> None:
    global _warned_at
    now = asyncio.get_running_loop().time()
    if _warned_at is None or now - _warned_at >= _WARN_EVERY_S:
        _warned_at = now
        log.warning("%s (logged at most once a minute)", what)


def protocol_factory(limits: HttpLimits, render_error: ErrorRenderer) -> type[GuardedHttpProtocol]:
    """A protocol class for uvicorn's `http=` setting that enforces `limits` and answers with `render_error`."""
    return type("GuardedHttp", (GuardedHttpProtocol,), {"limits": limits, "render_error": staticmethod(render_error)})

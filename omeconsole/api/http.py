"""The console's one HTTP transport: every request to a management API or a publisher goes through here.

Built on aiohttp (the fastest maintained client measured in bench/bench_client.py). What it guarantees:

- **Bounded memory.** A reply is read in chunks and decoded (gzip, deflate) as it arrives; reading stops
  as soon as the decoded body passes the caller's `Cap`, so a 1 MB gzip bomb costs about the cap, never
  what it expands to. A cap hit is a `ReplyTooLarge` that names the cap and how to raise it.
- **Bounded time.** Connecting, each read, and the whole request have their own deadline (`Timeouts`);
  a server trickling one byte a second cannot hold a request past `Timeouts.total`.
- **Reads that a server would count as an audience close their connection.** A publisher's reader is
  counted by the server as a viewer while its TCP connection is open, so the publisher reader's transport
  is made with `fresh_reads=True`: every GET on a connection of its own, `Connection: close`, closed once
  the reply is read (no keep-alive connection lingers between reads; see `api/own_reads.py`).
- **A POST is sent at most once.** Reads share a keep-alive pool (aiohttp re-sends a GET once when a
  pooled connection turns out to be closed, which is safe). A POST never reuses a pooled connection: it
  opens its own, so a connection the server closed while idle can neither swallow it (a false
  "unreachable") nor make it go twice. A POST that failed before its first byte left is
  `UnreachableError` ("nothing was sent"); after that, `OutcomeUnknown`, never retried.
- **Typed errors, no secrets.** Every failure is an `OmeError` subclass built from the host, the path
  and a reason; aiohttp's exceptions (which carry the request and its headers) are never chained.
- TLS certificates are verified unless the transport is made with `verify=False`.

aiohttp is imported on the first request, not with this module: commands that never reach a server
(`--help`, `config path`) do not pay for it (it loads the system's CA store as it is imported).

`Transport` is the seam: `OmeClient` and `PublisherReader` take any object with its `request` and
`aclose`, so a test can wrap the real transport (to count requests, say) without a mock HTTP stack.
"""

from __future__ import annotations

import asyncio
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

from omeconsole import __version__
from omeconsole.api.errors import (
    OmeError,
    OutcomeUnknown,
    ProtocolError,
    ReplyTooLarge,
    RequestTimeout,
    UnreachableError,
)

if TYPE_CHECKING:
    import aiohttp

Method = Literal["GET", "POST"]
MiB = 1024 * 1024

ACCEPT_ENCODING = "gzip, deflate"
"""What we can decode ourselves, chunk by chunk, under a cap."""
USER_AGENT = f"omeconsole/{__version__}"
"""So that a server's logs say which client asked."""

KEEPALIVE_EXPIRY_S = 2.0
"""Idle pooled connections are dropped after this, shorter than common server idle timeouts."""

_DECODE_STEP = 256 * 1024
"""The most decoded bytes produced at once, before they are appended to the body."""
_RAW_SLACK = 64 * 1024
"""Compressed bytes may exceed the decoded size by a little (stored blocks, headers)."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds. `connect`: to open a connection (TCP and TLS); `read`: each wait for the next bytes;
    `total`: the whole request, from asking for a connection to the last byte of the reply."""

    connect: float = 5.0
    read: float = 5.0
    total: float = 10.0

    @classmethod
    def from_timeout(cls, timeout: float, total: float | None = None) -> Timeouts:
        """One number for connect and each read, and a whole-request deadline (default twice that)."""
        return cls(connect=timeout, read=timeout, total=total if total is not None else 2 * timeout)


@dataclass(frozen=True, slots=True)
class Cap:
    """The most decoded bytes a reply may have, and the name of the setting that raises it."""

    limit: int
    setting: str

    def describe(self) -> str:
        size = f"{self.limit / MiB:g} MiB" if self.limit >= MiB else f"{self.limit} bytes"
        return f"{self.setting} = {size}"


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete, decoded reply. `headers` are case-insensitive."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str
    wire_bytes: int = 0
    """The reply's size as it came over the wire, as a server counts the bytes it sent: the status line,
    the header block and its blank line, and the body as sent (compressed, if it was)."""


class Transport(Protocol):
    """What the API client and the publisher reader need from HTTP."""

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply: ...

    async def aclose(self) -> None: ...


class HttpTransport:
    """The real transport: an aiohttp keep-alive pool for reads, a fresh connection for each POST.

    `headers` are sent with every request (the client's Authorization goes here and nowhere else).
    Create it inside a running event loop's lifetime; close it with `aclose()`.
    """

    def __init__(self, *, headers: Mapping[str, str] | None = None, timeouts: Timeouts = Timeouts(),
                 verify: bool = True, max_connections: int = 8, follow_redirects: bool = False,
                 fresh_reads: bool = False) -> None:
        """`fresh_reads`: every GET too on a connection of its own, closed after its reply (a publisher's
        reads: the server counts an open connection as a viewer)."""
        self.timeouts = timeouts
        self._fresh_reads = fresh_reads
        self._headers = {"Accept-Encoding": ACCEPT_ENCODING, "User-Agent": USER_AGENT, **(headers or {})}
        if fresh_reads:
            self._headers["Connection"] = "close"
        self._verify = verify
        self._follow_redirects = follow_redirects
        self._max_connections = max_connections
        self._reads: aiohttp.ClientSession | None = None
        self._sends: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:
        return f"HttpTransport(verify={self._verify}, max_connections={self._max_connections})"

    def _session(self, *, fresh_connections: bool) -> aiohttp.ClientSession:
        import aiohttp

        connector = aiohttp.TCPConnector(
            limit=self._max_connections, ssl=self._verify, force_close=fresh_connections,
            keepalive_timeout=KEEPALIVE_EXPIRY_S if not fresh_connections else None,
            enable_cleanup_closed=False)
        trace: list[aiohttp.TraceConfig] = []
        if fresh_connections:
            config = aiohttp.TraceConfig()
            config.on_request_headers_sent.append(_mark_sent)
            trace.append(config)
        return aiohttp.ClientSession(connector=connector, headers=self._headers, auto_decompress=False,
                                     timeout=aiohttp.ClientTimeout(total=None), trace_configs=trace,
                                     cookie_jar=aiohttp.DummyCookieJar())

    async def aclose(self) -> None:
        for session in (self._reads, self._sends):
            if session is not None:
                await session.close()
        self._reads = self._sends = None

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        import aiohttp
        from yarl import URL

        limits = timeouts or self.timeouts
        where = _Where.of(url)
        progress = SimpleNamespace(sent=False)
        if method == "GET":
            if self._reads is None:
                self._reads = self._session(fresh_connections=self._fresh_reads)
            session = self._reads
        else:
            if self._sends is None:
                self._sends = self._session(fresh_connections=True)
            session = self._sends
        per_wait = aiohttp.ClientTimeout(total=None, sock_connect=limits.connect, sock_read=limits.read)
        failure: OmeError
        try:
            async with asyncio.timeout(limits.total):
                async with session.request(method, URL(url, encoded=True), headers=headers, data=body,
                                           timeout=per_wait, allow_redirects=self._follow_redirects,
                                           trace_request_ctx=progress) as response:
                    progress.sent = True
                    content, raw = await _read_body(response, cap, where)
                    return Reply(response.status, response.headers, content, str(response.url),
                                 _head_bytes(response) + raw)
        except (ReplyTooLarge, ProtocolError) as error:
            if method == "GET":
                raise
            # The server took the POST and answered; what it said cannot be read.
            failure = OutcomeUnknown(
                f"{where.host} answered the request with HTTP {error.status} and a reply that cannot be read "
                f"({error.message}); the server may or may not have applied it. Check the stream before "
                "sending again.", error.status)
        except (TimeoutError, aiohttp.ClientError, OSError, ValueError) as error:
            failure = _failure(error, method, where, limits, sent=progress.sent or method == "GET")
        # Raised here, outside the handler, so that aiohttp's exception (which holds the request and its
        # Authorization header) is neither the cause nor the context of ours.
        raise failure


async def _mark_sent(session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestHeadersSentParams) -> None:
    context.trace_request_ctx.sent = True


@dataclass(frozen=True, slots=True)
class _Where:
    host: str
    path: str

    @classmethod
    def of(cls, url: str) -> _Where:
        try:
            parts = urlsplit(url)
        except ValueError:  # an unbalanced IPv6 bracket
            return cls("(not a URL)", url[:100])
        return cls(parts.netloc.rpartition("@")[2], parts.path or "/")


# -- reading a body under a cap ----------------------------------------------------------------------

class _Decoder:
    """gzip (any number of members) or deflate, fed chunk by chunk, its output bounded at every step."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._inflater = zlib.decompressobj(31 if self._gzip else 15)
        self._started = False
        self._pending = b""
        """Input the inflater has not taken yet (held back by a `room` limit, or the next gzip member)."""

    @property
    def finished(self) -> bool:
        return self._inflater.eof and not self._pending

    def feed(self, data: bytes, room: int) -> bytes:
        """Up to `room` decoded bytes of what was held back and `data`; the rest waits for `more`."""
        if not self._started and not self._gzip and data and (data[0] & 0x0F) != 8:
            self._inflater = zlib.decompressobj(-15)  # some servers send raw deflate as "deflate"
        self._started = True
        self._pending += data
        return self.more(room)

    def more(self, room: int) -> bytes:
        out = b""
        try:
            while self._pending and len(out) < room:
                if self._inflater.eof:
                    if not (self._gzip and self._pending.startswith(b"\x1f\x8b")):
                        self._pending = b""  # trailing bytes that are not another member: ignored, as browsers do
                        break
                    self._inflater = zlib.decompressobj(31)  # the next gzip member
                out += self._inflater.decompress(self._pending, room - len(out))
                self._pending = self._inflater.unconsumed_tail or self._inflater.unused_data
        except zlib.error as error:
            raise ValueError(f"the compressed body is corrupt ({error})") from None
        return out


def _head_bytes(response: aiohttp.ClientResponse) -> int:
    """Bytes of the status line (`HTTP/1.1 200 OK` CRLF), each header line as received and the blank line."""
    version = f"HTTP/{response.version.major}.{response.version.minor}" if response.version else "HTTP/1.1"
    status_line = len(version) + 1 + len(str(response.status)) + 1 + len((response.reason or "").encode()) + 2
    return status_line + sum(len(name) + 2 + len(value) + 2 for name, value in response.raw_headers) + 2


async def _read_body(response: aiohttp.ClientResponse, cap: Cap, where: _Where) -> tuple[bytes, int]:
    """The decoded body and how many bytes of it came over the wire."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        raise ProtocolError(f"{where.host} answered {where.path} with a {encoding!r} body, "
                            f"which was not asked for ({ACCEPT_ENCODING})", response.status)
    decoder = _Decoder(encoding) if encoding not in ("identity", "") else None
    declared = response.content_length
    if declared is not None and declared > cap.limit + (_RAW_SLACK if decoder else 0):
        raise _too_large(where, cap, response.status, declared=declared)
    if decoder is None and declared is not None:
        content = await response.read()  # the parser stops at the declared length, which is under the cap
        return content, len(content)
    body = bytearray()
    raw = 0
    try:
        async for chunk in response.content.iter_any():
            raw += len(chunk)
            if raw > cap.limit + _RAW_SLACK:
                raise _too_large(where, cap, response.status)
            if decoder is None:
                body += chunk
            else:  # in steps, so that no decoded piece besides the body itself is ever large
                body += decoder.feed(chunk, min(_DECODE_STEP, cap.limit + 1 - len(body)))
                while len(body) <= cap.limit and (extra := decoder.more(min(_DECODE_STEP, cap.limit + 1 - len(body)))):
                    body += extra
            if len(body) > cap.limit:
                raise _too_large(where, cap, response.status)
        if decoder is not None and raw and not decoder.finished:
            raise ValueError("the compressed body ends before its end")
    except ValueError as error:
        raise ProtocolError(f"{where.host} answered {where.path} with a body that cannot be read: {error}",
                            response.status) from None
    return bytes(body), raw


def _too_large(where: _Where, cap: Cap, status: int, declared: int | None = None) -> ReplyTooLarge:
    size = f" ({declared} bytes declared)" if declared is not None else ""
    return ReplyTooLarge(
        f"{where.host} answered {where.path} with more than {cap.describe()}{size}; reading stopped there. "
        f"If this reply is genuine, raise {cap.setting}.", status, limit=cap.limit, setting=cap.setting)


# -- failures ----------------------------------------------------------------------------------------

def _failure(error: BaseException, method: Method, where: _Where, limits: Timeouts, *, sent: bool) -> OmeError:
    """The typed error for a failed request, by what happened and whether the request had left."""
    import aiohttp

    if isinstance(error, aiohttp.ClientConnectorCertificateError):  # also a ValueError (ssl.CertificateError)
        reason = ("its TLS certificate is not trusted (" + _reason(error.certificate_error) + "); "
                  "check the URL, or turn verification off only for a server you control")
        return _unreachable(method, where, reason)
    if isinstance(error, aiohttp.InvalidURL | aiohttp.NonHttpUrlClientError) or (
            isinstance(error, ValueError) and not isinstance(error, aiohttp.ClientError)):
        return ProtocolError(f"{where.host}{where.path}: not a URL that can be requested")
    if isinstance(error, aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError) or (
            not sent and isinstance(error, aiohttp.ClientError | OSError)):
        reason = (f"connection timed out after {limits.connect:g} s"
                  if isinstance(error, aiohttp.ConnectionTimeoutError) else _connect_reason(error))
        return _unreachable(method, where, reason)
    if method == "POST":
        what = ("no answer in time" if isinstance(error, TimeoutError) else _reason(error))
        if not sent:
            return _unreachable(method, where, what)
        return OutcomeUnknown(
            f"the connection to {where.host} failed after the request was sent ({what}); the server may or "
            "may not have applied it. Check the stream before sending again.")
    if isinstance(error, aiohttp.SocketTimeoutError):
        return RequestTimeout(f"{where.host} sent nothing for {limits.read:g} s during {where.path}")
    if isinstance(error, TimeoutError):
        return RequestTimeout(f"{where.host} did not answer {where.path} within {limits.total:g} s")
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return UnreachableError(f"{where.host} closed the connection during {where.path} without answering")
    if isinstance(error, aiohttp.ClientResponseError):  # the status line or headers are not HTTP
        return ProtocolError(f"{where.host} answered {where.path} with something that is not HTTP: "
                             f"{_reason(error.message)}")
    if isinstance(error, aiohttp.ClientPayloadError):
        return UnreachableError(f"{where.host} broke off the reply to {where.path} before its end")
    return UnreachableError(f"connection to {where.host} lost during {where.path}: {_reason(error)}")


def _unreachable(method: Method, where: _Where, reason: str) -> UnreachableError:
    tail = "; nothing was sent" if method == "POST" else ""
    return UnreachableError(f"cannot connect to {where.host}: {reason}{tail}")


def _connect_reason(error: BaseException) -> str:
    import aiohttp

    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return "the host name does not resolve"
    os_error = getattr(error, "os_error", error)
    if isinstance(os_error, OSError) and os_error.errno:
        return os.strerror(os_error.errno).lower()
    return _reason(error)


def _reason(error: object) -> str:
    text = str(error).strip()
    return text if text and len(text) < 200 else type(error).__name__


__all__ = ["ACCEPT_ENCODING", "Cap", "HttpTransport", "Method", "MiB", "Reply", "Timeouts", "Transport"]

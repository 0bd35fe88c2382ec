"""The wire of a webhook: one JSON POST to a receiver, its status back, failures as plain words.

Headers (which may carry a receiver's token) live only in the request this client builds: they are
kept out of its repr, its errors and every log line. Errors name the receiver by host only, since a
URL's path or query may hold a token too. Redirects are not followed (a POST is not re-sent elsewhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from omeconsole.api.errors import OmeError
from omeconsole.api.http import Cap, HttpTransport, Timeouts, Transport

MAX_REPLY_BYTES = 1024 * 1024
"""A receiver's reply is only looked at for its status; a larger one is an unreadable answer."""


class WebhookError(Exception):
    """The POST got no HTTP answer (refused, reset, timed out, TLS): the receiver may not have it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WebhookClient:
    """POSTs JSON bodies to one receiver. Use `async with` or call `aclose()`."""

    def __init__(self, url: str, headers: Mapping[str, str] | None = None, *, timeout: float = 5.0,
                 verify: bool = True, transport: Transport | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("a webhook URL must be http(s) with a host")
        self.host = parts.netloc.rpartition("@")[2]
        self.timeout = timeout
        self._url = url
        self._headers = {**(headers or {}), "Content-Type": "application/json"}
        self._http = transport or HttpTransport(timeouts=Timeouts.from_timeout(timeout), verify=verify)

    def __repr__(self) -> str:
        return f"WebhookClient(host={self.host!r})"

    async def post(self, body: bytes) -> int:
        """Sends `body` once; returns the receiver's HTTP status, or raises WebhookError."""
        try:
            reply = await self._http.request("POST", self._url, cap=Cap(MAX_REPLY_BYTES, "the receiver's reply"),
                                             headers=self._headers, body=body)
        except OmeError as error:
            # The transport's messages name host and path only; the path may hold a token: keep the host.
            kind = "no answer in time" if "time" in error.message else type(error).__name__
            raise WebhookError(f"{self.host}: {kind}") from None
        return reply.status

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> WebhookClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

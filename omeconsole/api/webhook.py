"""The wire of a webhook: one JSON POST to a receiver, its status back, failures as plain words.

Headers (which may carry a receiver's token) live only in the request this client builds: they are
kept out of its repr, its errors and every log line. Errors name the receiver by host only, since a
URL's path or query may hold a token too. Redirects are not followed (a POST is not re-sent elsewhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx

MAX_REPLY_BYTES = 65_536
"""A receiver's reply is read no further than this (it is only looked at for its status)."""


class WebhookError(Exception):
    """The POST got no HTTP answer (refused, reset, timed out, TLS): the receiver may not have it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WebhookClient:
    """POSTs JSON bodies to one receiver. Use `async with` or call `aclose()`."""

    def __init__(self, url: str, headers: Mapping[str, str] | None = None, *, timeout: float = 5.0,
                 verify: bool = True, transport: httpx.AsyncBaseTransport | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("a webhook URL must be http(s) with a host")
        self.host = parts.netloc.rpartition("@")[2]
        self.timeout = timeout
        self._url = url
        self._http = httpx.AsyncClient(
            headers={**(headers or {}), "Content-Type": "application/json", "User-Agent": "omeconsole-alerts"},
            timeout=timeout, verify=verify, transport=transport, follow_redirects=False)

    def __repr__(self) -> str:
        return f"WebhookClient(host={self.host!r})"

    async def post(self, body: bytes) -> int:
        """Sends `body` once; returns the receiver's HTTP status, or raises WebhookError."""
        try:
            async with self._http.stream("POST", self._url, content=body) as response:
                read = 0
                async for chunk in response.aiter_raw():
                    read += len(chunk)
                    if read >= MAX_REPLY_BYTES:
                        break
                return response.status_code
        except httpx.TimeoutException:
            raise WebhookError(f"{self.host}: no answer within {self.timeout:g} s") from None
        except httpx.HTTPError as error:
            raise WebhookError(f"{self.host}: {type(error).__name__}") from None

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> WebhookClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

"""Typed failures of the management API client.

Every way a call can fail ends in one of these, so that screens and scripts can say what happened
in plain words and decide what to do (retry, re-authenticate, show "ended"). Messages are built
from the server's reply and the URL path, never from request headers: the token cannot leak here.
"""

from __future__ import annotations

from typing import Literal

NotFoundLevel = Literal["vhost", "app", "stream", "path"]


class OmeError(Exception):
    """Base of every client error: a plain message and the HTTP status when there was one."""

    body: object = None
    """For a failed send: the JSON value exactly as sent (for the audit log)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, status={self.status!r})"


class AuthError(OmeError):
    """401: the token was refused (or missing). `realm` comes from WWW-Authenticate."""

    def __init__(self, message: str, status: int | None = 401, realm: str | None = None) -> None:
        super().__init__(message, status)
        self.realm = realm


class NotFoundError(OmeError):
    """404: `level` says what is missing, so a caller can mark a stream ended or an app gone."""

    def __init__(self, message: str, status: int | None = 404, level: NotFoundLevel = "path") -> None:
        super().__init__(message, status)
        self.level: NotFoundLevel = level


class BadRequestError(OmeError):
    """400 (or another 4xx the API uses for refused input): the server's message says why."""


class EventsUnsupportedError(BadRequestError):
    """The server does not take this kind of event at all (open source 0.21 refuses `cue`).

    Raised instead of a bare 400 so that the console can say so once, plainly, and stop offering
    the action, rather than failing every send with the same cryptic message.
    """

    def __init__(self, message: str, status: int | None = 400, event_format: str = "cue") -> None:
        super().__init__(message, status)
        self.event_format = event_format


class ServerError(OmeError):
    """5xx: the server failed while handling the request."""


class UnreachableError(OmeError):
    """No connection could be made (refused, DNS, TLS handshake); nothing reached the server."""


class RequestTimeout(OmeError):
    """A read request got no complete answer in time (safe to try again later)."""


class ProtocolError(OmeError):
    """The reply is not the management API: HTML, garbage, a wrong shape or a missing field."""


class OutcomeUnknown(OmeError):
    """A POST whose fate is unknown: the connection failed or timed out after sending began.

    The event may or may not have been applied. It is never retried automatically, because a
    second cue-out on a live channel is worse than asking the operator to look.
    """


class ReplyTooLarge(OmeError):
    """A reply was bigger than the cap set for it; reading stopped at the cap (memory stays bounded).

    `setting` names the constructor parameter (or configuration key) that raises the cap.
    """

    def __init__(self, message: str, status: int | None = None, *, limit: int = 0, setting: str = "") -> None:
        super().__init__(message, status)
        self.limit = limit
        self.setting = setting


class UnaddressableError(OmeError):
    """A vhost, application or stream name that cannot be put into a URL (empty, `/`, `.`, `..`, not
    valid Unicode). Nothing is sent: asking would reach another node or none."""

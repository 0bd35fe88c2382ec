"""The password (or token) that `--auth-file` names, and the sessions of those who gave it.

The file must be the owner's only (mode 0600 or stricter): a password others can read protects nothing.
It is compared in constant time (hmac.compare_digest). A browser that gave it gets a random cookie, not the
password: the password is never sent back, written to a page or logged.
"""

from __future__ import annotations

import hmac
import secrets
import stat
from pathlib import Path

MIN_LENGTH = 8
MAX_LENGTH = 4096
MAX_COOKIES = 256
"""Cookies kept at once; the oldest is forgotten first (its browser logs in again)."""


class AuthFileError(Exception):
    """The auth file cannot be used; the message says why (never what it holds)."""


def read_auth_file(path: Path) -> bytes:
    """The secret in `path` (its first line, without the line end)."""
    try:
        info = path.stat()
    except OSError as error:
        raise AuthFileError(f"{path}: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise AuthFileError(f"{path}: not a regular file")
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise AuthFileError(f"{path}: readable by others (mode {stat.S_IMODE(info.st_mode):04o}); chmod 600 it")
    if info.st_size > MAX_LENGTH + 2:
        raise AuthFileError(f"{path}: more than {MAX_LENGTH} bytes; it should hold one password or token")
    secret = path.read_bytes().split(b"\n", 1)[0].rstrip(b"\r")
    if len(secret) < MIN_LENGTH:
        raise AuthFileError(f"{path}: the password or token must be at least {MIN_LENGTH} characters")
    return secret


class Gate:
    """Who may open a console: everyone (no secret: loopback only) or holders of a cookie given for the secret."""

    COOKIE = "omeconsole_session"

    def __init__(self, secret: bytes | None) -> None:
        self._secret = secret
        self._cookies: dict[str, None] = {}  # insertion-ordered: the oldest is forgotten first

    @property
    def required(self) -> bool:
        return self._secret is not None

    def check_password(self, given: str) -> str | None:
        """A new cookie for the right password, None otherwise (compared in constant time)."""
        if self._secret is None:
            return None
        if not hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self._secret):
            return None
        cookie = secrets.token_urlsafe(32)
        self._cookies[cookie] = None
        while len(self._cookies) > MAX_COOKIES:
            del self._cookies[next(iter(self._cookies))]
        return cookie

    def admits(self, cookie: str | None) -> bool:
        if self._secret is None:
            return True
        if not cookie:
            return False
        # Each known cookie compared in constant time: which prefix matched is not told by the timing.
        return any(hmac.compare_digest(cookie, known) for known in list(self._cookies))

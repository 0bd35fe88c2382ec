"""Authorization: Basic base64(<access token>), checked before routing (reference §4)."""

from __future__ import annotations

import base64
import binascii
import hmac

REALM_HEADER = (b"www-authenticate", b'Basic realm="OvenMediaEngine"')


def check_authorization(header: bytes | None, token: bytes) -> str | None:
    """None when the header carries the token; otherwise the server's 401 message text."""
    if header is None:
        return "Authorization header is required to call API"
    parts = header.split(b" ")
    if len(parts) != 2:
        return "Invalid authorization header"
    scheme, credential = parts
    if scheme.upper() != b"BASIC":
        return f"Not supported credential type: {scheme.decode('latin-1')}"
    try:
        decoded = base64.b64decode(credential + b"=" * (-len(credential) % 4))
    except (binascii.Error, ValueError):
        decoded = b"\x00invalid"
    if not decoded:
        return "Invalid credential format"
    if not hmac.compare_digest(decoded, token):
        return "Invalid credential"
    return None


def basic_header(token: str) -> str:
    return "Basic " + base64.b64encode(token.encode("utf-8")).decode("ascii")

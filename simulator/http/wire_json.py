"""JSON exactly as the real server writes it: compact, keys sorted, non-ASCII escaped, no newline."""

from __future__ import annotations

import json
import re
from typing import Any

JSON_CONTENT_TYPE = b"application/json;charset=UTF-8"

_encoder = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

REASON_PHRASES = {
    200: "OK", 201: "Created", 204: "No Content", 207: "Multi Status", 400: "Bad Request",
    401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict",
    413: "Payload Too Large", 414: "URI Too Long", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 503: "Service Unavailable",
}


def encode(value: Any) -> bytes:
    """Non-ASCII as lowercase \\uXXXX (surrogate pairs above U+FFFF), DEL left raw: the real server's writer."""
    return _NON_ASCII.sub(_escape, _encoder.encode(value)).encode("ascii")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def ok_body(response: Any = None, *, status: int = 200) -> bytes:
    body: dict[str, Any] = {"message": REASON_PHRASES[status], "statusCode": status}
    if response is not None:
        body["response"] = response
    return encode(body)


def error_message(status: int, text: str) -> str:
    return f"[HTTP] {text} ({status})"


def error_body(status: int, text: str) -> bytes:
    return encode({"message": error_message(status, text), "statusCode": status})

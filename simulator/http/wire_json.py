"""JSON exactly as the real server writes it: compact, keys sorted, non-ASCII escaped, no newline."""

from __future__ import annotations

import json
from typing import Any

JSON_CONTENT_TYPE = b"application/json;charset=UTF-8"

_encoder = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=True)

REASON_PHRASES = {
    200: "OK", 201: "Created", 204: "No Content", 207: "Multi Status", 400: "Bad Request",
    401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
    413: "Payload Too Large", 500: "Internal Server Error", 503: "Service Unavailable",
}


def encode(value: Any) -> bytes:
    return _encoder.encode(value).encode("ascii")


def ok_body(response: Any = None, *, status: int = 200) -> bytes:
    body: dict[str, Any] = {"message": REASON_PHRASES[status], "statusCode": status}
    if response is not None:
        body["response"] = response
    return encode(body)


def error_message(status: int, text: str) -> str:
    return f"[HTTP] {text} ({status})"


def error_body(status: int, text: str) -> bytes:
    return encode({"message": error_message(status, text), "statusCode": status})

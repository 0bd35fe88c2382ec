"""Reading HTTP replies of the management API: envelopes, error statuses, multi-status arrays.

Every reply is checked for what it claims to be: JSON with the API's envelope. An HTML error page
from a proxy, an empty body or garbage becomes a ProtocolError saying what arrived instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from omeconsole.api.errors import (
    AuthError,
    BadRequestError,
    NotFoundError,
    NotFoundLevel,
    OmeError,
    ProtocolError,
    ServerError,
)
from omeconsole.api.http import Reply
from omeconsole.model.sends import ItemResult, SendResult

_REALM = re.compile(r'realm="([^"]*)"', re.IGNORECASE)


def _describe_body(response: Reply) -> str:
    text = response.body[:512].decode("utf-8", "replace").strip()
    if not text:
        return "an empty body"
    if text.startswith("<") or "html" in response.headers.get("content-type", "").lower():
        return "an HTML page"
    return "text that is not JSON"


def decode_json(body: bytes) -> Any:
    """The JSON value of a body; ValueError for anything else, including nesting too deep to read."""
    try:
        return json.loads(body)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _json(response: Reply, path: str) -> Any:
    try:
        return decode_json(response.body)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"{path}: the server answered HTTP {response.status} with "
                            f"{_describe_body(response)}, not the management API's JSON",
                            response.status) from None


def not_found_level(message: str) -> NotFoundLevel:
    lowered = message.lower()
    if "virtual host" in lowered:
        return "vhost"
    if "application" in lowered:
        return "app"
    if "stream" in lowered:
        return "stream"
    return "path"


def error_for(status: int, message: str, response: Reply | None = None) -> OmeError:
    """The typed error for a failure status, carrying the server's own message."""
    if status == 401:
        header = response.headers.get("www-authenticate", "") if response is not None else ""
        found = _REALM.search(header)
        return AuthError(message, status, realm=found.group(1) if found else None)
    if status == 404:
        return NotFoundError(message, status, level=not_found_level(message))
    if 400 <= status < 500:
        return BadRequestError(message, status)
    if status >= 500:
        return ServerError(message, status)
    return ProtocolError(f"unexpected HTTP status {status}: {message}", status)


def _message_of(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return str(value["message"])
    return None


def _raise_for_status(response: Reply, path: str) -> Any:
    """Decoded JSON of a 2xx reply; the typed error for anything else."""
    status = response.status
    if 200 <= status < 300:
        return _json(response, path)
    try:
        value = decode_json(response.body)
    except (ValueError, UnicodeDecodeError):
        value = None
    message = _message_of(value)
    if message is None:
        if status == 401:
            message = "the server refused the access token (HTTP 401)"
        elif isinstance(value, list):
            message = "; ".join(m for m in (_message_of(v) for v in value) if m) or f"HTTP {status}"
        else:
            # Not the API answering (a proxy's HTML page, garbage): say what arrived instead.
            raise ProtocolError(f"{path}: the server answered HTTP {status} with {_describe_body(response)}, "
                                "not the management API's JSON", status)
    return _raise(error_for(status, message, response))


def _raise(error: OmeError) -> Any:
    raise error


def envelope_response(response: Reply, path: str) -> object:
    """The `response` member of a successful read, after checking the envelope."""
    value = _raise_for_status(response, path)
    if not isinstance(value, dict) or "response" not in value or not isinstance(value.get("statusCode"), int):
        raise ProtocolError(f"{path}: the reply is JSON but not the API's envelope "
                            "(message, statusCode, response)", response.status)
    return value["response"]


def names(value: object, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(f"{path}: expected a list of names")
    return list(value)


def _item(raw: Any, index: int, path: str) -> ItemResult:
    message = _message_of(raw)
    status = raw.get("statusCode") if isinstance(raw, dict) else None
    if message is None or not isinstance(status, int) or isinstance(status, bool):
        raise ProtocolError(f"{path}: element {index} of the multi-status reply has no message and statusCode")
    return ItemResult(status=status, message=message)


def send_result(response: Reply, path: str, body: object) -> SendResult:
    """A send's answer: the plain envelope (200), or the open source bare array (any status).

    A bare array where every element failed the same way is raised as that failure, so a caller
    gets the same typed error from either edition; a mixed array (207) is returned with its items.
    """
    status = response.status
    try:
        value = decode_json(response.body)
    except (ValueError, UnicodeDecodeError):
        value = None
    if isinstance(value, list):
        items = tuple(_item(raw, i, path) for i, raw in enumerate(value))
        failed = [item for item in items if not 200 <= item.status < 300]
        if failed and len(failed) == len(items) and status >= 400:
            raise error_for(status, "; ".join(dict.fromkeys(item.message for item in failed)), response)
        if status >= 400 and status != 207:
            raise error_for(status, f"HTTP {status}", response)
        summary = "OK" if not failed else (
            f"{len(failed)} of {len(items)} event sets refused: "
            + "; ".join(f"#{i}: {item.message}" for i, item in enumerate(items) if item in failed))
        return SendResult(status=status, message=summary, body=body, items=items)
    value = _raise_for_status(response, path)
    message = _message_of(value)
    if message is None:
        raise ProtocolError(f"{path}: the reply has no message", status)
    return SendResult(status=status, message=message, body=body)

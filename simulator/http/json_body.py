"""Parsing request bodies as the real server's JSON reader reports them (reference §2.2)."""

from __future__ import annotations

import json
from typing import Any

MAX_NESTING = 64


class JsonBodyError(ValueError):
    """The text after "[HTTP] [JSON] "."""


def parse_json_body(body: bytes) -> Any:
    """The parsed value; an empty body is JSON null, as on the real server."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonBodyError(_located(body[: error.start], "Invalid UTF-8 sequence in request body")) from None
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        reason = "Syntax error: value, object or array expected." if error.pos == 0 else error.msg
        raise JsonBodyError(f"* Line {error.lineno}, Column {error.colno}\n  {reason}\n") from None
    except (RecursionError, _NonFiniteNumber):
        raise JsonBodyError("* Line 1, Column 1\n  Syntax error: value, object or array expected.\n") from None
    if _depth(value) > MAX_NESTING:
        raise JsonBodyError(f"* Line 1, Column 1\n  Exceeded stackLimit in readValue(): {MAX_NESTING} levels\n")
    return value


class _NonFiniteNumber(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFiniteNumber(name)


def _located(before: bytes, reason: str) -> str:
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return f"* Line {line}, Column {column}\n  {reason}\n"


def _depth(value: Any) -> int:
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest

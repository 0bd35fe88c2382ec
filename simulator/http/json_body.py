"""Parsing request bodies as the real server's JSON reader reports them (reference §2.2).

Python's reader accepts a few things the rest of the simulator cannot carry (unpaired UTF-16
surrogates, integers of thousands of digits, NaN): those are refused here as 400s, so that no
body can reach the validators or the media side in a shape that would crash them.
"""

from __future__ import annotations

import json
from typing import Any

MAX_NESTING = 64
MAX_INT_DIGITS = 4300
"""Python's default limit for converting digits to an int; longer numbers are refused, not crashed on."""


class JsonBodyError(ValueError):
    """The text after "[HTTP] [JSON] "."""


class _Refused(ValueError):
    pass


def parse_json_body(body: bytes) -> Any:
    """The parsed value; an empty body is JSON null, as on the real server."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonBodyError(_located(body[: error.start], "Invalid UTF-8 sequence in request body")) from None
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except json.JSONDecodeError as error:
        reason = "Syntax error: value, object or array expected." if error.pos == 0 else error.msg
        raise JsonBodyError(f"* Line {error.lineno}, Column {error.colno}\n  {reason}\n") from None
    except RecursionError:
        raise JsonBodyError(_too_deep()) from None
    except _Refused as error:
        raise JsonBodyError(f"{error}\n") from None
    _check_value(value)
    return value


def _reject_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON value")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"Integer with more than {MAX_INT_DIGITS} digits")
    return int(text)


def _located(before: bytes, reason: str) -> str:
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return f"* Line {line}, Column {column}\n  {reason}\n"


def _too_deep() -> str:
    return f"Exceeded stackLimit in readValue(): more than {MAX_NESTING} levels of nesting\n"


def _check_value(value: Any) -> None:
    """Refuses nesting deeper than MAX_NESTING and strings that are not valid Unicode text."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth > MAX_NESTING:
                raise JsonBodyError(_too_deep())
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonBodyError("Unpaired UTF-16 surrogate (\\ud800-\\udfff) in a string\n") from None

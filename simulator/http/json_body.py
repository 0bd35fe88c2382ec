"""Parsing request bodies as the real server's JSON reader reads and reports them (reference §2.2).

Python's C reader takes the common case; whatever it refuses or reads otherwise (a syntax error, a trailing
comma, a comment, NaN, a number out of range) is read again by `JsonCppReader`, the real server's grammar,
which accepts what it accepts and reports the error at the byte where the real server does.

A few things no body may carry into the simulator (unpaired UTF-16 surrogates, bytes that are not UTF-8,
integers of thousands of digits, deep nesting) are refused here as 400s with the simulator's own texts, so
that no body reaches the validators or the media side in a shape that would crash them.
"""

from __future__ import annotations

import json
import math
from typing import Any

from simulator.http.jsoncpp_reader import MAX_NESTING, JsonCppError, JsonCppReader, TooDeep

MAX_INT_DIGITS = 4300
"""Python's default limit for converting digits to an int; longer numbers are refused, not crashed on."""


class JsonBodyError(ValueError):
    """The text after "[HTTP] [JSON] "."""


class _Refused(ValueError):
    pass


class _UnpairedSurrogate(JsonBodyError):
    pass


class _ReadAsTheServerDoes(ValueError):
    """Python's reader would read this body otherwise than the server's: read it with JsonCppReader."""


def parse_json_body(body: bytes) -> Any:
    """The parsed value; no body at all is JSON null, as on the real server."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonBodyError(_located(body[: error.start], "Invalid UTF-8 sequence in request body")) from None
    if not body:
        return None
    try:
        value = json.loads(text, parse_constant=_differs, parse_int=_parse_int, parse_float=_parse_float)
    except (json.JSONDecodeError, _ReadAsTheServerDoes):
        value = _read_as_the_server_does(body)
    except RecursionError:
        raise JsonBodyError(_too_deep()) from None
    except _Refused as error:
        raise JsonBodyError(f"{error}\n") from None
    try:
        _check_value(value)
    except _UnpairedSurrogate:  # Python reads a lone \\ud800 escape; the server may report it
        value = _read_as_the_server_does(body)
        _check_value(value)
    return value


def _read_as_the_server_does(body: bytes) -> Any:
    try:
        return JsonCppReader(body).parse()
    except JsonCppError as error:
        raise JsonBodyError(str(error)) from None
    except TooDeep:
        raise JsonBodyError(_too_deep()) from None


def _differs(name: str) -> Any:
    """NaN, Infinity: not JSON to the server either, which reports where they start."""
    raise _ReadAsTheServerDoes(name)


def _parse_int(text: str) -> int | float:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"Integer with more than {MAX_INT_DIGITS} digits")
    value = int(text)
    if not -(2**63) <= value < 2**64:
        return float(value)  # past 64 bits the server reads a double, as JsonCppReader does
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _ReadAsTheServerDoes(text)  # out of range: the server reports the number
    return value


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
        raise _UnpairedSurrogate("Unpaired UTF-16 surrogate (\\ud800-\\udfff) in a string\n") from None

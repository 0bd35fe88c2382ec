"""A JSON reader that accepts, refuses and reports what the real server's reader does.

The server parses request bodies with jsoncpp 1.9.3 (`CharReaderBuilder` defaults: comments allowed, trailing
commas allowed, anything after the first value ignored, a leading UTF-8 BOM skipped). Its error text names the
byte where the offending token starts, counted in lines and 1-based byte columns:

    * Line 1, Column 32
      Syntax error: value, object or array expected.

(capture api/35 for `{"eventFormat":"cue","events":[`). This module reads the same grammar the same way, so
the position and wording come from the body actually sent, for any body: it is the reference for errors, and
for the leniencies Python's strict reader refuses. Only the first error is reported, as jsoncpp keeps only
that one (its recovery discards the errors it meets while skipping).
"""

from __future__ import annotations

import re
from typing import Any

MAX_NESTING = 64
"""Deeper documents are refused with the simulator's own text (jsoncpp's limit is 1000, past which it throws)."""

_SPACES = re.compile(rb"[ \t\r\n]*")
_STRING_BODY = re.compile(rb'(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER_TAIL = re.compile(rb"[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?")
_DOUBLE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""What the C++ stream extraction of a double accepts whole (a number token jsoncpp could not read as an integer)."""
_KEYWORDS = {ord("t"): (b"rue", True), ord("f"): (b"alse", False), ord("n"): (b"ull", None)}
_ESCAPES = {ord('"'): '"', ord("/"): "/", ord("\\"): "\\", ord("b"): "\b", ord("f"): "\f", ord("n"): "\n",
            ord("r"): "\r", ord("t"): "\t"}
_SINGLE = {ord("{"): "{", ord("}"): "}", ord("["): "[", ord("]"): "]", ord(","): ",", ord(":"): ":"}
_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1

_VALUE_EXPECTED = "Syntax error: value, object or array expected."


class JsonCppError(ValueError):
    """The reader's report, exactly as jsoncpp formats it (it ends with a newline)."""


class TooDeep(ValueError):
    pass


class _Token:
    __slots__ = ("end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind
        """One of `{ } [ ] , :`, or string, number, keyword, comment, end, error."""
        self.start = start
        self.end = end


class JsonCppReader:
    def __init__(self, document: bytes) -> None:
        self.text = document[3:] if document.startswith(b"\xef\xbb\xbf") else document
        self.pos = 0
        self.depth = 0

    def parse(self) -> Any:
        """The document's first value; raises JsonCppError (or TooDeep) as jsoncpp would report it."""
        return self._value()

    # -- errors ------------------------------------------------------------------------------------

    def _location(self, offset: int) -> str:
        before = self.text[:offset]
        line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
        line_start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
        return f"Line {line}, Column {offset - line_start + 1}"

    def _error(self, message: str, token: _Token, detail: int | None = None) -> JsonCppError:
        text = f"* {self._location(token.start)}\n  {message}\n"
        if detail is not None:
            text += f"See {self._location(detail)} for detail.\n"
        return JsonCppError(text)

    # -- tokens ------------------------------------------------------------------------------------

    def _token(self) -> _Token:
        text = self.text
        match = _SPACES.match(text, self.pos)
        start = self.pos = match.end() if match else self.pos
        if start >= len(text) or text[start] == 0:
            self.pos = min(start + 1, len(text))
            return _Token("end", start, self.pos)
        char = text[start]
        self.pos = start + 1
        kind = _SINGLE.get(char)
        if kind is not None:
            return _Token(kind, start, self.pos)
        if char == ord('"'):
            found = _STRING_BODY.match(text, self.pos)
            if found is None:
                self.pos = len(text)
                return _Token("error", start, self.pos)
            self.pos = found.end()
            return _Token("string", start, self.pos)
        if char in b"0123456789-+":
            if char != ord("-") or not text.startswith(b"I", self.pos):
                self.pos = _NUMBER_TAIL.match(text, self.pos).end()  # type: ignore[union-attr]  # matches empty
                return _Token("number", start, self.pos)
            self.pos += 1
            return _Token("error", start, self.pos)
        if char in _KEYWORDS:
            rest = _KEYWORDS[char][0]
            if text.startswith(rest, self.pos):
                self.pos += len(rest)
                return _Token("keyword", start, self.pos)
            return _Token("error", start, self.pos)
        if char == ord("/"):
            return _Token("comment" if self._comment() else "error", start, self.pos)
        return _Token("error", start, self.pos)

    def _comment(self) -> bool:
        text = self.text
        if self.pos >= len(text):
            return False
        kind = text[self.pos]
        self.pos += 1
        if kind == ord("*"):
            close = text.find(b"*/", self.pos)
            if close < 0:
                self.pos = len(text)
                return False
            self.pos = close + 2
            return True
        if kind == ord("/"):
            ends = [i for i in (text.find(b"\n", self.pos), text.find(b"\r", self.pos)) if i >= 0]
            if not ends:
                self.pos = len(text)
            else:
                self.pos = min(ends) + 1
                if text[min(ends)] == ord("\r") and text.startswith(b"\n", self.pos):
                    self.pos += 1
            return True
        return False

    def _token_after_comments(self) -> _Token:
        token = self._token()
        while token.kind == "comment":
            token = self._token()
        return token

    # -- values ------------------------------------------------------------------------------------

    def _value(self) -> Any:
        token = self._token_after_comments()
        if token.kind == "{":
            return self._nested(self._object)
        if token.kind == "[":
            return self._nested(self._array)
        if token.kind == "number":
            return self._number(token)
        if token.kind == "string":
            return self._string(token)
        if token.kind == "keyword":
            return _KEYWORDS[self.text[token.start]][1]
        raise self._error(_VALUE_EXPECTED, token)

    def _nested(self, read: Any) -> Any:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise TooDeep
        try:
            return read()
        finally:
            self.depth -= 1

    def _object(self) -> dict[str, Any]:
        members: dict[str, Any] = {}
        while True:
            name_token = self._token_after_comments()
            if name_token.kind == "}":  # an empty object, or a trailing comma
                return members
            if name_token.kind != "string":
                raise self._error("Missing '}' or object member name", name_token)
            name = self._string(name_token)
            colon = self._token()
            if colon.kind != ":":
                raise self._error("Missing ':' after object member name", colon)
            members[name] = self._value()
            comma = self._token()
            if comma.kind not in ("}", ",", "comment"):
                raise self._error("Missing ',' or '}' in object declaration", comma)
            while comma.kind == "comment":
                comma = self._token()
            if comma.kind == "}":
                return members

    def _array(self) -> list[Any]:
        items: list[Any] = []
        while True:
            match = _SPACES.match(self.text, self.pos)
            self.pos = match.end() if match else self.pos
            if self.text.startswith(b"]", self.pos):  # an empty array, or a trailing comma
                self.pos += 1
                return items
            items.append(self._value())
            token = self._token_after_comments()
            if token.kind not in (",", "]"):
                raise self._error("Missing ',' or ']' in array declaration", token)
            if token.kind == "]":
                return items

    def _number(self, token: _Token) -> int | float:
        text = self.text[token.start:token.end]
        digits = text[1:] if text.startswith(b"-") else text
        if text == b"-":
            return 0  # jsoncpp's integer reading of a lone minus sign: no digit, value 0
        if digits.isdigit() and len(digits) <= 20:
            value = int(text)
            if _INT64_MIN <= value <= _UINT64_MAX:
                return value
        if _DOUBLE.fullmatch(text):
            number = float(text)
            if number not in (float("inf"), float("-inf")):  # out of range: the stream extraction fails
                return number
        raise self._error(f"'{text.decode('ascii')}' is not a number.", token)

    def _string(self, token: _Token) -> str:
        text = self.text
        out: list[str] = []
        current, end = token.start + 1, token.end - 1
        while current < end:
            backslash = text.find(b"\\", current, end)
            if backslash < 0:
                out.append(text[current:end].decode("utf-8", "surrogatepass"))
                break
            out.append(text[current:backslash].decode("utf-8", "surrogatepass"))
            current = backslash + 1
            if current == end:
                raise self._error("Empty escape sequence in string", token, current)
            escape = text[current]
            current += 1
            if escape == ord("u"):
                code, current = self._code_point(token, current, end)
                out.append(chr(code))
            elif escape in _ESCAPES:
                out.append(_ESCAPES[escape])
            else:
                raise self._error("Bad escape sequence in string", token, current)
        return "".join(out)

    def _code_point(self, token: _Token, current: int, end: int) -> tuple[int, int]:
        code, current = self._four_hex(token, current, end)
        if 0xD800 <= code <= 0xDBFF:
            if end - current < 6:
                raise self._error("additional six characters expected to parse unicode surrogate pair.", token,
                                  current)
            if not self.text.startswith(b"\\u", current):
                read = 2 if self.text[current] == ord("\\") else 1  # jsoncpp stops reading at the first mismatch
                raise self._error("expecting another \\u token to begin the second half of a unicode surrogate "
                                  "pair", token, current + read)
            low, current = self._four_hex(token, current + 2, end)
            code = 0x10000 + ((code & 0x3FF) << 10) + (low & 0x3FF)
        return code, current

    def _four_hex(self, token: _Token, current: int, end: int) -> tuple[int, int]:
        if end - current < 4:
            raise self._error("Bad unicode escape sequence in string: four digits expected.", token, current)
        value = 0
        for _ in range(4):
            char = self.text[current]
            current += 1
            digit = int(chr(char), 16) if chr(char) in "0123456789abcdefABCDEF" else -1
            if digit < 0:
                raise self._error("Bad unicode escape sequence in string: hexadecimal digit expected.", token,
                                  current)
            value = value * 16 + digit
        return value, current

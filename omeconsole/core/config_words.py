"""Configuration problems in a user's words: the file, the table and the key, and what the key wants.

Works from the settings model alone (every table is a pydantic model whose keys are its fields), so a
table added to `Settings` is checked and explained with nothing added here. A misspelt key is an error
naming the nearest known key (`intervall` → `interval`); values are never echoed (one may be a token).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from omeconsole.core.nearest import nearest_words

_INPUT_SHOULD = re.compile(r"^Input should (be )?", re.IGNORECASE)
_WANTS = {
    "missing": "is required (not given)",
    "bool_parsing": "must be true or false", "bool_type": "must be true or false",
    "float_parsing": "must be a number", "float_type": "must be a number",
    "int_parsing": "must be a whole number", "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "string_type": "must be text (in quotes)",
    "dict_type": "must be a table ({ key = value } or [name])", "model_type": "must be a table",
    "list_type": "must be a list ([...])", "tuple_type": "must be a list ([...])",
}
"""What a key wants, in TOML's words, for pydantic's errors about a value's kind (the others' messages,
bounds and choices, read well once `Input should be` is `must be`)."""
_VALUE_ERROR = re.compile(r"^(Value|Assertion) error, ")


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (itself, a list of it, or it or None), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Union, types.UnionType):
        for argument in typing.get_args(annotation):
            found = _model_of(argument)
            if found is not None:
                return found
    return None


def _walk(model: type[BaseModel], loc: Sequence[int | str]) -> tuple[type[BaseModel], list[str]]:
    """The model the last key of `loc` belongs to, and the tables (by name, lists as `[[name]] #n`) above it."""
    tables: list[str] = []
    current = model
    for part in loc[:-1]:
        if isinstance(part, int):
            tables[-1] = f"{tables[-1]} #{part + 1}"
            continue
        field = current.model_fields.get(part)
        inner = _model_of(field.annotation) if field is not None else None
        if inner is None:
            break
        tables.append(part)
        current = inner
    return current, tables


def known_keys(model: type[BaseModel]) -> list[str]:
    return list(model.model_fields)


def unknown_key_words(key: str, known: Iterable[str]) -> str:
    """`unknown key 'intervall' (did you mean 'interval'?)`."""
    nearest = nearest_words(key, known, 1)
    return f"unknown key {key!r}" + (f" (did you mean {nearest[0]!r}?)" if nearest else "")


Place = Callable[[str], tuple[str, str | None]]
"""Where a top-level key was given: (the file, or the flag or variable, and the file's table or None)."""


def explain(error: ValidationError, model: type[BaseModel], where: str, table: str | None = None,
            given_at: Place | None = None) -> list[str]:
    """One line per problem: `FILE [TABLE]: KEY: what it wants`, in words (`given_at` names, per top-level key,
    the file and table or the flag or variable that gave it, where settings were merged from several)."""
    lines = []
    default_where, default_table = where, table
    for item in error.errors():
        loc = [part for part in item["loc"] if isinstance(part, (int, str))]
        where, table = given_at(loc[0]) if given_at is not None and loc and isinstance(loc[0], str) else \
            (default_where, default_table)
        if not loc:
            lines.append(f"{where}: {item['msg']}")
            continue
        item_level = isinstance(loc[-1], int)  # a rule of [[alerts]] as a whole, not one of its keys
        owner, tables = _walk(model, [*loc, ""] if item_level else loc)
        place = ".".join(filter(None, [table, *tables]))
        head = f"{where} [{place}]" if place else where
        key = loc[-1]
        wants = _WANTS.get(item["type"]) or _VALUE_ERROR.sub("", _INPUT_SHOULD.sub("must be ", str(item["msg"])))
        if item["type"] == "extra_forbidden" and isinstance(key, str):
            lines.append(f"{head}: {unknown_key_words(key, known_keys(owner))}")
        elif item_level:
            lines.append(f"{head}: {wants}")
        else:
            lines.append(f"{head}: {key}: {wants}")
    return lines


def check_file_keys(data: dict[str, Any], model: type[BaseModel], path: Path, table: str | None,
                    allowed: Iterable[str] = ()) -> list[str]:
    """The top-level keys of one table of the file that the model does not know (`allowed` aside)."""
    known = [*known_keys(model), *allowed]
    head = f"{path} [{table}]" if table else str(path)
    return [f"{head}: {unknown_key_words(key, known)}" for key in sorted(data) if key not in known]

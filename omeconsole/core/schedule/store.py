"""The schedule file: schedules added from the command line, and the operator's pause, resume and skips.

The user's config (`[templates.*]`, `[[schedules]]`) is only ever read. What `omeconsole schedule
add|remove|skip-next|pause|resume` changes lives in its own file (`schedules.toml` beside the config, or
`$OMECONSOLE_SCHEDULES`), with the same tables plus `[control.NAME]` (`paused`, `skip` = the runs not to
send, as ISO instants). It is written whole to a temporary file and renamed over the old one, so a
runner watching it reads the old file or the new one, never half of one. Both files are read as
hostile input: bounded in size, every key checked (model.py).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from omeconsole.core.config import config_path, ensure_private_directory
from omeconsole.core.schedule.model import BreakTemplate, Schedule, ScheduleError, load_schedules, load_templates

SCHEDULES_ENV = "OMECONSOLE_SCHEDULES"
MAX_FILE_BYTES = 1 << 20
MAX_SKIPS = 1000
_CONTROL_KEYS = frozenset({"paused", "skip"})
_SCHEDULE_FILE_TABLES = frozenset({"templates", "schedules", "control"})


def schedule_file_path() -> Path:
    override = os.environ.get(SCHEDULES_ENV)
    return Path(override).expanduser() if override else config_path().with_name("schedules.toml")


@dataclass(frozen=True)
class Control:
    paused: bool = False
    skip: frozenset[datetime] = frozenset()


@dataclass(frozen=True)
class Book:
    """Every template and schedule, from the config and the schedule file, and the operator's controls."""

    templates: dict[str, BreakTemplate]
    schedules: list[Schedule]
    controls: dict[str, Control] = field(default_factory=dict)

    def control(self, name: str) -> Control:
        return self.controls.get(name, Control())


def read_toml(path: Path) -> dict[str, Any]:
    """The file's tables ({} when it does not exist); bad TOML or a huge file is a ScheduleError."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ScheduleError(path, "(file)", None, f"cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScheduleError(path, "(file)", None, f"larger than {MAX_FILE_BYTES} bytes")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ScheduleError(path, "(file)", None, f"not valid TOML: {error}") from None


def load_book(config_file: Path, schedule_file: Path) -> Book:
    """Templates and schedules of both files (names unique across them), the controls of the schedule file."""
    config = read_toml(config_file)
    own = read_toml(schedule_file)
    return book_from(config, config_file, own, schedule_file)


def book_from(config: Mapping[str, Any], config_file: Path, own: Mapping[str, Any], schedule_file: Path) -> Book:
    unknown = sorted(set(own) - _SCHEDULE_FILE_TABLES)
    if unknown:
        raise ScheduleError(schedule_file, "(top level)", unknown[0],
                            "unknown key (a schedule file holds [templates.NAME], [[schedules]] and [control.NAME])")
    templates = load_templates(config, config_file)
    for name, template in load_templates(own, schedule_file).items():
        if name in templates:
            raise ScheduleError(schedule_file, f"[templates.{name}]", None, f"also defined in {config_file}")
        templates[name] = template
    names: set[str] = set()
    schedules = load_schedules(config, config_file, templates, names)
    schedules += load_schedules(own, schedule_file, templates, names)
    return Book(templates, schedules, _controls(own.get("control", {}), schedule_file))


def check_file(path: Path, config_file: Path | None = None) -> Book:
    """`schedule check`: the file alone (with the config's templates when it is a schedule file)."""
    if not path.exists():
        raise ScheduleError(path, "(file)", None, "does not exist")
    data = read_toml(path)
    if config_file is not None and config_file.resolve() != path.resolve():
        return book_from(read_toml(config_file), config_file, data, path)
    return book_from(data, path, {}, path.with_name(path.name + ".none"))


def _controls(value: object, file: Path) -> dict[str, Control]:
    if not isinstance(value, dict):
        raise ScheduleError(file, "[control]", None, "must be a table of [control.NAME] tables")
    controls = {}
    for name, table in value.items():
        where = f"[control.{name}]"
        if not isinstance(table, dict):
            raise ScheduleError(file, where, None, "must be a table")
        unknown = sorted(set(table) - _CONTROL_KEYS)
        if unknown:
            raise ScheduleError(file, where, unknown[0], "unknown key (known: paused, skip)")
        paused = table.get("paused", False)
        if not isinstance(paused, bool):
            raise ScheduleError(file, where, "paused", "must be true or false")
        skips = table.get("skip", [])
        if not isinstance(skips, list) or len(skips) > MAX_SKIPS:
            raise ScheduleError(file, where, "skip", f"must be a list of at most {MAX_SKIPS} ISO instants")
        try:
            instants = frozenset(_instant(s) for s in skips)
        except ValueError as error:
            raise ScheduleError(file, where, "skip", str(error)) from None
        controls[name] = Control(paused, instants)
    return controls


def _instant(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not an ISO instant")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"{value!r} has no offset (write 2026-03-29T14:24:00+00:00)")
    return moment


def write_schedule_file(path: Path, data: Mapping[str, Any]) -> None:
    """The whole file, atomically (a temporary file renamed over it), 0600 in a 0700 directory."""
    ensure_private_directory(path.parent)
    text = dumps_toml(data)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def dumps_toml(data: Mapping[str, Any]) -> str:
    """TOML for what a schedule file holds: tables of tables, arrays of tables, strings, numbers,
    booleans, and lists of those or of inline tables."""
    lines: list[str] = []
    scalars = {k: v for k, v in data.items() if not _is_table(v) and not _is_table_array(v)}
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for key, value in data.items():
        if _is_table(value):
            _table(lines, [key], value)
        elif _is_table_array(value):
            for item in value:
                lines += ["", f"[[{_key(key)}]]"] + [f"{_key(k)} = {_value(v)}" for k, v in item.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(lines: list[str], path: list[str], table: Mapping[str, Any]) -> None:
    plain = {k: v for k, v in table.items() if not _is_table(v)}
    if plain or not table:
        lines += ["", "[" + ".".join(_key(p) for p in path) + "]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in plain.items()]
    for key, value in table.items():
        if _is_table(value):
            _table(lines, [*path, key], value)


def _is_table(value: object) -> bool:
    return isinstance(value, dict)


def _is_table_array(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else _string(key)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, datetime):
        return _string(value.isoformat())
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")

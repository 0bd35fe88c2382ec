"""`config validate`: every problem of a config file, in words, before anything runs from it.

Apart from `core/config.py` because it checks the tables other modules own (`[fleets.NAME]`,
`[templates.NAME]`, `[[schedules]]`), which themselves build on the settings model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from omeconsole.core.config import NAMED_TABLES, TOKEN_SOURCES, Settings, read_config_file
from omeconsole.core.config_words import check_file_keys, explain
from omeconsole.core.fleet.settings import fleet_problems
from omeconsole.core.schedule.model import ScheduleError, load_schedules, load_templates


def validate_config_file(path: Path) -> list[str]:
    """Every problem of the file at `path` (its top level, each profile and fleet, its break templates and
    schedules), in words; [] when it is fine. Token sources are not run (nothing is read from a command or
    another file)."""
    data = read_config_file(path, lambda _message: None)
    problems: list[str] = []
    tables: dict[str | None, dict[str, Any]] = {
        None: {k: v for k, v in data.items() if k not in (*NAMED_TABLES, "profile")}}
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        return [f"{path}: [profiles] must be a table of named profiles"]
    tables.update({f"profiles.{name}": table for name, table in profiles.items() if isinstance(table, dict)})
    problems.extend(f"{path} [profiles.{name}]: must be a table" for name, table in profiles.items()
                    if not isinstance(table, dict))
    for table, layer in tables.items():
        problems.extend(check_file_keys(layer, Settings, path, table, TOKEN_SOURCES))
        values = {k: v for k, v in layer.items() if k in Settings.model_fields}  # unknown keys: said above
        try:
            Settings.model_validate(values)
        except ValidationError as error:
            problems.extend(explain(error, Settings, str(path), table))
    problems.extend(fleet_problems(data, path))
    try:
        load_schedules(data, path, load_templates(data, path))
    except ScheduleError as error:
        problems.append(str(error))
    return problems

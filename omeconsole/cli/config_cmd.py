"""`omeconsole config path|init|show|validate`: where the file is, a file of every setting, the settings in
effect and where each came from, and every problem of a file named by file, table and key (exit 2).

`validate` also checks `[keymap]` tables against the console's action ids (`ui/actions.py`), which the core's
checks cannot see (the core never imports the UI): a misspelt id is said with the nearest one, as the console
says it when it starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from omeconsole.cli import exit_codes
from omeconsole.cli.output import complain, say
from omeconsole.cli.parser import flags
from omeconsole.core.config import ConfigError, config_path, load_effective, read_config_file
from omeconsole.core.config_check import validate_config_file
from omeconsole.core.nearest import nearest_words
from omeconsole.core.text import visible


def run_config(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser() if args.file else config_path()
    if args.action == "path":
        say(str(path))
        return exit_codes.OK
    if args.action == "show":
        return _show(args)
    if args.action == "validate":
        return _validate(path)
    return _init(path)


def _validate(path: Path) -> int:
    if not path.exists():
        complain(f"{path}: no such file")
        return exit_codes.USAGE
    try:
        problems = validate_config_file(path) + keymap_problems(path)
    except ConfigError as error:
        problems = [str(error)]
    for problem in problems:
        complain(visible(problem))
    if problems:
        return exit_codes.USAGE
    say(f"{path}: valid")
    return exit_codes.OK


def keymap_problems(path: Path) -> list[str]:
    """The `[keymap]` ids of the file (top level and profiles) that name no action of the console."""
    from omeconsole.ui.actions import HELP_SECTIONS  # the ids the console applies a keymap to

    data = read_config_file(path, lambda _message: None)
    profiles = data.get("profiles", {})
    tables: dict[str, Any] = {"keymap": data.get("keymap")}
    if isinstance(profiles, dict):
        tables.update({f"profiles.{name}.keymap": table.get("keymap") for name, table in profiles.items()
                       if isinstance(table, dict)})
    problems = []
    for table, keymap in tables.items():
        if not isinstance(keymap, dict):
            continue  # absent, or not a table: validate_config_file said so
        for action in sorted(set(keymap) - set(HELP_SECTIONS)):
            nearest = nearest_words(action, HELP_SECTIONS, 1)
            problems.append(f"{path} [{table}]: no action {action!r}" +
                            (f" (did you mean {nearest[0]!r}?)" if nearest else " (ids: the README's key table)"))
    return problems


def _show(args: argparse.Namespace) -> int:
    """The settings in effect with the flags given; a configuration error is one (exit 2) as at start."""
    from omeconsole.core.config_show import show_lines

    if args.file:
        complain("config show reads the config file ($OMECONSOLE_CONFIG moves it); it takes no file")
        return exit_codes.USAGE
    try:
        effective = load_effective(flags(args))
    except ConfigError as error:
        complain(visible(str(error)))
        return exit_codes.USAGE
    for line in show_lines(effective):
        say(line)
    return exit_codes.OK


def _init(path: Path) -> int:
    from omeconsole.core.config_template import write_config_template

    try:
        written = write_config_template(path)
    except OSError as error:
        complain(f"cannot write {path}: {error.strerror or error}")
        return exit_codes.USAGE
    if not written:
        complain(f"{path} exists; nothing written")
        return exit_codes.USAGE
    say(str(path))
    return exit_codes.OK

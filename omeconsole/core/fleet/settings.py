"""`[fleets.NAME]`: several profiles read together, each with its own URL, token source and edition.

```toml
[fleets.live]
servers = ["origin", "edge-1", "edge-2"]   # profile names, in the order they are shown
request_budget = 40                        # requests per second for the whole fleet (default: request_budget)
```

Each server's settings are exactly what `load_settings` gives for its profile alone, except that what
names one server (`--api-url`, `--token`, `--token-file`, `--publisher-url`, `--profile` and their
environment variables) cannot apply to several: such a flag is an error, such a variable is ignored
with a warning. Mistakes name the fleet, the profile and the file: an unknown fleet or profile (with the
known ones), an empty or malformed list, a profile listed twice, two profiles of the same server.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omeconsole.core.config import (
    ConfigError,
    Settings,
    Warn,
    config_path,
    load_settings,
    read_config_file,
    stderr_warn,
)
from omeconsole.core.config_words import unknown_key_words
from omeconsole.core.context import host_port

SERVER_FLAGS = {"api_url": "--api-url", "token": "--token", "token_file": "--token-file",
                "publisher_url": "--publisher-url", "profile": "--profile"}
"""Flags that name one server: meaningless for several."""
SERVER_ENV = ("OME_API_URL", "OME_PUBLISHER_URL", "OME_ACCESS_TOKEN", "OME_ACCESS_TOKEN_FILE")
FLEET_KEYS = ("servers", "request_budget")
MAX_BUDGET = 10_000.0


@dataclass(frozen=True)
class FleetSettings:
    """A fleet as configured: its name, each server's settings (profile set) and the one request budget."""

    name: str
    servers: tuple[Settings, ...]
    request_budget: float

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(member_name(settings) for settings in self.servers)

    def server(self, profile: str) -> Settings:
        """The settings of the server `profile` names; a ConfigError naming the fleet's servers if none."""
        for settings in self.servers:
            if settings.profile == profile:
                return settings
        raise ConfigError(f"fleet {self.name!r} has no server {profile!r} (servers: {', '.join(self.profiles)})")

    @classmethod
    def single(cls, settings: Settings) -> FleetSettings:
        """One server as a fleet of one (its name: the profile, else the API's host:port)."""
        return cls(member_name(settings), (settings,), settings.request_budget)


def member_name(settings: Settings) -> str:
    """How a server is named among others: its profile, else its API's host:port."""
    return settings.profile or host_port(settings.api_url)


def _refuse_server_flags(flags: Mapping[str, Any], what: str) -> dict[str, Any]:
    given = {k: v for k, v in flags.items() if v is not None}
    for key, flag in SERVER_FLAGS.items():
        if key in given:
            raise ConfigError(f"{flag} names one server and cannot be used with {what}: each server's URL and "
                              "token come from its profile")
    return given


def _without_server_env(environ: Mapping[str, str], what: str, warn: Warn) -> dict[str, str]:
    ignored = [key for key in SERVER_ENV if environ.get(key)]
    if ignored:
        warn(f"{', '.join(ignored)} ignored for {what}: each server's URL and token come from its profile")
    return {k: v for k, v in environ.items() if k not in SERVER_ENV}


def _profile_names(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ConfigError(f"{where}: servers must be a list of profile names, e.g. servers = [\"origin\", \"edge-1\"]")
    if not value:
        raise ConfigError(f"{where}: servers is empty: list the profiles of the fleet's servers")
    return list(value)


def _check_names(names: Sequence[str], profiles: Mapping[str, Any], where: str, path: Path) -> None:
    seen: set[str] = set()
    for name in names:
        if not name.strip() or ":" in name or "/" in name:
            raise ConfigError(f"{where}: {name!r} cannot name a server of a fleet (a profile named in a fleet "
                              "is not empty and has no ':' or '/': nodes are written PROFILE:vhost/app/stream)")
        if name not in profiles:
            known = ", ".join(sorted(profiles)) or "none"
            raise ConfigError(f"{where}: no profile named {name!r} in {path} (profiles: {known})")
        if name in seen:
            raise ConfigError(f"{where}: {name!r} is listed twice")
        seen.add(name)


def _load_servers(names: Sequence[str], flags: Mapping[str, Any], environ: Mapping[str, str], path: Path,
                  warn: Warn, where: str) -> tuple[Settings, ...]:
    servers = tuple(load_settings(flags, profile=name, environ=environ, path=path, warn=warn) for name in names)
    where_is: dict[str, str] = {}
    for settings in servers:
        server = host_port(settings.api_url)
        if server in where_is:
            raise ConfigError(f"{where}: {where_is[server]!r} and {settings.profile!r} are the same server ({server})")
        where_is[server] = str(settings.profile)
    return servers


def _once(warn: Warn) -> Warn:
    """The file is read once per server: say each warning once."""
    said: set[str] = set()

    def say(message: str) -> None:
        if message not in said:
            said.add(message)
            warn(message)

    return say


def _table(data: Mapping[str, Any], key: str, path: Path) -> dict[str, Any]:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{key}] must be a table of named {key}")
    return table


def load_fleet(name: str, flags: Mapping[str, Any] | None = None, *, environ: Mapping[str, str] | None = None,
               path: Path | None = None, warn: Warn | None = None) -> FleetSettings:
    """The fleet `name` of the config file (see the module docstring)."""
    warn = _once(warn or stderr_warn)
    path = path or config_path()
    what = f"fleet {name!r}"
    given = _refuse_server_flags(flags or {}, "--fleet")
    env = _without_server_env(os.environ if environ is None else environ, what, warn)
    data = read_config_file(path, warn)
    fleets = _table(data, "fleets", path)
    if name not in fleets:
        known = ", ".join(sorted(fleets)) or "none"
        raise ConfigError(f"no fleet named {name!r} in {path} (fleets: {known}); a fleet is a [fleets.NAME] table "
                          "with servers = [\"PROFILE\", ...]")
    where = f"{path} [fleets.{name}]"
    names, budget = _checked_fleet(fleets[name], data, where, path)
    return FleetSettings(name, _load_servers(names, given, env, path, warn, where), budget)


def _checked_fleet(table: object, data: Mapping[str, Any], where: str, path: Path) -> tuple[list[str], float]:
    """A `[fleets.NAME]` table's profiles and request budget; a ConfigError naming the first problem (an
    unknown key is one, with the nearest known key: a typo never silently changes the fleet)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(FLEET_KEYS))
    if unknown:
        raise ConfigError(f"{where}: {unknown_key_words(unknown[0], FLEET_KEYS)} (a fleet has {', '.join(FLEET_KEYS)})")
    names = _profile_names(table.get("servers"), where)
    _check_names(names, _table(data, "profiles", path), where, path)
    budget = table.get("request_budget", data.get("request_budget", Settings.model_fields["request_budget"].default))
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 < budget <= MAX_BUDGET:
        raise ConfigError(f"{where}: request_budget must be a number of requests per second above 0 and at most "
                          f"{MAX_BUDGET:g}")
    return names, float(budget)


def fleet_problems(data: Mapping[str, Any], path: Path) -> list[str]:
    """What `config validate` says of the file's `[fleets.NAME]` tables: the first problem of each (no
    server is asked, no token source is run)."""
    try:
        fleets = _table(data, "fleets", path)
    except ConfigError as error:
        return [str(error)]
    problems = []
    for name, table in fleets.items():
        try:
            _checked_fleet(table, data, f"{path} [fleets.{name}]", path)
        except ConfigError as error:
            problems.append(str(error))
    return problems


def load_servers(names: Iterable[str], flags: Mapping[str, Any] | None = None, *,
                 environ: Mapping[str, str] | None = None, path: Path | None = None,
                 warn: Warn | None = None) -> tuple[Settings, ...]:
    """The settings of several profiles named on the command line (`--servers origin,edge-1`), with the
    same checks as a fleet's list."""
    warn = _once(warn or stderr_warn)
    path = path or config_path()
    listed = list(names)
    given = _refuse_server_flags(flags or {}, "--servers")
    env = _without_server_env(os.environ if environ is None else environ, "--servers", warn)
    if not listed:
        raise ConfigError("--servers: name at least one profile (--servers origin,edge-1)")
    _check_names(listed, _table(read_config_file(path, warn), "profiles", path), "--servers", path)
    return _load_servers(listed, given, env, path, warn, "--servers")

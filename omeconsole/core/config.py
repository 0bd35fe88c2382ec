"""Settings: command-line flags > environment > a TOML file of named server profiles.

The file lives in the platform's user config directory (`omeconsole/config.toml`, or
`$OMECONSOLE_CONFIG`). Top-level keys apply to every profile; `[profiles.NAME]` tables override
them; `profile = "NAME"` at the top picks the default profile. The token may be written inline
(`token`), read from a file (`token_file`) or printed by a command (`token_command`, run without a
shell). Token values never appear in errors or warnings.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from omeconsole.api.publisher import default_publisher_url
from omeconsole.api.wire import Id3EventType, Id3Frame
from omeconsole.core.history.settings import HistorySettings

CONFIG_ENV = "OMECONSOLE_CONFIG"
ENV_KEYS = {"OME_API_URL": "api_url", "OME_ACCESS_TOKEN": "token", "OME_PUBLISHER_URL": "publisher_url"}
TOKEN_SOURCES = ("token", "token_file", "token_command")
TOKEN_COMMAND_TIMEOUT_S = 10.0

Warn = Callable[[str], None]


class ConfigError(Exception):
    """The configuration cannot be used; the message says which file, key or source and why."""


class ConfirmSettings(BaseModel):
    """Which actions ask "are you sure?" before sending."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    cue_out: bool = True
    cue_in: bool = True
    id3: bool = True
    send_events: bool = True


class Id3Template(BaseModel):
    """A named set of ID3 frames the operator can send with one key."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    event_type: Id3EventType = "event"
    frames: list[Id3Frame]


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    api_url: str = "http://127.0.0.1:8081"
    token: SecretStr | None = None
    publisher_url: str | None = None
    profile: str | None = None
    interval: float = Field(default=1.0, gt=0.05, le=3600)
    listing_interval: float = Field(default=10.0, gt=0.1, le=3600)
    request_budget: float = Field(default=20.0, gt=0, le=10_000)
    max_concurrency: int = Field(default=4, ge=1, le=64)
    history_seconds: int = Field(default=600, ge=10, le=86_400)
    timeout: float = Field(default=5.0, gt=0, le=300)
    insecure: bool = False
    read_only: bool = False
    theme: str = "ome-dark"
    """The console's own dark theme (themes/dark.toml); any theme file's name or Textual built-in works."""
    keymap: dict[str, str] = Field(default_factory=dict)
    confirm: ConfirmSettings = Field(default_factory=ConfirmSettings)
    cue_out_default_s: float = Field(default=30.0, gt=0, le=86_400)
    id3_templates: list[Id3Template] = Field(default_factory=list)
    history: HistorySettings = Field(default_factory=HistorySettings)
    """The `[history]` table: the store of every sample (see core/history/settings.py)."""

    def token_value(self) -> str | None:
        return None if self.token is None else self.token.get_secret_value()

    def publisher_base(self) -> str:
        """Where the stream's LL-HLS is read: `publisher_url`, else the API's host on port 3333."""
        return self.publisher_url.rstrip("/") if self.publisher_url else default_publisher_url(self.api_url)


def config_path() -> Path:
    """Where the settings file is looked for: `$OMECONSOLE_CONFIG`, else the user config dir."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path("omeconsole") / "config.toml"


def _stderr_warn(message: str) -> None:
    print(f"omeconsole: warning: {message}", file=sys.stderr)


def _warn_if_others_can_read(path: Path, what: str, warn: Warn) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        warn(f"{what} {path} is readable by other users; run: chmod 600 {shlex.quote(str(path))}")


def read_config_file(path: Path, warn: Warn) -> dict[str, Any]:
    """The file's tables, or {} when it does not exist. Bad TOML is a ConfigError naming the file."""
    if not path.exists():
        return {}
    _warn_if_others_can_read(path, "the config file", warn)
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None


def _select_profile(data: dict[str, Any], profile: str | None, path: Path) -> tuple[str | None, dict[str, Any]]:
    base = {k: v for k, v in data.items() if k != "profiles"}
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: [profiles] must be a table of named profiles")
    name = profile if profile is not None else base.pop("profile", None)
    base.pop("profile", None)
    if name is None:
        return None, base
    if not isinstance(name, str) or name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(f"no profile named {name!r} in {path} (profiles: {known})")
    table = profiles[name]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [profiles.{name}] must be a table")
    # The profile's token source replaces any token source set at the top level.
    if any(key in table for key in TOKEN_SOURCES):
        base = {k: v for k, v in base.items() if k not in TOKEN_SOURCES}
    return name, {**base, **table}


def _resolve_token(layer: dict[str, Any], origin: str, warn: Warn) -> str | None:
    """Turns `token` / `token_file` / `token_command` into the token text (the first one set)."""
    if layer.get("token") is not None:
        value = layer["token"]
        if not isinstance(value, str):
            raise ConfigError(f"{origin}: token must be a string")
        return value
    if layer.get("token_file") is not None:
        token_path = Path(str(layer["token_file"])).expanduser()
        _warn_if_others_can_read(token_path, "the token file", warn)
        try:
            return token_path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ConfigError(f"{origin}: cannot read token_file {token_path}: "
                              f"{error.strerror or error}") from None
    if layer.get("token_command") is not None:
        command = layer["token_command"]
        argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
        if not argv:
            raise ConfigError(f"{origin}: token_command is empty")
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=TOKEN_COMMAND_TIMEOUT_S,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ConfigError(f"{origin}: token_command {argv[0]!r} could not run: "
                              f"{type(error).__name__}") from None
        if done.returncode != 0:
            raise ConfigError(f"{origin}: token_command {argv[0]!r} failed with exit status {done.returncode}")
        token = done.stdout.strip()
        if not token:
            raise ConfigError(f"{origin}: token_command {argv[0]!r} printed nothing")
        return token
    return None


def _describe(error: ValidationError) -> str:
    """Validation problems by field, without echoing values (one of them may be the token)."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "settings"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    profile: str | None = None,
    environ: Mapping[str, str] | None = None,
    path: Path | None = None,
    warn: Warn | None = None,
) -> Settings:
    """Settings from flags (None values ignored) > environment > the file's profile > file defaults."""
    warn = warn or _stderr_warn
    environ = os.environ if environ is None else environ
    path = path or config_path()
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    profile = given.pop("profile", profile)
    name, file_layer = _select_profile(read_config_file(path, warn), profile, path)

    unknown = sorted(k for k in file_layer if k not in Settings.model_fields and k not in TOKEN_SOURCES)
    for key in unknown:
        warn(f"{path}: unknown setting {key!r} ignored")
        file_layer.pop(key)

    merged: dict[str, Any] = {k: v for k, v in file_layer.items() if k not in TOKEN_SOURCES}
    for env_key, field_name in ENV_KEYS.items():
        if environ.get(env_key):
            merged[field_name] = environ[env_key]
    merged.update(given)
    if "token" not in given and not environ.get("OME_ACCESS_TOKEN"):
        token = _resolve_token(file_layer, f"{path}" + (f" [profiles.{name}]" if name else ""), warn)
        if token is not None:
            merged["token"] = token
    merged["profile"] = name
    try:
        return Settings.model_validate(merged)
    except ValidationError as error:
        raise ConfigError(f"invalid settings: {_describe(error)}") from None

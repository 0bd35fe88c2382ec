"""Settings: command-line flags > environment > a TOML file of named server profiles.

The file lives in the platform's user config directory (`omeconsole/config.toml`, or
`$OMECONSOLE_CONFIG`). Top-level keys apply to every profile; `[profiles.NAME]` tables override
them; `profile = "NAME"` at the top picks the default profile. The token may be written inline
(`token`), read from a file (`token_file`) or printed by a command (`token_command`, run without a
shell). Token values never appear in errors or warnings, and a file others can read or change (the
config, whose `token_command` runs as you, or a token file) is warned about.

`[fleets.NAME]` tables name several profiles that are read together (`servers = ["origin", "edge-1"]`):
`load_fleet` gives each its own settings, as `load_settings` would for that profile alone.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from omeconsole.api.publisher import default_publisher_url
from omeconsole.api.wire import Id3EventType, Id3Frame
from omeconsole.core.alerts.rules import AlertRule, check_unique_names
from omeconsole.core.alerts.webhook_config import WebhookConfig
from omeconsole.core.config_words import check_file_keys, explain
from omeconsole.core.history.settings import HistorySettings

CONFIG_ENV = "OMECONSOLE_CONFIG"
ENV_KEYS = {"OME_API_URL": "api_url", "OME_PUBLISHER_URL": "publisher_url"}
TOKEN_ENV = {"OME_ACCESS_TOKEN": "token", "OME_ACCESS_TOKEN_FILE": "token_file"}
TOKEN_SOURCES = ("token", "token_file", "token_command")
TOKEN_COMMAND_TIMEOUT_S = 10.0
MAX_TOKEN_BYTES = 64 * 1024
NAMED_TABLES = ("profiles", "fleets", "templates", "schedules")
"""Tables of the file that are not settings: `[templates.*]` and `[[schedules]]` are the scheduler's
(core/schedule), read and checked there; `[fleets.*]` core/fleet's."""

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


class AlertNotices(BaseModel):
    """The `[alert_notices]` table: how the TUI tells of an alert that starts firing (both off by default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    bell: bool = False
    """Ring the terminal bell."""
    desktop: Literal["off", "auto", "notify-send", "osc777", "osc9"] = "off"
    """A desktop notification: `notify-send` (libnotify), the terminal's own through the OSC 777 or OSC 9
    escape sequence, or `auto` (notify-send where it is installed, else OSC 777)."""


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
    confirm_timeout: float = Field(default=15.0, gt=0, le=3600)
    """Seconds a send waits to be seen in the playlist (or media) before it is "not seen"."""
    follow_playlists: bool = True
    """Read the playlists of the streams on screen (within the request budget) to show ad breaks that
    this console did not send (core/adops/playlist_watch.py); False: only its own sends' breaks show."""
    thumbnails: bool = True
    """Show the selected stream's thumbnail in the stream view (read from the publisher each second while the
    view is open, when the server publishes one); False (or `--no-thumbnails`): no picture, no reads."""
    thumbnail_frozen_after: float = Field(default=10.0, gt=0, le=3600)
    """Seconds a thumbnail must stay unchanged before the stream view says it is frozen."""
    id3_templates: list[Id3Template] = Field(default_factory=list)
    history: HistorySettings = Field(default_factory=HistorySettings)
    """The `[history]` table: the store of every sample (see core/history/settings.py)."""
    alerts: list[AlertRule] = Field(default_factory=list)
    """`[[alerts]]` rules (core/alerts/rules.py)."""
    webhooks: list[WebhookConfig] = Field(default_factory=list)
    """`[[webhooks]]` receivers of alert notifications (core/alerts/webhook_config.py)."""
    alert_notices: AlertNotices = Field(default_factory=AlertNotices)

    @field_validator("alerts")
    @classmethod
    def _unique_alert_names(cls, rules: list[AlertRule]) -> list[AlertRule]:
        check_unique_names(rules)
        return rules

    def token_value(self) -> str | None:
        return None if self.token is None else self.token.get_secret_value()

    def publisher_base(self) -> str:
        """Where the stream's LL-HLS is read: see `publisher_base`."""
        return publisher_base(self.api_url, self.publisher_url)


def publisher_base(api_url: str, configured: str | None = None) -> str:
    """The one rule for where playlists are read, used by the console and the command line alike: the
    configured publisher URL, else the management API's host on the server's default port, 3333."""
    return configured.rstrip("/") if configured else default_publisher_url(api_url)


def config_path() -> Path:
    """Where the settings file is looked for: `$OMECONSOLE_CONFIG`, else the user config dir."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path("omeconsole") / "config.toml"


def stderr_warn(message: str) -> None:
    print(f"omeconsole: warning: {message}", file=sys.stderr)


def _warn_if_others_can_use(path: Path, what: str, warn: Warn) -> None:
    """Any read or write bit for group or others: they could read the token, or change what runs."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    can = [verb for verb, bits in (("read", stat.S_IRGRP | stat.S_IROTH), ("changed", stat.S_IWGRP | stat.S_IWOTH))
           if mode & bits]
    if can:
        warn(f"{what} {path} can be {' and '.join(can)} by other users; run: chmod 600 {shlex.quote(str(path))}")


def ensure_private_directory(path: Path) -> Path:
    """Create `path` (and its parents) if missing; the directory itself is made 0700."""
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def read_config_file(path: Path, warn: Warn) -> dict[str, Any]:
    """The file's tables, or {} when it does not exist. Bad TOML is a ConfigError naming the file."""
    if not path.exists():
        return {}
    _warn_if_others_can_use(path, "the config file", warn)
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None


def _select_profile(data: dict[str, Any], profile: str | None,
                    path: Path) -> tuple[str | None, dict[str, Any], dict[str, str]]:
    """(the profile's name, the file's keys for it, where each key is written: `PATH` or `PATH [profiles.NAME]`)."""
    base = {k: v for k, v in data.items() if k not in NAMED_TABLES}
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: [profiles] must be a table of named profiles")
    name = profile if profile is not None else base.pop("profile", None)
    base.pop("profile", None)
    if name is None:
        return None, base, dict.fromkeys(base, str(path))
    if not isinstance(name, str) or name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(f"no profile named {name!r} in {path} (profiles: {known})")
    table = profiles[name]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [profiles.{name}] must be a table")
    # The profile's token source replaces any token source set at the top level.
    if any(key in table for key in TOKEN_SOURCES):
        base = {k: v for k, v in base.items() if k not in TOKEN_SOURCES}
    where = {**dict.fromkeys(base, str(path)), **dict.fromkeys(table, f"{path} [profiles.{name}]")}
    return name, {**base, **table}, where


def _resolve_token(layer: dict[str, Any], origin: str, warn: Warn) -> str | None:
    """Turns `token` / `token_file` / `token_command` into the token text (the first one set)."""
    if layer.get("token") is not None:
        value = layer["token"]
        if not isinstance(value, str):
            raise ConfigError(f"{origin}: token must be a string")
        return value
    if layer.get("token_file") is not None:
        token_path = Path(str(layer["token_file"])).expanduser()
        _warn_if_others_can_use(token_path, "the token file", warn)
        try:
            with token_path.open("rb") as handle:
                raw = handle.read(MAX_TOKEN_BYTES + 1)
        except OSError as error:
            raise ConfigError(f"{origin}: cannot read token_file {token_path}: "
                              f"{error.strerror or error}") from None
        if len(raw) > MAX_TOKEN_BYTES:
            raise ConfigError(f"{origin}: token_file {token_path} is larger than {MAX_TOKEN_BYTES} bytes")
        try:
            return raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise ConfigError(f"{origin}: token_file {token_path} is not UTF-8 text") from None
    if layer.get("token_command") is not None:
        command = layer["token_command"]
        argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
        if not argv:
            raise ConfigError(f"{origin}: token_command is empty")
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=TOKEN_COMMAND_TIMEOUT_S,
                                  check=False)
        except (OSError, ValueError, subprocess.TimeoutExpired) as error:  # ValueError: output not UTF-8
            raise ConfigError(f"{origin}: token_command {argv[0]!r} could not run: "
                              f"{type(error).__name__}") from None
        if done.returncode != 0:
            raise ConfigError(f"{origin}: token_command {argv[0]!r} failed with exit status {done.returncode}")
        token = done.stdout.strip()
        if not token:
            raise ConfigError(f"{origin}: token_command {argv[0]!r} printed nothing")
        return token
    return None


def _token_from_layers(flags: dict[str, Any], environ: Mapping[str, str], file_layer: dict[str, Any],
                       file_where: Mapping[str, str], warn: Warn) -> tuple[str | None, str]:
    """The token and where it came from: the first layer with a token source decides (flags, then
    environment, then the file)."""
    if len(flags) > 1:
        raise ConfigError("give either --token or --token-file, not both")
    if flags:
        flag = "--token-file" if "token_file" in flags else "--token"
        return _resolve_token(flags, flag, warn), f"flag {flag}"
    from_env = {field: environ[key] for key, field in TOKEN_ENV.items() if environ.get(key)}
    if len(from_env) > 1:
        raise ConfigError("both OME_ACCESS_TOKEN and OME_ACCESS_TOKEN_FILE are set; unset one")
    if from_env:
        variable = next(k for k in TOKEN_ENV if environ.get(k))
        return _resolve_token(from_env, variable, warn), f"environment {variable}"
    source = next((key for key in TOKEN_SOURCES if file_layer.get(key) is not None), None)
    if source is None:
        return None, "default"
    return _resolve_token(file_layer, file_where[source], warn), f"file {file_where[source]} {source}"


@dataclass(frozen=True)
class Effective:
    """Settings as loaded, and where each came from (`config show`)."""

    settings: Settings
    origins: Mapping[str, str]
    """By key (a table's keys dotted: `confirm.cue_out`): `flag --interval`, `environment OME_API_URL`,
    `file PATH [profiles.NAME]`; a key not here is the default."""
    path: Path

    def origin(self, key: str) -> str:
        return self.origins.get(key, "default")


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    profile: str | None = None,
    environ: Mapping[str, str] | None = None,
    path: Path | None = None,
    warn: Warn | None = None,
    server: bool = True,
) -> Settings:
    """Settings from flags (None values ignored) > environment > the file's profile > file defaults.
    `server=False` (the demo, which runs its own server): what names a server is not read from the
    environment and no token source is run (a profile's `token_command` may ask for a passphrase)."""
    return load_effective(flags, profile=profile, environ=environ, path=path, warn=warn, server=server).settings


def load_effective(
    flags: Mapping[str, Any] | None = None,
    *,
    profile: str | None = None,
    environ: Mapping[str, str] | None = None,
    path: Path | None = None,
    warn: Warn | None = None,
    server: bool = True,
) -> Effective:
    """`load_settings`, with where each setting came from."""
    warn = warn or stderr_warn
    environ = os.environ if environ is None else environ
    if not server:
        environ = {k: v for k, v in environ.items() if k not in ENV_KEYS and k not in TOKEN_ENV}
    path = path or config_path()
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    chosen = given.pop("profile", profile)
    name, file_layer, where = _select_profile(read_config_file(path, warn), chosen, path)

    table = f"profiles.{name}" if name else None
    unknown = check_file_keys(file_layer, Settings, path, table, TOKEN_SOURCES)
    if unknown:
        raise ConfigError("; ".join(unknown))

    merged: dict[str, Any] = {k: v for k, v in file_layer.items() if k not in TOKEN_SOURCES}
    origins = _file_origins(merged, where)
    for env_key, field_name in ENV_KEYS.items():
        if environ.get(env_key):
            merged[field_name] = environ[env_key]
            origins[field_name] = f"environment {env_key}"
    flag_tokens: dict[str, Any] = {k: given.pop(k) for k in ("token", "token_file") if k in given}
    merged.update(given)
    origins.update({key: f"flag --{key.replace('_', '-')}" for key in given})
    token, origins["token"] = _token_from_layers(flag_tokens, environ, file_layer, where, warn) if server \
        else (None, "default")
    if token is not None:
        merged["token"] = token
    merged["profile"] = name
    if name is not None:  # named by the file's `profile`, else by --profile (or a fleet's list)
        origins["profile"] = f"file {path}" if chosen is None else "flag --profile"
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as error:
        raise ConfigError("; ".join(explain(error, Settings, str(path), table,
                                            partial(_place, origins, where, path)))) from None
    return Effective(settings, {key: origin for key, origin in origins.items() if origin != "default"}, path)


def _place(origins: Mapping[str, str], where: Mapping[str, str], path: Path, key: str) -> tuple[str, str | None]:
    """Where a key with a bad value was given: its file and table, or its flag or variable."""
    origin = origins.get(key, "default")
    if origin.startswith(("flag ", "environment ")):
        return origin.split(" ", 1)[1], None
    written = where.get(key, str(path))
    return str(path), written[len(str(path)):].strip(" []") or None


def _file_origins(layer: Mapping[str, Any], where: Mapping[str, str]) -> dict[str, str]:
    """`file PATH` for each key of the file's layer, and for each key of its tables (`confirm.cue_out`)."""
    origins: dict[str, str] = {}
    for key, value in layer.items():
        origins[key] = f"file {where[key]}"
        if isinstance(value, dict) and key != "keymap":
            origins.update({f"{key}.{inner}": f"file {where[key]}" for inner in value})
    return origins

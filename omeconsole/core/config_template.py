"""The file `omeconsole config init` writes, generated from the settings model so it cannot drift from it.

Every setting that has a default is written with it, active, and a one-line comment: loading the file
gives the defaults. What has no default (a token source, the publisher URL, the default profile) and the
tables of named or listed things (`[profiles.NAME]`, `[fleets.NAME]`, `[[alerts]]`, `[[webhooks]]`,
`[[id3_templates]]`, `[keymap]` entries, the scheduler's `[templates.NAME]` and `[[schedules]]`) are
written as commented examples that load as they are once uncommented. A field of the model without a
comment here, or an example naming no field, makes `config_template()` raise: a test writes the file.
"""

from __future__ import annotations

import json
import os
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from omeconsole.core.config import TOKEN_SOURCES, Settings, ensure_private_directory

COMMENTS: dict[str, str] = {
    "api_url": "the server's management API (REST), scheme, host and port",
    "token": "the API access token, inline (prefer token_file or token_command: this file is read by you)",
    "token_file": "a file holding the token (keep it chmod 600)",
    "token_command": "a command printing the token, run without a shell",
    "publisher_url": "where LL-HLS playlists are read; default: the API's host on port 3333",
    "profile": "the [profiles.NAME] used when --profile is not given",
    "interval": "seconds between polls of the selected node",
    "listing_interval": "seconds between reads of the list of hosts, applications and streams",
    "request_budget": "requests per second to the server, all nodes together",
    "max_concurrency": "requests in flight at once",
    "history_seconds": "seconds of readings kept in memory for the charts",
    "timeout": "seconds an API request may take",
    "insecure": "do not verify the server's TLS certificate",
    "read_only": "refuse every send (cue-out, cue-in, ID3)",
    "theme": "ome-dark, ome-light, a theme file's name or a Textual theme",
    "keymap": "action id = keys, comma-separated (ids: the README's key table)",
    "confirm": "which sends ask \"send this?\" first (a plan with a warning always asks)",
    "confirm.cue_out": "ask before a cue-out",
    "confirm.cue_in": "ask before a cue-in",
    "confirm.id3": "ask before an ID3 send",
    "confirm.send_events": "ask before a raw sendEvents",
    "cue_out_default_s": "the cue-out dialog's duration, seconds",
    "confirm_timeout": "seconds a send waits to be seen in the playlist before it is \"not seen\"",
    "follow_playlists": "read on-screen streams' playlists to show breaks others sent",
    "thumbnails": "the stream view's picture, read from the server's thumbnail publisher (false: none, no reads)",
    "thumbnail_frozen_after": "seconds a picture may stay the same before it is said to be frozen",
    "id3_templates": "named ID3 frame sets, one key to send",
    "id3_templates.name": "shown in the ID3 dialog",
    "id3_templates.event_type": "video, audio or event",
    "id3_templates.frames": "the frames: frameType, info, data",
    "history": "the store of every reading (charts' past, replay, `omeconsole history`)",
    "history.enabled": "the console records what it polls (`omeconsole record` always does)",
    "history.path": "the database; default: history.sqlite3 in the user data directory",
    "history.full_resolution": "seconds every reading is kept as taken",
    "history.tiers": "coarser resolutions: bucket step and how long kept, seconds",
    "history.max_size": "bytes the file may grow to; the oldest data goes first",
    "history.queue_size": "readings waiting for the writer; past this new ones are dropped and counted",
    "history.batch_seconds": "the writer commits at least this often",
    "alerts": "alert rules, evaluated on every poll",
    "alerts.name": "unique; default: the kind",
    "alerts.kind": "server_down, ingest_stopped, input_bitrate_drop, no_viewers, viewers_above, "
                   "marker_unconfirmed",
    "alerts.scope": "[SERVER:]VHOST[/APP[/STREAM]] with wildcards",
    "alerts.for": "the condition holds this long before the alert fires",
    "alerts.keep_firing_for": "... and is gone this long before it resolves",
    "alerts.severity": "info, warning or critical",
    "alerts.summary": "text for notifications; default: the rule's own description",
    "alerts.after": "threshold of server_down, ingest_stopped, no_viewers (a duration)",
    "alerts.below_percent": "threshold of input_bitrate_drop, with window",
    "alerts.window": "input_bitrate_drop: the span the input is compared over",
    "alerts.viewers": "threshold of viewers_above",
    "alerts.within": "threshold of marker_unconfirmed (a duration)",
    "webhooks": "receivers of alert notifications (POST, JSON)",
    "webhooks.name": "shown in metrics and messages; default: the URL's host",
    "webhooks.url": "the receiver",
    "webhooks.headers": "plain header values (not secret)",
    "webhooks.headers_from_env": "header = environment variable holding its value",
    "webhooks.headers_from_file": "header = file holding its value (0600)",
    "webhooks.timeout": "seconds a delivery may take",
    "webhooks.queue": "messages waiting at most; the oldest is dropped past it",
    "webhooks.max_attempts": "attempts before a message is given up",
    "webhooks.insecure": "do not verify the receiver's TLS certificate",
    "alert_notices": "how the console tells of an alert that starts firing",
    "alert_notices.bell": "ring the terminal bell",
    "alert_notices.desktop": "off, auto, notify-send, osc777 or osc9",
}
"""One line per field of `Settings` and of the tables it holds, by dotted name (`history.tiers`)."""

EXAMPLES: dict[str, Any] = {
    "publisher_url": "https://ome.example.net:3334",
    "profile": "prod",
    "token": "ome-access-token",
    "token_file": "~/.ome-token",
    "token_command": "pass show ome/api-token",
    "history.path": "~/ome/history.sqlite3",
    "keymap": {"cue_out": "o,ctrl+o"},
    "id3_templates": {"name": "chapter", "event_type": "event",
                      "frames": [{"frameType": "TXXX", "info": "chapter", "data": "2"}]},
    "alerts": {"name": "ingest stopped", "kind": "ingest_stopped", "scope": "default/*/*", "after": "10s",
               "for": "0s", "keep_firing_for": "30s", "severity": "critical",
               "summary": "a stream stopped receiving"},
    "webhooks": {"name": "ops", "url": "https://hooks.example.net/ome", "headers": {"X-Team": "video"},
                 "headers_from_env": {"Authorization": "OME_HOOK_AUTH"},
                 "headers_from_file": {"X-Api-Key": "~/.config/ome-hook-key"}, "timeout": 5.0,
                 "queue": 1000, "max_attempts": 8, "insecure": False},
}
"""Values of what has no default (a commented example each); list items hold every key they may."""

HEADER = """\
# omeconsole settings, each with its default (written by `omeconsole config init`).
# Flags > environment (OME_API_URL, OME_PUBLISHER_URL, OME_ACCESS_TOKEN or OME_ACCESS_TOKEN_FILE) > this file.
# Top-level keys apply to every profile; a [profiles.NAME] table overrides them for one server.
# Lines starting with # are examples: remove the # to use one. `omeconsole config validate` checks
# the file (exit 2 naming the table and the key); `omeconsole config show` prints what is in effect.
"""

SERVERS = """\
# A server profile: `--profile prod`, or `profile = "prod"` above (every key above may be set here too).
# [profiles.prod]
# api_url = "https://ome.example.net:8082"
# publisher_url = "https://ome.example.net:3334"
# token_command = "pass show ome/api-token"   # or token_file = "~/.ome-token", or token = "..."

# Several profiles read together: `omeconsole --fleet live`.
# [fleets.live]
# servers = ["prod"]                          # profiles, in the order they are shown
# request_budget = 40                         # requests per second for the whole fleet
"""

SCHEDULER = """\
# A break template (`cue-out --template spot`, a button of the cue-out dialog, schedules).
# [templates.spot]
# duration = "30s"                            # seconds, or 30s / 2m
# preroll = "10s"                             # a warning this long before the out
# id3_out = [{ frameType = "TXXX", info = "adId", data = "spot-30" }]   # sent with the out
# id3_in = [{ frameType = "TXXX", info = "adEnd", data = "spot-30" }]   # sent at the planned end

# A schedule, run by `omeconsole scheduler` or the console's R (one of every, at or cron).
# [[schedules]]
# name = "news-breaks"
# stream = "default/app/news"                 # or a pattern: "default/app/*"
# template = "spot"
# every = "12m"                               # from each local midnight; or at = ["06:00"], cron = "..."
# offset = "3m"
# timezone = "UTC"                            # an IANA zone
# between = "06:00-23:00"                     # only runs in this window
"""

_COLUMN = 44


def toml_value(value: Any) -> str:
    """`value` as TOML (strings as basic strings, tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, BaseModel):
        return toml_value(value.model_dump(by_alias=True))
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else json.dumps(name)


def _line(assignment: str, comment: str, commented: bool = False) -> str:
    text = f"# {assignment}" if commented else assignment
    return f"{text.ljust(_COLUMN - 1)} # {comment}"


def _item_model(field: FieldInfo) -> type[BaseModel] | None:
    """The model of a list's items (`list[AlertRule]`), if the field is such a list."""
    if typing.get_origin(field.annotation) not in (list, tuple):
        return None
    item = typing.get_args(field.annotation)[0]
    return item if isinstance(item, type) and issubclass(item, BaseModel) else None


def _table_model(field: FieldInfo) -> type[BaseModel] | None:
    annotation = field.annotation
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _is_dict(field: FieldInfo) -> bool:
    return typing.get_origin(field.annotation) is dict


def _name(key: str, field: FieldInfo) -> str:
    return field.alias or key


def _default(field: FieldInfo) -> Any:
    return field.get_default(call_default_factory=True)


def _fields(model: type[BaseModel], prefix: str) -> Iterator[tuple[str, str, FieldInfo]]:
    """(dotted name, key in the file, field) of every field, its comment required."""
    for key, field in model.model_fields.items():
        dotted = f"{prefix}{_name(key, field)}"
        if dotted not in COMMENTS:
            raise KeyError(f"{dotted}: a setting without a comment in config_template.COMMENTS")
        yield dotted, _name(key, field), field


def _scalar_lines(model: type[BaseModel], prefix: str) -> list[str]:
    """The keys of one table that are not tables themselves: active with their default, else an example."""
    lines: list[str] = []
    for dotted, key, field in _fields(model, prefix):
        if _table_model(field) or (_item_model(field) and not _default(field)) or _is_dict(field):
            continue
        if dotted == "token":
            lines.extend(_line(f"{source} = {toml_value(EXAMPLES[source])}", COMMENTS[source], commented=True)
                         for source in TOKEN_SOURCES)
            continue
        default = _default(field)
        if default is None or field.is_required():
            lines.append(_line(f"{key} = {toml_value(EXAMPLES[dotted])}", COMMENTS[dotted], commented=True))
        else:
            lines.append(_line(f"{key} = {toml_value(default)}", COMMENTS[dotted]))
    return lines


def _tables(model: type[BaseModel]) -> list[str]:
    """The tables of `Settings` (`[confirm]`, `[keymap]`, `[[alerts]]` …) in the model's order."""
    blocks: list[str] = []
    for dotted, key, field in _fields(model, ""):
        table, item = _table_model(field), _item_model(field)
        if table is not None:
            blocks.append("\n".join([f"[{key}]".ljust(_COLUMN - 1) + f" # {COMMENTS[dotted]}",
                                     *_scalar_lines(table, f"{dotted}.")]))
        elif _is_dict(field):
            blocks.append("\n".join([f"[{key}]".ljust(_COLUMN - 1) + f" # {COMMENTS[dotted]}",
                                     *(_line(f"{_key(k)} = {toml_value(v)}", "for example", commented=True)
                                       for k, v in EXAMPLES[dotted].items())]))
        elif item is not None and not _default(field):
            blocks.append("\n".join([f"# {COMMENTS[dotted]}", f"# [[{key}]]", *_item_lines(item, dotted)]))
    return blocks


def _item_lines(item: type[BaseModel], dotted: str) -> list[str]:
    """One commented example item: every key the example holds, then the item's other keys named."""
    example = EXAMPLES[dotted]
    unknown = set(example) - {_name(k, f) for k, f in item.model_fields.items()}
    if unknown:
        raise KeyError(f"{dotted}: the example names no field {sorted(unknown)}")
    lines = [_line(f"{key} = {toml_value(example[key])}", COMMENTS[name], commented=True)
             for name, key, _field in _fields(item, f"{dotted}.") if key in example]
    others = [(name, key) for name, key, _field in _fields(item, f"{dotted}.") if key not in example]
    lines.extend(f"#   also {key}: {COMMENTS[name]}" for name, key in others)
    return lines


def config_template() -> str:
    """The whole file `config init` writes."""
    parts = [HEADER, "\n".join(_scalar_lines(Settings, "")), *_tables(Settings), SERVERS.rstrip("\n"),
             SCHEDULER.rstrip("\n")]
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def write_config_template(path: Path) -> bool:
    """The file of every setting, 0600 in a 0700 directory; False (nothing written) if one exists."""
    ensure_private_directory(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(config_template())
    return True

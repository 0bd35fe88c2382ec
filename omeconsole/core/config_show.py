"""`omeconsole config show`: the settings in effect, one line each, with where each came from (a flag, the
environment, the file and its table, or the default). The token is never printed, only where it came from;
a webhook's URL and headers are not printed either (tokens hide there), only its name or host. What the
file gave is outside text: shown through `core.text.visible`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, SecretStr

from omeconsole.core.config import Effective
from omeconsole.core.config_template import toml_value
from omeconsole.core.text import visible

REDACTED = "(set; not shown)"
_COLUMN = 44


def _shown(key: str, value: Any) -> str:
    """A value as `config show` prints it: a token redacted, a list of rules or receivers by name."""
    if isinstance(value, SecretStr):
        return REDACTED
    if value is None:
        return "(none)"
    if isinstance(value, dict) and not value:
        return "{}"
    if key == "webhooks":
        return f"{len(value)} receiver(s): " + ", ".join(webhook.label for webhook in value) if value else "[]"
    if key in ("alerts", "id3_templates"):
        return f"{len(value)}: " + ", ".join(toml_value(item.name) for item in value) if value else "[]"
    return toml_value(str(value) if hasattr(value, "__fspath__") else value)


def _settings_lines(model: BaseModel, prefix: str, effective: Effective) -> Iterator[str]:
    for key in type(model).model_fields:
        value = getattr(model, key)
        dotted = f"{prefix}{key}"
        if isinstance(value, BaseModel):
            yield from _settings_lines(value, f"{dotted}.", effective)
            continue
        shown = _shown(key, value)
        if dotted == "publisher_url" and value is None:
            shown = f"(none: playlists are read from {toml_value(effective.settings.publisher_base())})"
        line = f"{dotted} = {shown}"
        yield f"{line.ljust(_COLUMN - 1)} # {effective.origin(dotted)}"


def show_lines(effective: Effective) -> list[str]:
    """Every setting in effect, one line each: `key = value  # origin`."""
    profile = effective.settings.profile
    head = f"# the config file: {effective.path}" + ("" if effective.path.exists() else " (not found)")
    lines = [head, f"# profile: {profile}" if profile else "# no profile"]
    lines.extend(_settings_lines(effective.settings, "", effective))
    return [visible(line) for line in lines]

"""`[[alerts]]` rules as the config file writes them, checked once at load.

```toml
[[alerts]]
name = "ingest stopped"     # unique; defaults to the kind
kind = "ingest_stopped"     # server_down | ingest_stopped | input_bitrate_drop | no_viewers | viewers_above
                            # | marker_unconfirmed | schedule_missed
scope = "default/*/*"       # [SERVER:]VHOST[/APP[/STREAM]] with wildcards (server_down: a server wildcard)
after = "10s"               # the kind's threshold (see below)
for = "0s"                  # the condition must hold this long before the alert fires
keep_firing_for = "30s"     # ... and be gone this long before it resolves (hysteresis)
severity = "critical"       # info | warning | critical
```

Thresholds per kind: `server_down` and `ingest_stopped` and `no_viewers` take `after` (a duration),
`input_bitrate_drop` takes `below_percent` and `window`, `viewers_above` takes `viewers`,
`marker_unconfirmed` takes `within`, `schedule_missed` none. A threshold that does not belong to the kind
is an error, so a typo never silently changes what a rule watches. Durations are seconds (a number) or text with a
unit: `500ms`, `30s`, `5m`, `1h`.

`schedule_missed` is heard, not measured: the scheduler (`omeconsole scheduler`, or the console running
the schedules) fires it when a planned break did not go out — skipped by a rule, missed while nothing
ran, its playlist unreachable, refused by the server — with the reason, and resolves it once that
schedule's next break to the stream is accepted (after `keep_firing_for`). The scheduler fires
`marker_unconfirmed` itself for a scheduled break its follow did not see (see `core/alerts/occurrences.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from omeconsole.core.alerts.scope import Scope
from omeconsole.model.nodes import INGEST_STALL_S
from omeconsole.model.paths import Level

Kind = Literal["server_down", "ingest_stopped", "input_bitrate_drop", "no_viewers", "viewers_above",
               "marker_unconfirmed", "schedule_missed"]
Severity = Literal["info", "warning", "critical"]
HEARD_KINDS: frozenset[Kind] = frozenset({"schedule_missed"})
"""Kinds fired by what the scheduler tells (`core/alerts/occurrences.py`), not judged from readings."""

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
MAX_DURATION_S = 7 * 86_400.0


def parse_duration(value: object) -> float:
    """Seconds from a number or `500ms` / `30s` / `5m` / `1h`; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError("a duration is a number of seconds or text like 30s, 5m")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.fullmatch(value.strip())):
        seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    else:
        raise ValueError("a duration is a number of seconds or text like 500ms, 30s, 5m, 1h")
    if not 0 <= seconds <= MAX_DURATION_S:
        raise ValueError(f"a duration must be between 0 and {MAX_DURATION_S:g} s")
    return seconds


Duration = Annotated[float, BeforeValidator(parse_duration)]

_THRESHOLDS: dict[Kind, dict[str, Any]] = {
    "server_down": {"after": 30.0},
    "ingest_stopped": {"after": INGEST_STALL_S},  # the tree's `◐ stalled` uses the same threshold
    "input_bitrate_drop": {"below_percent": 50.0, "window": 300.0},
    "no_viewers": {"after": 300.0},
    "viewers_above": {"viewers": None},
    "marker_unconfirmed": {"within": 30.0},
    "schedule_missed": {},
}
"""The thresholds each kind takes, with their defaults (None: required)."""

_LEVELS: dict[Kind, tuple[Level, ...]] = {
    "ingest_stopped": ("stream",),
    "input_bitrate_drop": ("stream",),
    "no_viewers": ("stream",),
    "viewers_above": ("vhost", "app", "stream"),
    "marker_unconfirmed": ("stream",),
    "schedule_missed": ("stream",),
}
_DEFAULT_SCOPE: dict[Kind, str] = {"server_down": "*", "viewers_above": "*/*/*"}


class AlertRule(BaseModel):
    """One `[[alerts]]` table. Thresholds not used by the kind stay None."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = Field(default="", max_length=200)
    kind: Kind
    scope: str = ""
    for_s: Duration = Field(default=0.0, alias="for")
    keep_firing_for: Duration = 30.0
    severity: Severity = "warning"
    summary: str | None = Field(default=None, max_length=500)
    """Optional text for notifications; the rule's own description is used otherwise."""
    after: Duration | None = None
    below_percent: float | None = Field(default=None, gt=0, lt=100)
    window: Duration | None = None
    viewers: int | None = Field(default=None, ge=0)
    within: Duration | None = None

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("kind") not in _THRESHOLDS:
            return data
        kind: Kind = data["kind"]
        allowed = _THRESHOLDS[kind]
        data = dict(data)
        for other in ("after", "below_percent", "window", "viewers", "within"):
            if other not in allowed and data.get(other) is not None:
                takes = f"it takes: {', '.join(allowed)}" if allowed else "it takes no threshold"
                raise ValueError(f"{other} does not apply to {kind} ({takes})")
        for key, default in allowed.items():
            if data.get(key) is None:
                if default is None:
                    raise ValueError(f"{kind} needs {key}")
                data[key] = default
        data.setdefault("name", kind)
        if not data.get("scope"):
            data["scope"] = _DEFAULT_SCOPE.get(kind, "*/*/*")
        return data

    @model_validator(mode="after")
    def _check_scope(self) -> AlertRule:
        if not self.name.strip():
            raise ValueError("name must not be empty")
        levels = _LEVELS.get(self.kind)
        scope = Scope.parse(self.scope, server_only=levels is None)
        if levels is not None and scope.level not in levels:
            raise ValueError(f"scope {self.scope!r} selects {scope.level} nodes; {self.kind} watches "
                             f"{' or '.join(levels)} nodes")
        if self.kind == "input_bitrate_drop" and self.window is not None and self.window < 10:
            raise ValueError("window must be at least 10 s: a median needs several readings")
        return self

    @property
    def parsed_scope(self) -> Scope:
        return Scope.parse(self.scope, server_only=self.kind not in _LEVELS)

    def describe(self) -> str:
        """The condition in words, for notifications and `omeconsole alerts`."""
        match self.kind:
            case "server_down":
                return f"no successful read of the server for {self.after:g} s"
            case "ingest_stopped":
                return f"no input bytes for {self.after:g} s on a live stream"
            case "input_bitrate_drop":
                return (f"input bit rate below {self.below_percent:g} % of its median over the last "
                        f"{(self.window or 0) / 60:g} min")
            case "no_viewers":
                return f"no viewers for {(self.after or 0) / 60:g} min on an always-watched stream"
            case "viewers_above":
                return f"more than {self.viewers} viewers"
            case "marker_unconfirmed":
                return f"a cue sent was not seen in the playlist within {self.within:g} s"
            case "schedule_missed":
                return "a planned break of a schedule did not go out"


def check_unique_names(rules: Sequence[AlertRule]) -> None:
    """Two rules of one name would be one alert in every receiver: refuse them at load."""
    seen: set[str] = set()
    for rule in rules:
        if rule.name in seen:
            raise ValueError(f"two [[alerts]] rules are named {rule.name!r}; give each its own name")
        seen.add(rule.name)

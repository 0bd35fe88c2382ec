"""The `[history]` table of the config file: where the store lives, how long each resolution is kept.

```toml
[history]
enabled = true
path = "~/ome/history.sqlite3"       # default: history.sqlite3 in the user data directory
full_resolution = "1h"               # every sample as taken, kept this long
tiers = [{ step = "10s", keep = "1d" }, { step = "1m", keep = "30d" }]
max_size = "2 GiB"                   # the oldest data goes first when the file would grow past it
```

Durations are seconds as a number, or text with a unit: `ms`, `s`, `m`, `h`, `d` (a tier's step is a
whole number of seconds); sizes are bytes or text with `B`, `KiB`, `MiB`, `GiB` (or kB, MB, GB).
`$OMECONSOLE_HISTORY_DB` moves the database (it wins over `path`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

HISTORY_DB_ENV = "OMECONSOLE_HISTORY_DB"
DB_NAME = "history.sqlite3"

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$")
_DURATION_UNITS: dict[str | None, float] = {
    "ms": 0.001, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86_400.0, None: 1.0}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKMGT]i?B|B)?\s*$")
_SIZE_UNITS: dict[str | None, float] = {
    None: 1, "B": 1, "kB": 1000, "KB": 1000, "KiB": 1024, "MB": 1000**2, "MiB": 1024**2, "GB": 1000**3,
    "GiB": 1024**3, "TB": 1000**4, "TiB": 1024**4}


def _quantity(value: Any, pattern: re.Pattern[str], units: Mapping[str | None, float], what: str) -> float:
    """A number, or text of a number and one of `units`, as a float of the base unit."""
    if isinstance(value, bool):
        raise ValueError(f"not a {what}: {value!r}")
    if isinstance(value, int | float):
        return float(value)
    found = pattern.match(str(value))
    if found is None or found.group(2) not in units:
        raise ValueError(f"not a {what}: {str(value)[:40]!r}")
    return float(found.group(1)) * units[found.group(2)]


def parse_duration(value: Any) -> float:
    """Seconds from a number or text like `90`, `10s`, `5m`, `2h`, `30d`; ValueError otherwise."""
    seconds = _quantity(value, _DURATION, _DURATION_UNITS, "duration (use 10s, 5m, 2h, 30d)")
    if not 0 < seconds < 100 * 365 * 86_400:
        raise ValueError("a duration must be positive and under a century")
    return seconds


def parse_size(value: Any) -> int:
    """Bytes from a number or text like `500 MiB`, `2 GiB`, `1GB`; ValueError otherwise."""
    size = int(_quantity(value, _SIZE, _SIZE_UNITS, "size (use 500 MiB, 2 GiB)"))
    if size < 1024**2:
        raise ValueError("the history size cap must be at least 1 MiB")
    return size


class Tier(BaseModel):
    """One downsampled resolution: buckets of `step` seconds, kept for `keep` seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    step: int
    keep: float

    @field_validator("step", mode="before")
    @classmethod
    def _whole_seconds(cls, value: Any) -> int:
        seconds = parse_duration(value)
        if seconds != int(seconds):
            raise ValueError("a tier's step is a whole number of seconds")
        return int(seconds)

    @field_validator("keep", mode="before")
    @classmethod
    def _keep(cls, value: Any) -> float:
        return parse_duration(value)


def _default_tiers() -> tuple[Tier, ...]:
    return (Tier(step=10, keep=86_400), Tier(step=60, keep=30 * 86_400))


class HistorySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """Whether the console records what it polls (`omeconsole record` always does)."""
    path: Path | None = None
    full_resolution: float = 3600.0
    """Seconds every sample is kept as it was taken."""
    tiers: tuple[Tier, ...] = Field(default_factory=_default_tiers)
    max_size: int = 2 * 1024**3
    queue_size: int = Field(default=20_000, ge=16, le=1_000_000)
    """Observations waiting for the writer; past this, new ones are dropped and counted."""
    batch_seconds: float = Field(default=1.0, gt=0, le=60)
    """The writer commits at least this often while observations arrive."""

    @field_validator("full_resolution", mode="before")
    @classmethod
    def _full(cls, value: Any) -> float:
        return parse_duration(value)

    @field_validator("max_size", mode="before")
    @classmethod
    def _size(cls, value: Any) -> int:
        return parse_size(value)

    @model_validator(mode="after")
    def _tiers_coarser_and_longer(self) -> HistorySettings:
        steps = [tier.step for tier in self.tiers]
        if len(set(steps)) != len(steps):
            raise ValueError("two history tiers have the same step")
        for tier in self.tiers:
            if tier.keep < tier.step:
                raise ValueError(f"the {tier.step} s tier is kept for less than one of its buckets")
        return self

    def database_path(self, environ: dict[str, str] | None = None) -> Path:
        """`$OMECONSOLE_HISTORY_DB`, else `path`, else history.sqlite3 in the user data directory."""
        override = (os.environ if environ is None else environ).get(HISTORY_DB_ENV)
        if override:
            return Path(override).expanduser()
        if self.path is not None:
            return self.path.expanduser()
        return platformdirs.user_data_path("omeconsole") / DB_NAME

    @property
    def sorted_tiers(self) -> tuple[Tier, ...]:
        """Finest first."""
        return tuple(sorted(self.tiers, key=lambda tier: tier.step))

    def describe(self) -> str:
        """The retention in words: `full resolution for 1 h, 10 s for 1 d, 1 min for 30 d; at most 2 GiB`."""
        parts = [f"full resolution for {span(self.full_resolution)}"]
        parts += [f"{span(tier.step)} for {span(tier.keep)}" for tier in self.sorted_tiers]
        return ", ".join(parts) + f"; at most {self.max_size / 1024**2:,.0f} MiB"


def span(seconds: float) -> str:
    """A length of time in the largest unit that divides it evenly: `10 s`, `1 min`, `2 h`, `30 d`."""
    for unit, size in (("d", 86_400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"

"""The fault SPEC: one short string (or a scenario's `[faults]` table) saying what goes wrong and when.

    latency=200ms,5xx=0.1,reset=0.05,stall=0.02:30s,html=0.05,truncate=0.05,types=0.05,
    restart=every:120s,vanish=every:60s:for:20s,
    ingest-stall=30s..90s,bitrate-drop=20%@every:5m:for:1m,streams=default/app/*|*/live/concert,
    picture-freeze=20s..40s,picture-black=at:60s:for:10s

Parsing is pure and strict: a typo must fail loudly at start, not silently inject nothing.
The README's "Fault injection" section is the user-facing description of this grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

HTTP_SHARE_KINDS = ("reset", "stall", "5xx", "html", "truncate", "types")
"""Per-request faults drawn with one random number, in this order (their shares must add up to at most 1)."""

KNOWN_KEYS = ("latency", *HTTP_SHARE_KINDS, "restart", "vanish", "ingest-stall", "bitrate-drop", "picture-freeze",
              "picture-black", "streams", "during", "paths")
STREAM_FAULTS = ("ingest-stall", "bitrate-drop", "picture-freeze", "picture-black")
"""The faults whose streams `streams=` chooses."""
DEFAULT_STALL_MS = 30_000

# ASCII digits only: `\d` and float() would also take other scripts' digits (Arabic-Indic `latency=\u0661\u0660ms`).
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)$", re.ASCII)
_SHARE = re.compile(r"^(-?(?:\d+(?:\.\d*)?|\.\d+))(%?)$", re.ASCII)
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


class FaultSpecError(ValueError):
    """A SPEC that cannot be used; the message names the item and shows a correct form."""


@dataclass(frozen=True)
class Schedule:
    """When a world fault happens, in milliseconds of world time since the world started."""

    kind: Literal["every", "at"]
    time_ms: int
    """The period (`every`) or the single moment (`at`)."""


@dataclass(frozen=True)
class VanishSpec:
    schedule: Schedule
    away_ms: int
    share: float = 1.0
    """Share of the live streams that vanish each time (at least one while any is live)."""


@dataclass(frozen=True)
class Window:
    """When a stream fault is on, in milliseconds of world time since the world started: from `start_ms` to
    `end_ms` (None: for good), or, with `period_ms`, for `end_ms - start_ms` every `period_ms`."""

    start_ms: int
    end_ms: int | None
    period_ms: int | None = None

    def active(self, elapsed_ms: int) -> bool:
        if elapsed_ms < self.start_ms:
            return False
        if self.end_ms is None:
            return True
        if self.period_ms is None:
            return elapsed_ms < self.end_ms
        return (elapsed_ms - self.start_ms) % self.period_ms < self.end_ms - self.start_ms


@dataclass(frozen=True)
class BitrateDrop:
    fraction: float
    """The input bit rate becomes this share of the stream's own (0.2: a drop to 20 %)."""
    window: Window


@dataclass(frozen=True)
class FaultSpec:
    latency_ms: tuple[int, int] = (0, 0)
    """Added to every request: a fixed delay, or a uniform range."""
    shares: dict[str, float] = field(default_factory=dict)
    """Share of requests hit by each per-request fault (keys from HTTP_SHARE_KINDS)."""
    stall_ms: int = DEFAULT_STALL_MS
    restart: Schedule | None = None
    vanish: VanishSpec | None = None
    ingest_stall: Window | None = None
    """Input bytes stop (the stream stays listed, its input connection stays), as a stalled encoder looks."""
    bitrate_drop: BitrateDrop | None = None
    picture_freeze: Window | None = None
    """The thumbnail stops changing: the picture of the window's start is served throughout."""
    picture_black: Window | None = None
    """The thumbnail is black (a camera capped, a black input)."""
    streams: tuple[str, ...] = ()
    """Patterns (`vhost/app/stream`, `*` and `?` allowed) of the streams the STREAM_FAULTS hit;
    empty = every stream."""
    during_ms: tuple[int, int | None] = (0, None)
    """World-time window (since start) in which the HTTP faults are active; None = open-ended."""
    paths: tuple[str, ...] = ()
    """Path prefixes the HTTP faults apply to; empty = every path."""

    @property
    def has_http_faults(self) -> bool:
        return self.latency_ms != (0, 0) or any(v > 0 for v in self.shares.values())

    @property
    def has_world_faults(self) -> bool:
        return (self.restart is not None or self.vanish is not None or self.ingest_stall is not None
                or self.bitrate_drop is not None or self.picture_freeze is not None or self.picture_black is not None)

    @property
    def empty(self) -> bool:
        return not self.has_http_faults and not self.has_world_faults


def parse_fault_spec(text: str) -> FaultSpec:
    """`key=value,key=value`; an empty string is no faults."""
    return fault_spec_from_items(_items(text))


def fault_spec_from_table(table: dict[str, Any], overrides: str = "") -> FaultSpec:
    """A scenario's `[faults]` table (values as in the SPEC, numbers allowed), then a SPEC string over it."""
    items: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise FaultSpecError(f"[faults] {key}: use a string or a number, e.g. {key} = \"...\"")
        items[key.lower()] = str(value)
    items.update(_items(overrides))
    return fault_spec_from_items(items)


def _items(text: str) -> dict[str, str]:
    items: dict[str, str] = {}
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise FaultSpecError(f"faults: {item!r} needs a value, e.g. 5xx=0.1 or latency=200ms")
        if key in items:
            raise FaultSpecError(f"faults: {key} is given twice")
        items[key] = value
    return items


def fault_spec_from_items(items: dict[str, str]) -> FaultSpec:
    unknown = [k for k in items if k not in KNOWN_KEYS]
    if unknown:
        raise FaultSpecError(f"faults: unknown fault {unknown[0]!r} (known: {', '.join(KNOWN_KEYS)})")
    shares: dict[str, float] = {}
    stall_ms = DEFAULT_STALL_MS
    for kind in HTTP_SHARE_KINDS:
        if kind not in items:
            continue
        value = items[kind]
        if kind == "stall":
            share_text, _, duration_text = value.partition(":")
            if duration_text:
                stall_ms = parse_duration(duration_text, "stall")
            shares[kind] = parse_share(share_text, kind)
        else:
            shares[kind] = parse_share(value, kind)
    if "streams" in items and not set(STREAM_FAULTS) & items.keys():
        raise FaultSpecError("faults: streams: only chooses the streams of ingest-stall and bitrate-drop, "
                             "picture-freeze and picture-black; give one")
    total = sum(shares.values())
    if total > 1 + 1e-9:
        raise FaultSpecError(
            f"faults: the shares of {', '.join(k for k in HTTP_SHARE_KINDS if k in shares)} add up to "
            f"{total:g}, more than 1"
        )
    return FaultSpec(
        latency_ms=_range(items["latency"], "latency") if "latency" in items else (0, 0),
        shares=shares,
        stall_ms=stall_ms,
        restart=_schedule(items["restart"], "restart") if "restart" in items else None,
        vanish=_vanish(items["vanish"]) if "vanish" in items else None,
        ingest_stall=_when(items["ingest-stall"], "ingest-stall") if "ingest-stall" in items else None,
        bitrate_drop=_bitrate_drop(items["bitrate-drop"]) if "bitrate-drop" in items else None,
        picture_freeze=_when(items["picture-freeze"], "picture-freeze") if "picture-freeze" in items else None,
        picture_black=_when(items["picture-black"], "picture-black") if "picture-black" in items else None,
        streams=_streams(items["streams"]) if "streams" in items else (),
        during_ms=_window(items["during"]) if "during" in items else (0, None),
        paths=_paths(items["paths"]) if "paths" in items else (),
    )


def parse_duration(text: str, key: str) -> int:
    """Milliseconds from `200ms`, `1.5s`, `2m`, `1h`."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise FaultSpecError(f"faults: {key}: {text!r} is not a duration (use e.g. 200ms, 1.5s, 2m)")
    return round(float(match.group(1)) * _UNIT_MS[match.group(2)])


def parse_share(text: str, key: str) -> float:
    """A share of requests: `0.1` or `10%`."""
    text = text.strip()
    match = _SHARE.fullmatch(text)
    if not match:
        raise FaultSpecError(f"faults: {key}: {text!r} is not a share (use e.g. 0.1 or 10%)")
    share = float(match.group(1)) / (100 if match.group(2) else 1)
    if not 0 <= share <= 1:
        raise FaultSpecError(f"faults: {key}: {text!r} must be between 0 and 1 (or 0% and 100%)")
    return share


def _range(text: str, key: str) -> tuple[int, int]:
    low, sep, high = text.partition("..")
    low_ms = parse_duration(low, key)
    high_ms = parse_duration(high, key) if sep else low_ms
    if high_ms < low_ms:
        raise FaultSpecError(f"faults: {key}: {text!r} goes backwards (use e.g. 100ms..300ms)")
    return low_ms, high_ms


def _schedule(text: str, key: str) -> Schedule:
    kind, _, when = text.partition(":")
    if kind not in ("every", "at") or not when:
        raise FaultSpecError(f"faults: {key}: {text!r} must be every:DURATION or at:DURATION (e.g. every:120s)")
    time_ms = parse_duration(when, key)
    if kind == "every" and time_ms < 1000:
        raise FaultSpecError(f"faults: {key}: a period under 1s would never let the world settle")
    return Schedule("every" if kind == "every" else "at", time_ms)


def _vanish(text: str) -> VanishSpec:
    parts = text.split(":")
    usage = "vanish: use every:DURATION:for:DURATION[:share:SHARE], e.g. every:60s:for:20s"
    if len(parts) not in (4, 6) or parts[2] != "for" or (len(parts) == 6 and parts[4] != "share"):
        raise FaultSpecError(f"faults: {usage}, not {text!r}")
    schedule = _schedule(":".join(parts[:2]), "vanish")
    away_ms = parse_duration(parts[3], "vanish")
    if schedule.kind == "every" and away_ms >= schedule.time_ms:
        raise FaultSpecError(f"faults: vanish: streams must be back ({parts[3]}) before the next time ({parts[1]})")
    share = parse_share(parts[5], "vanish share") if len(parts) == 6 else 1.0
    return VanishSpec(schedule, away_ms, share)


def _when(text: str, key: str) -> Window:
    """`START..END`, `START..`, `every:PERIOD:for:DURATION` or `at:TIME:for:DURATION`."""
    if ".." in text:
        start_ms, end_ms = _window(text, key)
        return Window(start_ms, end_ms)
    parts = text.split(":")
    if len(parts) != 4 or parts[2] != "for":
        raise FaultSpecError(f"faults: {key}: {text!r} must be START..END, START.., every:DURATION:for:DURATION "
                             f"or at:DURATION:for:DURATION (e.g. 30s..90s)")
    schedule = _schedule(":".join(parts[:2]), key)
    duration_ms = parse_duration(parts[3], key)
    if duration_ms <= 0:
        raise FaultSpecError(f"faults: {key}: it must last longer than 0 ({text!r})")
    if schedule.kind == "at":
        return Window(schedule.time_ms, schedule.time_ms + duration_ms)
    if duration_ms >= schedule.time_ms:
        raise FaultSpecError(f"faults: {key}: it must end ({parts[3]}) before it starts again ({parts[1]})")
    return Window(schedule.time_ms, schedule.time_ms + duration_ms, schedule.time_ms)


def _bitrate_drop(text: str) -> BitrateDrop:
    share, sep, when = text.partition("@")
    if not sep:
        raise FaultSpecError(f"faults: bitrate-drop: {text!r} must be SHARE@WHEN (e.g. 20%@30s..90s: the input "
                             f"at 20 % of its bit rate from 30 s to 90 s)")
    fraction = parse_share(share, "bitrate-drop")
    if fraction >= 1:
        raise FaultSpecError(f"faults: bitrate-drop: {share!r} is no drop (use a share under 100%)")
    return BitrateDrop(fraction, _when(when, "bitrate-drop"))


def _streams(text: str) -> tuple[str, ...]:
    patterns = tuple(p.strip() for p in text.split("|") if p.strip())
    if not patterns or any(p.count("/") != 2 for p in patterns):
        raise FaultSpecError(f"faults: streams: {text!r} must be vhost/app/stream patterns joined by | "
                             f"(* and ? allowed, e.g. default/app/*|*/live/concert)")
    return patterns


def _window(text: str, key: str = "during") -> tuple[int, int | None]:
    start, sep, end = text.partition("..")
    if not sep:
        raise FaultSpecError(f"faults: {key}: {text!r} must be START..END or START.. (e.g. 30s..90s)")
    start_ms = parse_duration(start, key) if start.strip() else 0
    end_ms = parse_duration(end, key) if end.strip() else None
    if end_ms is not None and end_ms <= start_ms:
        raise FaultSpecError(f"faults: {key}: {text!r} ends before it starts")
    return start_ms, end_ms


def _paths(text: str) -> tuple[str, ...]:
    prefixes = tuple(p.strip() for p in text.split("|") if p.strip())
    bad = [p for p in prefixes if not p.startswith("/")]
    if not prefixes or bad:
        raise FaultSpecError(f"faults: paths: {text!r} must be path prefixes joined by | (e.g. /v2/stats|/v1/vhosts)")
    return prefixes

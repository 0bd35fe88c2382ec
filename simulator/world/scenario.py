"""Scenarios: what the world holds at start and how its traffic behaves, read from TOML.

The built-in scenarios (demo, scale, empty) are TOML files shipped in simulator/scenarios/;
a user's file has the same form (see simulator/scenarios/example.toml and the README).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from simulator.world.wire import PROVIDER_PROTOCOLS

BUILTIN_SCENARIOS = ("demo", "scale", "empty")
PUBLISHERS = ("file", "hls", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc")
"""The publishers an application may run (its `<Publishers>`), by the keys its document gives them."""
DEFAULT_PUBLISHERS = ("hls", "llhls")
"""The captured server's application: LL-HLS and HLS (MPEG-TS) only."""
IMAGE_FORMATS = ("jpg", "png", "webp")
"""The image encodes a thumbnail publisher serves (`thumb.jpg` / `thumb.png` / `thumb.webp`)."""

MAX_VHOSTS = 100
MAX_APPS = 10_000
"""Applications in all virtual hosts together."""
MAX_STREAMS = 100_000
"""Streams at start in all applications together (about 200 MB and 1 s to build; a tick takes ~0.1 s)."""
MAX_NAME_CHARS = 255


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message says which key is wrong."""


@dataclass(frozen=True)
class StreamSpec:
    name: str
    input: str = "rtmp"
    bitrate_kbps: int = 3000
    audience: float = 20.0
    """Typical number of viewers; 0 keeps the stream unwatched (all publisher counters 0)."""
    permanent: bool = False
    """Never ended by churn."""


@dataclass(frozen=True)
class AppSpec:
    name: str
    streams: tuple[StreamSpec, ...] = ()
    thumbnails: tuple[str, ...] = ()
    """The image encodes of the application's output profile (`jpg`, `png`, `webp`): its streams serve
    `thumb.<format>` for each; none (the server's default configuration) means no thumbnail at all."""
    publishers: tuple[str, ...] = DEFAULT_PUBLISHERS
    """The publishers it runs (sorted, each once): by default LL-HLS and HLS, and the thumbnail publisher
    when it has image encodes. Thumbnails are served only with both, as by the real server."""


@dataclass(frozen=True)
class VhostSpec:
    name: str
    apps: tuple[AppSpec, ...] = ()


@dataclass(frozen=True)
class MediaSettings:
    part_target: float = 0.5
    segment_duration: float = 6.0
    keyframe_interval: float = 1.0
    segment_count: int = 10


@dataclass(frozen=True)
class TrafficSettings:
    tick_seconds: float = 1.0
    churn_per_hour: float = 0.0
    """Streams ended (and new ones started) per simulated hour."""
    churn_apps: tuple[str, ...] = ()
    """Apps whose streams churn; empty means every app."""


@dataclass(frozen=True)
class Scenario:
    name: str
    vhosts: tuple[VhostSpec, ...]
    media: MediaSettings = field(default_factory=MediaSettings)
    traffic: TrafficSettings = field(default_factory=TrafficSettings)
    faults: dict[str, Any] = field(default_factory=dict)

    @property
    def stream_count(self) -> int:
        return sum(len(app.streams) for vhost in self.vhosts for app in vhost.apps)


def load_scenario(name_or_path: str) -> Scenario:
    """A built-in scenario by name, or a TOML file by path."""
    if name_or_path in BUILTIN_SCENARIOS:
        text = resources.files("simulator.scenarios").joinpath(f"{name_or_path}.toml").read_text("utf-8")
        return parse_scenario(text, name_or_path)
    path = Path(name_or_path)
    if not path.is_file():
        raise ScenarioError(
            f"no scenario named {name_or_path!r}: use one of {', '.join(BUILTIN_SCENARIOS)} or a TOML file path"
        )
    return parse_scenario(path.read_text("utf-8"), path.stem)


def parse_scenario(text: str, name: str) -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"scenario {name}: {error}") from None
    try:
        vhosts = [_vhost(v, f"vhosts[{i}]") for i, v in enumerate(_list(data, "vhosts", "scenario"))]
        if "generate" in data:
            vhosts.extend(_generated(_table(data, "generate"), _counts(vhosts)))
        _check_counts(_counts(vhosts), "")
        _check_unique([v.name for v in vhosts], "vhosts", "virtual host")
    except ScenarioError as error:
        raise ScenarioError(f"scenario {name}: {error}") from None
    media = _table(data, "media")
    traffic = _table(data, "traffic")
    return Scenario(
        name=name,
        vhosts=tuple(vhosts),
        media=MediaSettings(
            part_target=_number(media, "part_target", 0.5, 0.1, 2.0),
            segment_duration=_number(media, "segment_duration", 6.0, 1.0, 30.0),
            keyframe_interval=_number(media, "keyframe_interval", 1.0, 1.0, 1.0),
            segment_count=int(_number(media, "segment_count", 10, 3, 100)),
        ),
        traffic=TrafficSettings(
            tick_seconds=_number(traffic, "tick_seconds", 1.0, 0.1, 10.0),
            churn_per_hour=_number(traffic, "churn_per_hour", 0.0, 0.0, 3600.0),
            churn_apps=tuple(str(a) for a in traffic.get("churn_apps", [])),
        ),
        faults=_table(data, "faults"),
    )


def _counts(vhosts: list[VhostSpec]) -> tuple[int, int, int]:
    return (len(vhosts), sum(len(v.apps) for v in vhosts),
            sum(len(a.streams) for v in vhosts for a in v.apps))


def _check_counts(counts: tuple[int, int, int], made_by: str) -> None:
    """Refuse a world too big to build before anything of it is made."""
    for count, limit, what in zip(counts, (MAX_VHOSTS, MAX_APPS, MAX_STREAMS),
                                  ("virtual hosts", "applications", "streams"), strict=True):
        if count > limit:
            raise ScenarioError(f"{made_by}{count:,} {what} in all; at most {limit:,}")


def _generated(spec: dict[str, Any], listed: tuple[int, int, int]) -> list[VhostSpec]:
    vhost_count = int(_number(spec, "vhosts", 1, 1, MAX_VHOSTS))
    app_count = int(_number(spec, "apps_per_vhost", 1, 1, MAX_APPS))
    stream_count = int(_number(spec, "streams_per_app", 1, 1, MAX_STREAMS))
    made = (vhost_count, vhost_count * app_count, vhost_count * app_count * stream_count)
    _check_counts((listed[0] + made[0], listed[1] + made[1], listed[2] + made[2]),
                  f"[generate] {vhost_count} x {app_count} x {stream_count} makes ")
    inputs = ("rtmp", "srt", "webrtc", "mpegts", "ovt")
    vhosts = []
    for v in range(vhost_count):
        apps = []
        for a in range(app_count):
            streams = tuple(
                StreamSpec(
                    name=f"s{s:04d}",
                    input=inputs[(v + a + s) % len(inputs)],
                    bitrate_kbps=800 + ((v * 7919 + a * 104729 + s * 1299709) % 7200),
                    audience=float((s * 37 + a * 11) % 60),
                )
                for s in range(stream_count)
            )
            apps.append(AppSpec(name=f"app{a:03d}", streams=streams))
        vhosts.append(VhostSpec(name="default" if v == 0 else f"vhost{v:02d}", apps=tuple(apps)))
    return vhosts


def _name(data: Any, where: str, what: str, also_forbidden: str = "") -> str:
    """A name the real server could serve: a path segment of its URLs, so never empty and never holding `/`
    (nor, for an application, `:`, which starts an action in `/apps/{app}:action`), no control characters."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        raise ScenarioError(f"{where}: {what} needs a name (a non-empty string)")
    name: str = data["name"]
    bad = [c for c in name if c in "/" + also_forbidden or ord(c) < 0x20 or ord(c) == 0x7F]
    if bad:
        raise ScenarioError(f"{where}: {what} name {name!r} holds {bad[0]!r}, which cannot be in a URL path segment")
    if len(name) > MAX_NAME_CHARS:
        raise ScenarioError(f"{where}: {what} name is {len(name)} characters long; at most {MAX_NAME_CHARS}")
    return name


def _check_unique(names: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ScenarioError(f"{where}: two {what}s are named {name!r}; names must be unique")
        seen.add(name)


def _vhost(data: Any, where: str) -> VhostSpec:
    name = _name(data, where, "a virtual host")
    apps = tuple(_app(a, f"{where}.apps[{i}]") for i, a in enumerate(_list(data, "apps", where)))
    _check_unique([a.name for a in apps], f"{where}.apps", "application")
    return VhostSpec(name=name, apps=apps)


def _app(data: Any, where: str) -> AppSpec:
    name = _name(data, where, "an application", also_forbidden=":")
    streams = tuple(_stream(s, f"{where}.streams[{i}]") for i, s in enumerate(_list(data, "streams", where)))
    _check_unique([s.name for s in streams], f"{where}.streams", "stream")
    thumbnails = _thumbnails(data, where)
    return AppSpec(name=name, streams=streams, thumbnails=thumbnails, publishers=_publishers(data, where, thumbnails))


def _publishers(data: dict[str, Any], where: str, thumbnails: tuple[str, ...]) -> tuple[str, ...]:
    default = DEFAULT_PUBLISHERS + (("thumbnail",) if thumbnails else ())
    names = data.get("publishers", list(default))
    if not isinstance(names, list) or any(name not in PUBLISHERS for name in names):
        raise ScenarioError(f"{where}.publishers must be a list of {', '.join(PUBLISHERS)}, not {names!r}")
    return tuple(sorted(set(names)))


def _thumbnails(data: dict[str, Any], where: str) -> tuple[str, ...]:
    formats = data.get("thumbnails", [])
    if not isinstance(formats, list) or any(f not in IMAGE_FORMATS for f in formats):
        raise ScenarioError(f"{where}.thumbnails must be a list of {', '.join(IMAGE_FORMATS)}, not {formats!r}")
    return tuple(dict.fromkeys(formats))


def _stream(data: Any, where: str) -> StreamSpec:
    name = _name(data, where, "a stream")
    protocol = data.get("input", "rtmp")
    if protocol not in PROVIDER_PROTOCOLS:
        raise ScenarioError(f"{where}.input: {protocol!r} is not one of {', '.join(PROVIDER_PROTOCOLS)}")
    return StreamSpec(
        name=name,
        input=protocol,
        bitrate_kbps=int(_number(data, "bitrate_kbps", 3000, 16, 100_000)),
        audience=_number(data, "audience", 20.0, 0.0, 1_000_000.0),
        permanent=bool(data.get("permanent", False)),
    )


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ScenarioError(f"[{key}] must be a table")
    return value


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ScenarioError(f"{where}.{key} must be an array of tables")
    return value


def _number(data: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScenarioError(f"{key} must be a number")
    if not low <= value <= high:
        raise ScenarioError(f"{key} must be between {low:g} and {high:g}, not {value}")
    return float(value)

"""A node across a fleet's servers, and the fleet's totals: pure functions of what each server said.

For a stream on several servers: who ingests it (the origin: a server whose input is not OVT), who
relays it (an edge: its only input is OVT, pulled from another server), its viewers on each server and
per protocol, each server's outbound rate, and the sums.

- **Viewers** are playback sessions (`model.audience`: llhls + hlsv3 + webrtc + srt). An OVT publisher
  connection is an edge pulling the stream (a relay, counted in `relays`), a push, a recording or a
  thumbnail reader is not a person watching either (`others`). So the fleet's viewers of a stream are
  the sum of every server's own playback counts.
- **Rates**: the API has bytes per node, not per protocol, so rates are per server. The fleet's
  outbound rate is every server's, relays included (what the servers send); `ingest_bps` is what the
  origins receive, the one figure that is not counted again on each edge.
- A sum is over the servers that have the node; it is None when one of them lacks the figure (a
  first reading has no rate yet), never a partial total shown as whole. Servers that could not be read
  are listed in `failed`, and the view is then not `complete`.

At a virtual host or application a server with any input other than OVT counts as an origin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from omeconsole.model import audience
from omeconsole.model.audience import RELAY
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, StreamInfo

Role = Literal["origin", "edge"]
Presence = Literal["present", "absent", "pending", "failed"]
"""present: it has the node and a reading; absent: it does not have the node; pending: it lists the node but
has not been read yet; failed: it could not be read (see `error`)."""
Number = TypeVar("Number", int, float)


@dataclass(frozen=True, slots=True)
class ServerReading:
    """What one server said of a node: the input of the views."""

    profile: str
    stats: NodeStats | None = None
    """None: no reading, because the server does not have the node, could not be read (`error`), or has
    not been read yet (`pending`)."""
    rate_in_bps: float | None = None
    rate_out_bps: float | None = None
    """The console's rates from byte totals; None until two readings make one."""
    info: StreamInfo | None = None
    """A stream's input description: tells its input where the statistics do not (open source v1)."""
    error: str | None = None
    """Why this server could not be read (server words: show them through `visible`)."""
    age_s: float | None = None
    """Seconds since the reading was taken."""
    pending: bool = False
    """The server lists the node but has not been read about it yet."""


@dataclass(frozen=True, slots=True)
class ServerPart:
    """One server's share of a node."""

    profile: str
    presence: Presence
    role: Role | None = None
    """origin, edge, or None when its input is not known."""
    inputs: tuple[str, ...] = ()
    """Inbound protocols with a connection (or the stream's source type)."""
    viewers: int | None = None
    """Playback sessions (`audience.viewers`)."""
    relays: int | None = None
    """Outbound OVT connections: edges pulling from this server."""
    by_protocol: Mapping[str, int] = field(default_factory=dict)
    """Outbound connections per protocol (every one, viewers or not)."""
    rate_in_bps: float | None = None
    rate_out_bps: float | None = None
    server_in_bps: float | None = None
    server_out_bps: float | None = None
    """The server's own average throughput figures (bits per second)."""
    bytes_in: int | None = None
    bytes_out: int | None = None
    error: str | None = None
    age_s: float | None = None

    @property
    def others(self) -> tuple[tuple[str, int], ...]:
        """The connections that are not viewers, named: `(("relays", 16), ("recordings", 1))`."""
        return audience.others(self.by_protocol)


@dataclass(frozen=True, slots=True)
class FleetView:
    """A node (or, with `path` None, the whole fleet) on every server and summed."""

    path: NodePath | None
    servers: tuple[ServerPart, ...]
    viewers: int | None
    relays: int | None
    by_protocol: Mapping[str, int]
    rate_out_bps: float | None
    server_out_bps: float | None
    ingest_bps: float | None
    """What the origins receive (console rates), None when no origin is known or one lacks a rate."""
    server_ingest_bps: float | None
    bytes_out: int | None

    @property
    def others(self) -> tuple[tuple[str, int], ...]:
        """The fleet's connections that are not viewers, named (relays, pushes, recordings, thumbnails)."""
        return audience.others(self.by_protocol)

    @property
    def present(self) -> tuple[str, ...]:
        return tuple(p.profile for p in self.servers if p.presence == "present")

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(p.profile for p in self.servers if p.presence == "failed")

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(p.profile for p in self.servers if p.presence == "present" and p.role == "origin")

    @property
    def edges(self) -> tuple[str, ...]:
        return tuple(p.profile for p in self.servers if p.presence == "present" and p.role == "edge")

    @property
    def not_read(self) -> tuple[str, ...]:
        """Servers the sums leave out: they could not be read, or have not been yet."""
        return tuple(p.profile for p in self.servers if p.presence in ("failed", "pending"))

    @property
    def complete(self) -> bool:
        """Every server answered: the sums cover the whole fleet."""
        return not self.not_read


def _inputs(stats: NodeStats, info: StreamInfo | None) -> tuple[str, ...]:
    if stats.connections_in is not None:
        return tuple(sorted(name for name, count in stats.connections_in.items() if count))
    if info is not None and info.source_type:
        return (info.source_type.lower(),)
    return ()


def _role(inputs: Iterable[str]) -> Role | None:
    protocols = set(inputs)
    if not protocols:
        return None
    return "edge" if protocols == {RELAY} else "origin"


def server_part(reading: ServerReading) -> ServerPart:
    """One server's share of a node from its reading."""
    stats = reading.stats
    if stats is None:
        presence: Presence = "failed" if reading.error is not None else "pending" if reading.pending else "absent"
        return ServerPart(reading.profile, presence, error=reading.error, age_s=reading.age_s)
    inputs = _inputs(stats, reading.info)
    out = dict(stats.connections_out) if stats.connections_out is not None else None
    if out is not None:
        relays: int | None = out.get(RELAY, 0)
        viewers: int | None = audience.viewers(out)
    else:
        relays, viewers = None, None
    return ServerPart(reading.profile, "present", _role(inputs), inputs, viewers, relays, out or {},
                      reading.rate_in_bps, reading.rate_out_bps, _float(stats.avg_throughput_in_bps),
                      _float(stats.avg_throughput_out_bps), stats.total_bytes_in, stats.total_bytes_out,
                      reading.error, reading.age_s)


def _float(value: int | None) -> float | None:
    return None if value is None else float(value)


def _total(values: Sequence[Number | None]) -> Number | None:
    """The sum, or None when one is missing (or there is nothing to add)."""
    known = [value for value in values if value is not None]
    if not values or len(known) < len(values):
        return None
    return sum(known)


def _protocols(parts: Iterable[ServerPart]) -> dict[str, int]:
    summed: dict[str, int] = {}
    for part in parts:
        for name, count in part.by_protocol.items():
            summed[name] = summed.get(name, 0) + count
    return dict(sorted(summed.items()))


def _summed(path: NodePath | None, parts: Sequence[ServerPart]) -> FleetView:
    present = [p for p in parts if p.presence == "present"]
    origins = [p for p in present if p.role == "origin"]
    return FleetView(
        path=path, servers=tuple(parts),
        viewers=_total([p.viewers for p in present]), relays=_total([p.relays for p in present]),
        by_protocol=_protocols(present),
        rate_out_bps=_total([p.rate_out_bps for p in present]),
        server_out_bps=_total([p.server_out_bps for p in present]),
        ingest_bps=_total([p.rate_in_bps for p in origins]),
        server_ingest_bps=_total([p.server_in_bps for p in origins]),
        bytes_out=_total([p.bytes_out for p in present]))


def fleet_view(path: NodePath, readings: Sequence[ServerReading]) -> FleetView:
    """`path` on each server (in the order given) and summed."""
    return _summed(path, [server_part(reading) for reading in readings])


def _whole_server(profile: str, parts: Sequence[ServerPart]) -> ServerPart:
    """One server's virtual hosts added up (a server has no statistics of its own above them)."""
    failed = [p for p in parts if p.presence == "failed"]
    present = [p for p in parts if p.presence == "present"]
    if failed:
        return ServerPart(profile, "failed", error=failed[0].error)
    if any(p.presence == "pending" for p in parts):
        return ServerPart(profile, "pending")
    if not present:
        return ServerPart(profile, "absent")
    inputs = tuple(sorted({name for p in present for name in p.inputs}))
    ages = [p.age_s for p in present if p.age_s is not None]
    return ServerPart(profile, "present", _role(inputs), inputs, _total([p.viewers for p in present]),
                      _total([p.relays for p in present]), _protocols(present),
                      _total([p.rate_in_bps for p in present]), _total([p.rate_out_bps for p in present]),
                      _total([p.server_in_bps for p in present]), _total([p.server_out_bps for p in present]),
                      _total([p.bytes_in for p in present]), _total([p.bytes_out for p in present]),
                      age_s=max(ages) if ages else None)


def fleet_totals(vhosts: Mapping[str, Sequence[ServerReading]]) -> FleetView:
    """The whole fleet: each server's virtual hosts added up (`vhosts`: profile -> its vhosts' readings,
    a server's failure as one reading with `error`), then the servers summed."""
    return _summed(None, [_whole_server(profile, [server_part(r) for r in readings])
                          for profile, readings in vhosts.items()])

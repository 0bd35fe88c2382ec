"""A fleet in one process: an origin world that ingests, and edge worlds that pull its streams over OVT.

The real server scales out as an origin and edges: an edge pulls each stream from the origin over OVT and
serves the viewers. Here an edge's world follows its origin's:

- it lists the origin's streams under the same virtual host and application names, each with an `ovt` input
  (providers `ovt` = 1 per stream), started when the origin's stream starts and ended when it ends (churn,
  `vanish`, a `restart`, or `end_stream`);
- the origin counts one `ovt` publisher connection per edge pulling a stream, and sends each edge every byte
  the stream ingests: an edge's bytes in for a stream are exactly the origin's bytes out to it, tick by tick;
- the viewers are the edges' (each edge gets a share of the stream's audience, nobody on the edges watches
  over OVT); the origin serves few or none itself (`viewer_share`);
- every level of each server keeps the real server's semantics (parents are running counters, throughput is
  recomputed on ingress only, connections are current counts), since each server is a World of its own.

The origin's ticks drive its edges': an edge's `advance` catches the origin up, streams are pulled or dropped
before each origin tick draws its traffic (and whenever an edge is read), and each origin tick runs the
matching edge tick with what the origin relayed in it. Accepted events are shared along a stream's
relay (an edge's stream shares its origin stream's event log, as OVT carries the data track), so markers
sent to the origin appear in the edges' playlists too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from simulator.world.edition import ServerProfile
from simulator.world.scenario import AppSpec, Scenario, StreamSpec, TrafficSettings, VhostSpec
from simulator.world.topology import Stream
from simulator.world.world import World


def edge_scenario(origin: Scenario, index: int) -> Scenario:
    """The origin's virtual hosts and applications with no streams of their own (they come from the origin)."""
    return Scenario(
        name=f"{origin.name}-edge{index}",
        vhosts=tuple(VhostSpec(v.name, tuple(AppSpec(a.name) for a in v.apps)) for v in origin.vhosts),
        media=origin.media,
        traffic=TrafficSettings(tick_seconds=origin.traffic.tick_seconds),
    )


class EdgeLink:
    """One edge pulling every live stream of its origin; `audience_share` of each stream's viewers watch here."""

    def __init__(self, origin: World, edge: World, audience_share: float) -> None:
        if edge.tick_ms != origin.tick_ms or edge.start_ms != origin.start_ms:
            raise ValueError("an edge ticks on its origin's grid: same tick and start time")
        self.origin = origin
        self.edge = edge
        self.audience_share = audience_share
        self._pulls: dict[int, tuple[Stream, Stream]] = {}
        """Origin row -> (the origin's stream, the edge's stream pulling it)."""
        self._origin_rows = np.zeros(0, dtype=np.int64)
        self._edge_rows = np.zeros(0, dtype=np.int64)
        self._seen_revision = -1
        edge.event_sequence = origin.event_sequence
        edge.follows = self.catch_up
        origin.before_traffic.append(self.before_origin_traffic)
        origin.after_tick.append(self.on_origin_tick)
        self.reconcile(origin.clock.now_ms())

    def catch_up(self) -> None:
        """The edge's `advance`: the origin's ticks (which run the edge's), then any stream started or ended."""
        self.origin.advance()
        if self.origin.topology_revision != self._seen_revision:
            self.reconcile(self.origin.clock.now_ms())

    def before_origin_traffic(self, now_ms: int) -> None:
        """Before the origin's tick draws its bytes: pull what it started (churn included) and drop what ended,
        so that every byte it ingests from now on goes to this edge too."""
        if self.origin.topology_revision != self._seen_revision:
            self.reconcile(now_ms)

    def on_origin_tick(self, now_ms: int) -> None:
        """The edge's tick: each pulled stream receives what the origin ingested (and sent it) in this tick."""
        relayed: npt.NDArray[np.int64] = np.zeros(len(self.edge.streams_by_row), dtype=np.int64)
        relayed[self._edge_rows] = self.origin.last_delta_in[self._origin_rows]
        self.edge.relay_tick(now_ms, relayed)

    def reconcile(self, now_ms: int) -> None:
        """Pull every live origin stream not pulled yet; drop the pulls of streams that ended (or started anew)."""
        origin, edge = self.origin, self.edge
        live = {stream.row: stream for stream in origin.live_streams()}
        pulls = origin.traffic.relay_pulls
        for row, (source, mirror) in list(self._pulls.items()):
            if live.get(row) is not source:
                edge.end_stream(mirror, now_ms, publish=False)
                del self._pulls[row]
                if origin.traffic.alive[row]:  # a stream that ended has no pulls left to count
                    pulls[row] -= 1
        for row, source in live.items():
            if row in self._pulls:
                continue
            spec = StreamSpec(source.name, "ovt", source.bitrate_kbps, source.audience * self.audience_share,
                              permanent=True)
            mirror = edge.start_stream(source.vhost, source.app, spec, now_ms, publish=False)
            mirror.events = source.events
            self._pulls[row] = (source, mirror)
            pulls[row] += 1
        self._origin_rows = np.fromiter(self._pulls, dtype=np.int64, count=len(self._pulls))
        self._edge_rows = np.fromiter((m.row for _, m in self._pulls.values()), dtype=np.int64,
                                      count=len(self._pulls))
        self._seen_revision = origin.topology_revision
        edge.refresh_connections(now_ms)
        origin.refresh_connections(now_ms)


def fleet_worlds(origin: World, edges: int, seed: int, viewers_on_origin: float = 0.0,
                 profiles: Sequence[ServerProfile] | None = None) -> list[World]:
    """`edges` edge worlds linked to `origin` (built with `viewer_share=viewers_on_origin`), each with its
    own seed and an equal share of every stream's audience; `profiles` (one per edge) default to the origin's."""
    worlds = []
    for index in range(1, edges + 1):
        profile = profiles[index - 1] if profiles is not None else origin.profile
        edge = World(edge_scenario(origin.scenario, index), origin.clock, seed + index, start_ms=origin.start_ms,
                     ovt_viewers=False, profile=profile)
        EdgeLink(origin, edge, (1.0 - viewers_on_origin) / edges)
        worlds.append(edge)
    return worlds

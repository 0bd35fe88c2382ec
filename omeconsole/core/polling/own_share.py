"""A reading less the console's own publisher reads: the audience's connections, bytes out and peak.

The server counts the console's playlist reads as it counts a player's (api/own_reads.py): an `llhls`
connection while each is open, its bytes (header block included) in `totalBytesOut`, a peak in
`maxTotalConnections`. The ledger says, for each reading, the most of those that can be in it
(`OwnShare`); here they are taken off, per node, so that every figure made from the reading — viewers,
totals, rates, history, the exporter — is the audience's:

- **connections**: the console's reads open while the reading was taken, off `llhls` (the console reads
  LL-HLS) and `totalConnections`. A read open through the whole request was counted; one that opened or
  closed while the request was on its way may or may not have been: such a read is taken to be counted as
  far as the count moved since the previous reading (the audience stays what it was), so neither a
  read the server missed hides a viewer nor one it counted shows as one;
- **bytes out**: the console's bytes the server can have counted, but never more than the total grew
  since the node's previous reading less the audience's part of it, so the audience's total never goes
  back. Reads still in flight are bounded from above (their URL's last size), so the figure is a lower
  bound of the audience's that is exact whenever no read was in flight, and catches up at the next reading
  when one was. A server that counts none of the console's reads (a publisher URL that is a cache in front
  of it) loses the console's bytes from a watched stream's figures: see README;
- **peak**: a rise of the server's peak while the console had reads open is taken to be the console's as
  far as those reads go (the audience's peak is at least what remains, and at least the audience now).
  When no byte out of the node was the audience's, the server's own out figures (avg, max, last window)
  were all the console's and read 0.

What was taken is on the sample (`own_viewers`, `own_bytes_out`, `own_peak`), for the screens to say so.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from omeconsole.api.client import OmeClient
from omeconsole.api.own_reads import OwnShare
from omeconsole.core.clock import Clock
from omeconsole.core.polling.rates import RateWindow
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

READ_PROTOCOL = "llhls"
"""What the server counts the console's reads as: it reads LL-HLS playlists and parts."""


class OwnPart:
    """One node's account of the console's share of its readings (one per polled node)."""

    __slots__ = ("_audience_out", "_audience_reads", "_base", "_created", "_last_own", "_peak", "_peak_at",
                 "_seen_peak")

    def __init__(self) -> None:
        self._created: datetime | None = None
        self._audience_out: int | None = None
        """The audience's bytes out at the previous reading of this object (None: none yet)."""
        self._audience_reads: int | None = None
        """The audience's `llhls` connections at the previous reading (None: none yet)."""
        self._base = 0
        """The console's bytes of the node read before this object was created (its totals started over)."""
        self._last_own = 0
        self._seen_peak: int | None = None
        self._peak: int | None = None
        self._peak_at: datetime | None = None

    def taken_off(self, stats: NodeStats, own: OwnShare) -> tuple[NodeStats, int, int, int]:
        """The reading less the console's share, and what was taken: (stats, connections, bytes out, peak)."""
        if stats.created != self._created:
            self._created, self._audience_out, self._audience_reads, self._seen_peak, self._peak, self._peak_at = (
                stats.created, None, None, None, None, None)
            self._base = self._last_own
        self._last_own = own.bytes_out
        changes: dict[str, object] = {}
        connections = self._connections(stats, own, changes)
        bytes_out = self._bytes_out(stats, own.bytes_out - self._base, changes)
        peak = self._peak_of(stats, own.peak, changes)
        if not changes:
            return stats, 0, 0, 0
        return dataclasses.replace(stats, **changes), connections, bytes_out, peak  # type: ignore[arg-type]

    def _connections(self, stats: NodeStats, own: OwnShare, changes: dict[str, object]) -> int:
        out = stats.connections_out
        if out is None:
            return 0
        server = out.get(READ_PROTOCOL, 0)
        before = self._audience_reads
        if before is None:  # the first reading: as many as may have been counted
            counted = min(own.connections, server)
        else:  # the sure ones, and the uncertain ones as far as the count rose
            counted = min(max(own.surely, min(server - before, own.connections)), server)
        self._audience_reads = server - counted
        if counted <= 0:
            return 0
        changes["connections_out"] = {**out, READ_PROTOCOL: out[READ_PROTOCOL] - counted}
        if stats.total_connections is not None:
            changes["total_connections"] = max(0, stats.total_connections - counted)
        return counted

    def _bytes_out(self, stats: NodeStats, own: int, changes: dict[str, object]) -> int:
        total = stats.total_bytes_out
        if total is None or "total_bytes_out" in stats.invalid:
            return 0
        before = self._audience_out or 0
        counted = max(0, min(own, total - before))
        audience = total - counted
        self._audience_out = audience
        if counted:
            changes["total_bytes_out"] = audience
        if audience == 0 and own > 0:  # nobody but the console was ever sent a byte: its figures are ours
            for name in ("avg_throughput_out_bps", "max_throughput_out_bps", "last_throughput_out_bytes"):
                if getattr(stats, name):
                    changes[name] = 0
        return counted

    def _peak_of(self, stats: NodeStats, own: int, changes: dict[str, object]) -> int:
        server = stats.max_total_connections
        if server is None or "max_total_connections" in stats.invalid:
            return 0
        current = changes.get("total_connections", stats.total_connections)
        now = current if isinstance(current, int) else 0
        peak, at = self._peak, self._peak_at
        if self._seen_peak is None or server > self._seen_peak:  # raised since the previous reading
            candidate = max(0, server - own)
            if peak is None or candidate > peak:
                peak = candidate
                at = stats.max_total_connection_time  # when the server's peak, the audience's part of it, was
        self._seen_peak = server
        if peak is None or now > peak:
            peak, at = now, stats.last_updated
        if peak == 0:
            at = stats.created
        self._peak, self._peak_at = peak, at
        if peak == server:
            return 0
        changes["max_total_connections"] = peak
        changes["max_total_connection_time"] = at
        return server - peak


async def read_stats(client: OmeClient, path: NodePath) -> tuple[NodeStats, OwnShare]:
    """A node's statistics, and what of them may have been the console's own reads (the ledger's moments
    taken just before the request and just after its reply)."""
    own = client.own_reads
    since = own.mark()
    stats = await client.stats(path)
    return stats, own.reading(path, since, own.mark())


class AudienceWindow:
    """One node read outside the polling engine (the command line's `stats`): its readings less the
    console's own reads, with their rates."""

    def __init__(self) -> None:
        self.part = OwnPart()
        self.rates = RateWindow()

    async def read(self, client: OmeClient, path: NodePath, clock: Clock) -> Sample:
        stats, own = await read_stats(client, path)
        return audience_sample(self.part, self.rates, stats, clock.monotonic(), own)


def taken_text(sample: Sample) -> str | None:
    """What of a reading was the console's own reads, in words (None: nothing)."""
    parts = [f"{sample.own_viewers} connection{'s' if sample.own_viewers != 1 else ''} open"
             if sample.own_viewers else "",
             f"{sample.own_bytes_out} bytes out" if sample.own_bytes_out else "",
             f"{sample.own_peak} of the peak" if sample.own_peak else ""]
    shown = ", ".join(part for part in parts if part)
    return f"taken off as this console's own playlist reads: {shown}" if shown else None


def audience_sample(part: OwnPart, rates: RateWindow, stats: NodeStats, at: float, own: OwnShare) -> Sample:
    """The node's reading as the audience's, rated, with what was taken off it said."""
    reading, connections, bytes_out, peak = part.taken_off(stats, own)
    sample = rates.sample(reading, at)
    if not (connections or bytes_out or peak):
        return sample
    return dataclasses.replace(sample, own_viewers=connections, own_bytes_out=bytes_out, own_peak=peak)

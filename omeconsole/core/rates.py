"""Rates from byte totals: the console's own throughput, since the server's freezes when ingest stops.

A rate is Δbytes * 8 / Δt between two readings of the same node. Δt is taken from the server's
lastUpdatedTime when it moved (it moves with the counters, so polling jitter does not show as
jagged rates), else from the console's clock. A counter that went back, or a changed createdTime
(the stream restarted), gives no rate at all: a gap in the chart instead of a negative or huge spike.
"""

from __future__ import annotations

from omeconsole.core.model import NodeStats, Sample

MIN_INTERVAL_S = 0.05
"""Below this, a delta is noise rather than a rate."""

MAX_PLAUSIBLE_BPS = 400e9
"""Faster than any single server link: such a "rate" is a counter glitch, not traffic."""


def _rate(old: int, new: int, seconds: float) -> float | None:
    delta = new - old
    if delta < 0:
        return None
    if delta == 0:
        return 0.0
    if seconds < MIN_INTERVAL_S:
        return None
    rate = delta * 8 / seconds
    return rate if rate <= MAX_PLAUSIBLE_BPS else None


def rates_between(previous: Sample | None, stats: NodeStats, at: float) -> tuple[float | None, float | None]:
    """(rate in, rate out) in bits per second; None where no honest rate exists."""
    if previous is None:
        return None, None
    before = previous.stats
    if before.created != stats.created:
        return None, None
    server_dt = (stats.last_updated - before.last_updated).total_seconds()
    seconds = server_dt if server_dt >= MIN_INTERVAL_S else at - previous.at
    return (_rate(before.total_bytes_in, stats.total_bytes_in, seconds),
            _rate(before.total_bytes_out, stats.total_bytes_out, seconds))


def make_sample(previous: Sample | None, stats: NodeStats, at: float) -> Sample:
    rate_in, rate_out = rates_between(previous, stats, at)
    return Sample(at=at, rate_in_bps=rate_in, rate_out_bps=rate_out, viewers=stats.total_connections,
                  stats=stats)

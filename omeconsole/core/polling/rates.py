"""Rates from byte totals: the console's own throughput, since the server's freezes when ingest stops.

A rate is Δbytes * 8 / Δt between two readings of the same node. Δt is taken from the server's
lastUpdatedTime when it moved (it moves with the counters, so polling jitter does not show as
jagged rates), else from the console's clock. A counter that went back, or a changed createdTime
(the stream restarted), gives no rate at all: a gap in the chart instead of a negative or huge spike.

A poll that lands between two server updates (same lastUpdatedTime, same counters) carries no new
information: it keeps the previous rate rather than showing a bogus 0. Only when the server's
lastUpdatedTime has stood still for SERVER_STILL_S of console time is the traffic taken to have
stopped (rate 0), since the server moves it with every byte it counts (reference §1.3).
"""

from __future__ import annotations

from omeconsole.model.readings import NodeStats, Sample

MIN_INTERVAL_S = 0.05
"""Below this, a delta is noise rather than a rate."""

MAX_PLAUSIBLE_BPS = 400e9
"""Faster than any single server link: such a "rate" is a counter glitch, not traffic."""

SERVER_STILL_S = 3.0
"""A server with traffic updates its counters at least every second or so; still for longer means idle."""


def _rate(old: int | None, new: int | None, seconds: float) -> float | None:
    if old is None or new is None:
        return None
    delta = new - old
    if delta < 0:
        return None
    if delta == 0:
        return 0.0
    if seconds < MIN_INTERVAL_S:
        return None
    rate = delta * 8 / seconds
    return rate if rate <= MAX_PLAUSIBLE_BPS else None


def _update_seen_at(previous: Sample | None, stats: NodeStats, at: float) -> float:
    """When the console first saw this reading's lastUpdatedTime (now, unless it has not moved)."""
    if previous is None or previous.stats.created != stats.created or previous.stats.last_updated != stats.last_updated:
        return at
    return previous.update_seen_at if previous.update_seen_at is not None else previous.at


def _no_server_update(before: NodeStats, stats: NodeStats) -> bool:
    return (stats.last_updated == before.last_updated and stats.total_bytes_in == before.total_bytes_in
            and stats.total_bytes_out == before.total_bytes_out)


def rates_between(previous: Sample | None, stats: NodeStats, at: float) -> tuple[float | None, float | None]:
    """(rate in, rate out) in bits per second; None where no honest rate exists."""
    if previous is None:
        return None, None
    before = previous.stats
    if before.created != stats.created:
        return None, None
    if _no_server_update(before, stats) and at - _update_seen_at(previous, stats, at) < SERVER_STILL_S:
        return previous.rate_in_bps, previous.rate_out_bps
    server_dt = (0.0 if stats.last_updated is None or before.last_updated is None
                 else (stats.last_updated - before.last_updated).total_seconds())
    seconds = server_dt if server_dt >= MIN_INTERVAL_S else at - previous.at
    return (_rate(before.total_bytes_in, stats.total_bytes_in, seconds),
            _rate(before.total_bytes_out, stats.total_bytes_out, seconds))


def make_sample(previous: Sample | None, stats: NodeStats, at: float) -> Sample:
    rate_in, rate_out = rates_between(previous, stats, at)
    return Sample(at=at, rate_in_bps=rate_in, rate_out_bps=rate_out, viewers=stats.total_connections,
                  stats=stats, update_seen_at=_update_seen_at(previous, stats, at))

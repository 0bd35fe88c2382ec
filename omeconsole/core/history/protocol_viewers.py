"""Viewers per playback protocol for a history's points, from the readings kept at full resolution.

The store keeps the viewers total of every sample and bucket (its `viewers` column); the per-protocol
counts only in a full-resolution sample's details (its `connections_out`, the console's own reads
already taken off). So a point made from samples gets the counts of the last reading in it (as its
`viewers` is that reading's), and a tier's bucket gets none: None, never zeros.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from omeconsole.core.history.points import HistoryPoint
from omeconsole.model.audience import PLAYBACK
from omeconsole.model.readings import Sample


def playback_counts(sample: Sample) -> dict[str, int] | None:
    """`{"llhls": 12, "hlsv3": 0, "webrtc": 3, "srt": 0}` (every playback protocol, in `PLAYBACK` order);
    None when the reading has no per-protocol counts."""
    counts = sample.stats.connections_out
    return None if counts is None else {protocol: counts.get(protocol, 0) for protocol in PLAYBACK}


def per_point(points: Sequence[HistoryPoint], samples: Sequence[Sample]) -> list[dict[str, int] | None]:
    """For each point, the per-protocol counts of the last sample in it (`samples`: oldest first, `at` in
    epoch seconds, as `HistoryReader.samples` gives them): a sample as taken is its own point; a bucket
    spans [at, at + span). A gap, or a point whose readings have no counts, gets None."""
    times = [sample.at for sample in samples]
    counts: list[dict[str, int] | None] = []
    for point in points:
        if point.gap:
            counts.append(None)
            continue
        end = bisect_left(times, point.at + point.span) if point.span > 0 else bisect_left(times, point.at) + 1
        last = end - 1
        inside = 0 <= last < len(samples) and point.at <= times[last] and (point.span > 0 or times[last] == point.at)
        counts.append(playback_counts(samples[last]) if inside else None)
    return counts

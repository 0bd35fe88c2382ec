"""Property: whatever the samples, every tier gives the same byte totals as the raw data, and loses no peak.

The truth is computed here from the readings alone: bytes moved between two readings are the counter's
increase, or the new counter itself after a reset (a counter that went back, or a new createdTime).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from history_support import SERVER, STREAM, T0, Reading, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.settings import HistorySettings, Tier

TIERS = HistorySettings(full_resolution="1d", tiers=[Tier(step="10s", keep="1d"), Tier(step="1m", keep="1d"),
                                                      Tier(step="15m", keep="1d")])
STEPS = (10, 60, 900)


@st.composite
def readings(draw: st.DrawFn) -> list[Reading]:
    count = draw(st.integers(1, 60))
    at, created = T0 + draw(st.floats(0, 100)), T0 - 1000.0
    total_in, total_out = draw(st.integers(0, 10**12)), draw(st.integers(0, 10**12))
    result = []
    for _ in range(count):
        at += draw(st.floats(0.01, 400))
        change = draw(st.sampled_from(["grow", "grow", "grow", "restart", "counter back", "invalid"]))
        if change == "restart":
            created = at - draw(st.floats(0, 5))
            total_in, total_out = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))
        elif change == "counter back":
            total_in, total_out = draw(st.integers(0, total_in)), draw(st.integers(0, total_out))
        elif change == "grow":
            total_in += draw(st.integers(0, 10**10))
            total_out += draw(st.integers(0, 10**11))
        viewers = draw(st.none() | st.integers(0, 100_000))
        rate = draw(st.none() | st.floats(0, 1e10))
        invalid = change == "invalid"
        result.append(Reading(round(at, 3), None if invalid else total_in, None if invalid else total_out,
                              viewers, created=created, rate_out=rate))
    return result


def truth(samples: list[Reading]) -> list[tuple[float, int, int]]:
    """(time, bytes in, bytes out) moved since the previous reading, by the readings alone."""
    moved = []
    last: dict[str, int | None] = {"in": None, "out": None}
    created = samples[0].created
    for reading in samples:
        restarted = reading.created != created
        created = reading.created
        deltas = []
        for key, total in (("in", reading.total_in), ("out", reading.total_out)):
            before = last[key]
            if total is None or before is None:
                deltas.append(0)  # unknown, or the first valid reading (what it counts moved before)
            elif restarted or total < before:
                deltas.append(total)  # the counter started again from zero
            else:
                deltas.append(total - before)
            if total is not None:
                last[key] = total
        moved.append((reading.at, deltas[0], deltas[1]))
    return moved


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(samples=readings(), data=st.data())
def test_every_tier_keeps_byte_totals_exact_and_peaks_as_peaks(samples: list[Reading], data: st.DataObject) -> None:
    moved = truth(samples)
    with tempfile.TemporaryDirectory() as directory:
        db = Path(directory) / "h.sqlite3"
        write(db, samples, settings=TIERS, now=T0)
        with HistoryReader(db, TIERS) as reader:
            for step in STEPS:
                first = int(samples[0].at // step) * step
                buckets = int((samples[-1].at - first) // step) + 1
                lo = data.draw(st.integers(0, buckets - 1), label=f"first bucket of {step} s")
                hi = data.draw(st.integers(lo + 1, buckets), label=f"end bucket of {step} s")
                start, end = first + lo * step, first + hi * step
                inside = [m for m in moved if start <= m[0] < end]
                expected = (sum(m[1] for m in inside), sum(m[2] for m in inside))
                raw = reader.series(SERVER.key, STREAM, start, end - 1e-6, now=T0, source=0)
                tier = reader.series(SERVER.key, STREAM, start, end - 1e-6, now=T0, source=step)
                assert raw.bytes_total() == expected
                assert tier.bytes_total() == expected
                assert all((p.bytes_in or 0) >= 0 and (p.bytes_out or 0) >= 0 for p in tier.points)
                seen = [r for r in samples if start <= r.at < end]
                viewers = [r.viewers for r in seen if r.viewers is not None]
                rates = [r.rate_out for r in seen if r.rate_out is not None]
                points = [p for p in tier.points if not p.gap]
                assert sum(p.samples for p in points) == len(seen)
                assert max((p.viewers_max for p in points if p.viewers_max is not None), default=None) == \
                    max(viewers, default=None)
                assert min((p.viewers_min for p in points if p.viewers_min is not None), default=None) == \
                    min(viewers, default=None)
                assert max((p.rate_out_max_bps for p in points if p.rate_out_max_bps is not None),
                           default=None) == max(rates, default=None)
            summary = reader.summary(SERVER.key, STREAM)
        assert summary is not None
        first_in = next((r.total_in for r in samples if r.total_in is not None), 0)
        first_out = next((r.total_out for r in samples if r.total_out is not None), 0)
        assert summary.bytes_in == first_in + sum(m[1] for m in moved)
        assert summary.bytes_out == first_out + sum(m[2] for m in moved)

"""The engine's kept readings (what an export writes) come back exactly as they were read, whatever the
server said: missing fields, counters at the 64-bit limit, times in any offset, fields named invalid."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from omeconsole.core.polling.history import HistoryStore
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

NEWS = NodePath("default", "app", "news")
TOKYO = timezone(timedelta(hours=9))
CET = timezone(timedelta(hours=1), "CET")


def stats(second: int, **changes: object) -> NodeStats:
    values: dict[str, object] = {
        "created": datetime(2026, 11, 25, 8, tzinfo=UTC),
        "last_updated": datetime(2026, 11, 25, 17, 0, second % 60, 123_456, tzinfo=TOKYO),
        "total_bytes_in": 380_000 * second, "total_bytes_out": 2**63 - 1,
        "connections_in": {"srt": 1}, "connections_out": {"llhls": 18, "webrtc": 5},
        "total_connections": 23, "max_total_connections": 34,
        "max_total_connection_time": datetime(2026, 11, 25, 8, 0, 7, tzinfo=UTC),
        "avg_throughput_in_bps": 3_000_000, "avg_throughput_out_bps": 87_000_000,
        "max_throughput_in_bps": None, "max_throughput_out_bps": 0,
        "last_throughput_in_bytes": 380_000, "last_throughput_out_bytes": 11_000_000,
        "last_recv": None, "last_sent": datetime(2026, 11, 25, 8, 0, second % 60, tzinfo=UTC),
        "invalid": frozenset({"max_throughput_in_bps", "last_recv"}),
    }
    values.update(changes)
    return NodeStats(**values)  # type: ignore[arg-type]


def sample(second: int, **changes: object) -> Sample:
    rate = None if second == 0 else 3_040_000.5
    return Sample(at=1000.0 + second, rate_in_bps=rate, rate_out_bps=rate, viewers=23, stats=stats(second, **changes),
                  window_s=None if rate is None else 5.0, window_clock=None if rate is None else "server",
                  disagree=frozenset({"out"}) if second % 2 else frozenset())


def test_kept_readings_are_the_readings_taken_field_for_field() -> None:
    store = HistoryStore(readings=600, series=600)
    store.watch([NEWS])
    taken = [sample(0, total_bytes_in=None, connections_in=None, last_updated=None), sample(1),
             # By hand, what the decoder never makes: a value no 64-bit counter holds, a time in a named zone.
             sample(2, total_bytes_out=2**70, last_sent=datetime(2026, 11, 25, 9, tzinfo=CET))]
    for reading in taken:
        store.record(NEWS, reading)
    kept, _ = store.views(NEWS)
    assert list(kept) == taken
    assert kept[1].stats.last_updated is not None and kept[1].stats.last_updated.utcoffset() == timedelta(hours=9)
    assert kept[0].rate_in_bps is None and kept[0].stats.total_bytes_in is None
    assert kept[2].stats.total_bytes_out == 2**70
    assert kept[2].stats.last_sent is not None and kept[2].stats.last_sent.tzname() == "CET"


def test_a_full_ring_keeps_the_newest_readings_in_order_and_an_old_view_loses_only_the_overwritten() -> None:
    store = HistoryStore(readings=3, series=10)
    store.watch([NEWS])
    taken = [sample(second, total_bytes_out={1: 2**70, 4: None}.get(second, 5)) for second in range(5)]
    for reading in taken[:3]:
        store.record(NEWS, reading)
    early, _ = store.views(NEWS)
    for reading in taken[3:]:
        store.record(NEWS, reading)
    latest, _ = store.views(NEWS)
    assert list(latest) == taken[2:]
    assert list(early) == taken[2:3]  # made before two readings were overwritten: what is left of it
    # The huge value's place now holds a reading the server gave no total in: it says so, not the old value.
    assert [reading.stats.total_bytes_out for reading in latest] == [5, 5, None]

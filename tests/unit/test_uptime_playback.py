"""A stream's uptime on the server's clock (`core/uptime`). (Its playback URLs: tests/unit/test_playback_urls.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from omeconsole.core import units
from omeconsole.core.uptime import uptime_s
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

NEWS = NodePath("default", "app", "news")
CREATED = datetime(2026, 11, 29, 0, 3, 28, 518000, tzinfo=UTC)


def reading(at: float, stamp: datetime | None, created: datetime | None = CREATED) -> Sample:
    stats = NodeStats(created=created, last_updated=stamp, total_bytes_in=1, total_bytes_out=1, connections_in={},
                      connections_out={}, total_connections=0, max_total_connections=0,
                      max_total_connection_time=None, avg_throughput_in_bps=0, avg_throughput_out_bps=0,
                      max_throughput_in_bps=0, max_throughput_out_bps=0, last_throughput_in_bytes=0,
                      last_throughput_out_bytes=0)
    return Sample(at=at, rate_in_bps=None, rate_out_bps=None, viewers=0, stats=stats)


def live(*samples: Sample, state: NodeState = NodeState.LIVE) -> NodeView:
    return NodeView(NEWS, state, latest=samples[-1], history=samples)


def test_uptime_is_the_servers_span_plus_the_console_seconds_since_the_reading() -> None:
    # The console's own wall clock plays no part: the span is createdTime to the server's own stamp.
    view = live(reading(100.0, CREATED + timedelta(seconds=90)))
    assert uptime_s(view, 100.0) == 90.0
    assert uptime_s(view, 102.5) == 92.5
    assert units.uptime(uptime_s(view, 102.5)) == "1 min 32 s"


def test_stamps_standing_still_never_take_the_figure_back() -> None:
    stamp = CREATED + timedelta(seconds=60)
    view = live(reading(10.0, stamp), reading(11.0, stamp), reading(12.0, stamp))
    assert uptime_s(view, 12.0) == 62.0  # counted from the first reading with that stamp, not the newest


def test_a_created_time_after_the_servers_clock_or_missing_or_an_ended_stream_has_no_figure() -> None:
    assert uptime_s(live(reading(5.0, CREATED - timedelta(seconds=1))), 5.0) is None
    assert uptime_s(live(reading(5.0, CREATED, created=None)), 5.0) is None
    assert uptime_s(live(reading(5.0, None)), 5.0) is None
    assert uptime_s(live(reading(5.0, CREATED), state=NodeState.ENDED), 5.0) is None
    assert units.uptime(None) == "—"


def test_a_new_created_time_starts_again() -> None:
    restarted = CREATED + timedelta(minutes=5)
    view = live(reading(10.0, restarted - timedelta(seconds=1)),
                reading(11.0, restarted + timedelta(seconds=2), created=restarted))
    assert uptime_s(view, 11.0) == 2.0


def test_long_uptimes_read_in_hours_and_days() -> None:
    assert units.uptime(3 * 3600 + 4 * 60 + 59) == "3 h 04 min"
    assert units.uptime(2 * 86_400 + 3 * 3600) == "2 d 03 h"

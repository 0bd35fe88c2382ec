"""What ten minutes of readings cost in memory: the engine keeps 600 readings of every node on screen, and a
stream's readings repeat most of what they say (its connection counts per protocol, its creation and peak
times). Each reply is decoded afresh, as the client does; what the converted readings keep is measured."""

from __future__ import annotations

import json
import tracemalloc

from omeconsole.api.convert import stats_from_v2
from omeconsole.model.readings import NodeStats

READINGS = 600
INBOUND = {name: 0 for name in ("file", "mpegts", "multiplex", "ovt", "rtmp", "rtsp", "rtsppull", "scheduled",
                                "webrtc")} | {"srt": 1}
OUTBOUND = {"file": 0, "hlsv3": 5, "llhls": 18, "ovt": 0, "push": 0, "srt": 1, "thumbnail": 0, "webrtc": 5}


def reply(second: int) -> bytes:
    """A stream's v2 record at `second`: totals and last-update time move, counts and creation do not."""
    now = f"2026-11-25T08:{second // 60 % 60:02d}:{second % 60:02d}.000+00:00"
    return json.dumps({
        "createdTime": "2026-11-25T08:00:00.000+00:00", "lastUpdatedTime": now,
        "providers": {"avgThroughputIn": 3_000_000, "connections": INBOUND, "lastRecvTime": now,
                      "lastThroughputIn": 380_000, "maxThroughputIn": 3_200_000, "totalBytesIn": 380_000 * second},
        "publishers": {"avgThroughputOut": 87_000_000, "connections": OUTBOUND, "lastSentTime": now,
                       "lastThroughputOut": 11_000_000, "maxThroughputOut": 99_000_000,
                       "maxTotalConnectionTime": "2026-11-25T08:00:07.000+00:00", "maxTotalConnections": 34,
                       "totalBytesOut": 11_000_000 * second, "totalConnections": 29},
    }).encode()


def test_ten_minutes_of_a_streams_readings_hold_its_unchanged_counts_and_times_once() -> None:
    bodies = [reply(second) for second in range(READINGS)]
    tracemalloc.start()
    try:
        kept: list[NodeStats] = [stats_from_v2(json.loads(body), "default/app/news") for body in bodies]
        assert all(stats.connections_out == OUTBOUND and stats.connections_in == INBOUND for stats in kept)
        holding = tracemalloc.take_snapshot()
        del kept  # what the readings alone hold is what this gives back (the decoder's bounded caches stay)
        dropped = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(stat.size_diff for stat in holding.compare_to(dropped, "filename"))
    # A record, its moving totals and its three moving times: about 410 bytes. Each reading holding its own
    # two maps of counts and their protocol names (as decoded) costs about three kilobytes; its own empty set
    # of invalid fields (a frozenset is never shared by itself), 216 bytes more.
    assert held / READINGS < 500, f"{held / READINGS:.0f} bytes held per reading"

"""The statistics documents of the management API, built from the world's counters (reference §1.2, seed)."""

from __future__ import annotations

from typing import Any

from simulator.world.timefmt import iso8601_ms


def stats_v2(counters: dict[str, Any]) -> dict[str, Any]:
    """The seed's v2 record: the same shape at vhost, application and stream level."""
    return {
        "createdTime": iso8601_ms(counters["created_ms"]),
        "lastUpdatedTime": iso8601_ms(counters["last_updated_ms"]),
        "providers": {
            "avgThroughputIn": counters["avg_in"],
            "connections": counters["provider_conn"],
            "lastRecvTime": iso8601_ms(counters["last_recv_ms"]),
            "lastThroughputIn": counters["last_in"],
            "maxThroughputIn": counters["max_in"],
            "totalBytesIn": counters["bytes_in"],
        },
        "publishers": {
            "avgThroughputOut": counters["avg_out"],
            "connections": counters["publisher_conn"],
            "lastSentTime": iso8601_ms(counters["last_sent_ms"]),
            "lastThroughputOut": counters["last_out"],
            "maxThroughputOut": counters["max_out"],
            "maxTotalConnectionTime": iso8601_ms(counters["max_total_conn_ms"]),
            "maxTotalConnections": counters["max_total_conn"],
            "totalBytesOut": counters["bytes_out"],
            "totalConnections": counters["total_conn"],
        },
    }


def stats_v1(counters: dict[str, Any]) -> dict[str, Any]:
    """The open source v1 record (`json_serdes/metrics.cpp`): one flat object, publisher connections only;
    the same at server, vhost, application and stream level."""
    return {
        "avgThroughputIn": counters["avg_in"],
        "avgThroughputOut": counters["avg_out"],
        "connections": counters["publisher_conn"],
        "createdTime": iso8601_ms(counters["created_ms"]),
        "lastRecvTime": iso8601_ms(counters["last_recv_ms"]),
        "lastSentTime": iso8601_ms(counters["last_sent_ms"]),
        "lastThroughputIn": counters["last_in"],
        "lastThroughputOut": counters["last_out"],
        "lastUpdatedTime": iso8601_ms(counters["last_updated_ms"]),
        "maxThroughputIn": counters["max_in"],
        "maxThroughputOut": counters["max_out"],
        "maxTotalConnectionTime": iso8601_ms(counters["max_total_conn_ms"]),
        "maxTotalConnections": counters["max_total_conn"],
        "totalBytesIn": counters["bytes_in"],
        "totalBytesOut": counters["bytes_out"],
        "totalConnections": counters["total_conn"],
    }

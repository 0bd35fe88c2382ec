"""Current alerts and webhook deliveries as one JSON document (the exporter's `/alerts`, `omeconsole alerts`).

```json
{"generated_at": "2026-01-01T00:01:00.000Z",
 "alerts": [{"status": "firing", "rule": "ingest stopped", "kind": "ingest_stopped", "severity": "critical",
             "server": "prod", "node": "default/app/news", "since": "...", "started_at": "...",
             "resolved_at": null, "value": 12.0, "detail": "no input bytes for 12 s", "summary": "...",
             "fingerprint": "3f1c...", "labels": {...}}],
 "webhooks": [{"name": "ops", "delivered": 3, "failed_attempts": 1, "dropped": 0, "queued": 0,
               "last_error": "hooks.example.net: answered 500", "last_error_at": "..."}]}
```

Times are UTC (RFC 3339). `node` is null for a server-level alert. Names are server data: a reader
shows them through the console's display rule, never raw.
"""

from __future__ import annotations

from collections.abc import Iterable

from omeconsole.core.alerts.payload import rfc3339, wall_time
from omeconsole.core.alerts.state import Alert
from omeconsole.core.alerts.webhooks import DeliveryStats
from omeconsole.core.clock import Clock


def alert_record(alert: Alert, clock: Clock) -> dict[str, object]:
    def at(moment: float | None) -> str | None:
        return None if moment is None else rfc3339(wall_time(clock, moment))

    return {
        "status": alert.status.value,
        "rule": alert.key.rule,
        "kind": alert.kind,
        "severity": alert.severity,
        "server": alert.key.server,
        "node": None if alert.key.path is None else str(alert.key.path),
        "since": at(alert.since),
        "started_at": at(alert.started_at),
        "resolved_at": at(alert.resolved_at),
        "value": alert.value,
        "detail": alert.detail,
        "summary": alert.summary,
        "fingerprint": alert.fingerprint,
        "labels": dict(alert.labels),
    }


def delivery_record(stats: DeliveryStats, clock: Clock) -> dict[str, object]:
    return {
        "name": stats.name,
        "delivered": stats.delivered,
        "failed_attempts": stats.failed_attempts,
        "dropped": stats.dropped,
        "queued": stats.queued,
        "last_error": stats.last_error,
        "last_error_at": None if stats.last_error_at is None else rfc3339(wall_time(clock, stats.last_error_at)),
    }


def alerts_document(alerts: Iterable[Alert], deliveries: Iterable[DeliveryStats], clock: Clock) -> dict[str, object]:
    return {
        "generated_at": rfc3339(clock.wall()),
        "alerts": [alert_record(a, clock) for a in alerts],
        "webhooks": [delivery_record(d, clock) for d in deliveries],
    }

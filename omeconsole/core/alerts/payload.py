"""The JSON a webhook receives: Alertmanager's webhook shape (version 4), one alert per message.

A receiver written for Alertmanager (a chat bridge, an incident tool) takes it as it is:

```json
{"version": "4", "status": "firing", "receiver": "ops", "groupKey": "{}:{alertname=\\"ingest stopped\\"}",
 "truncatedAlerts": 0, "groupLabels": {"alertname": "ingest stopped"},
 "commonLabels": {...the alert's labels...}, "commonAnnotations": {...}, "externalURL": "",
 "alerts": [{"status": "firing", "labels": {"alertname": "ingest stopped", "kind": "ingest_stopped",
             "severity": "critical", "server": "prod", "vhost": "default", "app": "app", "stream": "news"},
             "annotations": {"summary": "...", "description": "no input bytes for 12 s", "value": "12"},
             "startsAt": "2026-01-01T00:00:12.000Z", "endsAt": "0001-01-01T00:00:00Z",
             "generatorURL": "", "fingerprint": "3f1c..."}]}
```

`endsAt` is the resolution time in a "resolved" message. Names and labels are data from the server:
the body is JSON, never markup, and a receiver must treat it as such.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from omeconsole.core.alerts.state import Alert, AlertStatus
from omeconsole.core.clock import Clock

ZERO_TIME = "0001-01-01T00:00:00Z"


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wall_time(clock: Clock, monotonic: float) -> datetime:
    """The wall-clock time of a moment on the clock's monotonic scale."""
    return clock.wall() - timedelta(seconds=clock.monotonic() - monotonic)


def alert_json(alert: Alert, clock: Clock) -> dict[str, object]:
    """One alert in Alertmanager's shape."""
    started = alert.started_at if alert.started_at is not None else alert.since
    annotations = {"summary": alert.summary, "description": alert.detail}
    if alert.value is not None:
        annotations["value"] = f"{alert.value:g}"
    ends = (rfc3339(wall_time(clock, alert.resolved_at)) if alert.resolved_at is not None else ZERO_TIME)
    return {
        "status": "resolved" if alert.status is AlertStatus.RESOLVED else "firing",
        "labels": dict(alert.labels),
        "annotations": annotations,
        "startsAt": rfc3339(wall_time(clock, started)),
        "endsAt": ends,
        "generatorURL": "",
        "fingerprint": alert.fingerprint,
    }


def webhook_body(alert: Alert, clock: Clock, receiver: str) -> bytes:
    """The whole message for one transition, as JSON."""
    item = alert_json(alert, clock)
    labels = dict(alert.labels)
    message = {
        "version": "4",
        "groupKey": "{}:" + "{alertname=" + json.dumps(alert.key.rule) + "}",
        "truncatedAlerts": 0,
        "status": item["status"],
        "receiver": receiver,
        "groupLabels": {"alertname": alert.key.rule},
        "commonLabels": labels,
        "commonAnnotations": item["annotations"],
        "externalURL": "",
        "alerts": [item],
    }
    # ASCII with \u escapes: valid JSON even for a name holding a lone surrogate from the server.
    return json.dumps(message, separators=(",", ":")).encode("ascii")

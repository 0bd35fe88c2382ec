"""What the runner says: one event per thing that happened (or did not), for a log, a machine or a screen.

Every planned break ends in exactly one of `sent` (then `confirmed` or `unconfirmed`), `skipped` (with
the rule or the operator's control that stopped it), `missed` (its time passed while it could not be
sent: never sent late) or `unknown` (the request may have gone; never sent again). Alerts name the
planned break that did not go out (`schedule_missed`) or was not seen (`marker_unconfirmed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from omeconsole.core.text import visible

EventKind = Literal["started", "loaded", "invalid", "preroll", "sent", "skipped", "missed", "unknown", "confirmed",
                    "unconfirmed", "no-match", "refused", "stopped"]
AlertKind = Literal["schedule_missed", "marker_unconfirmed"]


@dataclass(frozen=True)
class RunnerEvent:
    kind: EventKind
    message: str
    schedule: str | None = None
    stream: str | None = None
    run: datetime | None = None
    zone: ZoneInfo | None = None
    alert: AlertKind | None = None
    send_id: str | None = None

    def text(self) -> str:
        """One line for a person: `[schedule] stream 14:24: message`, every outside string made visible."""
        head = []
        if self.schedule is not None:
            head.append(f"[{visible(self.schedule, 100)}]")
        if self.stream is not None:
            head.append(visible(self.stream, 300))
        if self.run is not None:
            head.append(run_time(self.run, self.zone))
        prefix = " ".join(head)
        alert = f" (alert {self.alert})" if self.alert else ""
        return f"{prefix + ': ' if prefix else ''}{visible(self.message, 2000)}{alert}"

    def fields(self) -> dict[str, Any]:
        """The same for a machine (`--json`)."""
        return {"event": self.kind, "schedule": self.schedule, "stream": self.stream,
                "run": self.run.isoformat() if self.run is not None else None, "message": self.message,
                "alert": self.alert, "send_id": self.send_id}


def run_time(run: datetime, zone: ZoneInfo | None) -> str:
    """`14:24 CET` in the schedule's zone (UTC when it has none); `14:24:36 CET` for a run off the minute."""
    local = run.astimezone(zone or UTC)
    return local.strftime("%H:%M:%S %Z" if local.second else "%H:%M %Z")

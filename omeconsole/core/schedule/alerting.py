"""The runner's events as alerts: what it says of a planned break becomes `schedule_missed` or
`marker_unconfirmed` in `Occurrences` (and from there the webhooks), with the runner's reason.

An event marked with an alert fires it for the schedule and the stream (the schedule's pattern when no
stream was known: the listing failed, or the run was missed while nothing ran); the schedule's next break
accepted by the server on that stream clears its `schedule_missed` (and the pattern's), the next one seen
in the playlist its `marker_unconfirmed`.
"""

from __future__ import annotations

import logging

from omeconsole.core.alerts.occurrences import Occurrences
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.model import PATTERN_CHARS
from omeconsole.model.paths import NodePath

log = logging.getLogger("omeconsole.schedule")


def _path(stream: str | None) -> NodePath | None:
    parts = (stream or "").split("/")
    return NodePath(parts[0], parts[1], parts[2]) if len(parts) == 3 and all(parts) else None


class ScheduleAlerts:
    """A runner's `report` listener feeding `occurrences`."""

    def __init__(self, occurrences: Occurrences) -> None:
        self.occurrences = occurrences
        self._patterns: dict[str, set[NodePath]] = {}
        """Per schedule, the patterns its alerts were fired on (cleared by any stream's accepted break)."""

    def __call__(self, event: RunnerEvent) -> None:
        schedule, path = event.schedule, _path(event.stream)
        if schedule is None or path is None:
            return
        if event.alert is not None:
            if any(c in PATTERN_CHARS for c in str(path)):
                self._patterns.setdefault(schedule, set()).add(path)
            self.occurrences.happened(event.alert, schedule, path, event.message)
        elif event.kind == "sent" and event.send_id is not None:  # accepted (its audit warning has no id)
            for cleared in (path, *self._patterns.get(schedule, ())):
                self.occurrences.cleared("schedule_missed", schedule, cleared, f"a break was sent to {path}")
        elif event.kind == "confirmed":
            self.occurrences.cleared("marker_unconfirmed", schedule, path, event.message)

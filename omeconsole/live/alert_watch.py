"""The `[[alerts]]` rules run on the TUI's own readings: one pass per second of console time.

The TUI polls what is on screen (and what its alerts screen shows: the nodes of active alerts), so
its rules judge the nodes the operator has looked at since; a node never read is not judged (a sparse
reading is not an outage, see core/alerts/conditions.py). `omeconsole exporter` watches every node and
is the process to run for alerts on a whole server or fleet.

Screens listen here (not on the evaluator, whose listeners live as long as it does) and are told after
a pass that made an alert fire or resolve; the app is told which alerts started firing, to ring the
bell and send the desktop notice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from omeconsole.core.alerts.audit_feed import AuditFeed
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.source import EngineSource, Observed
from omeconsole.core.alerts.state import Alert, AlertStatus
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.core.session import Session


class SessionAlerts:
    """One session's alert evaluator, the pass the app runs on every clock tick, and its listeners."""

    def __init__(self, session: Session, announce: Callable[[Sequence[Alert]], None]) -> None:
        """`announce` hears the alerts each pass made fire (never an empty list)."""
        context = session.context
        observed = Observed(EngineSource(session.engine))
        self.evaluator = AlertEvaluator(session.settings.alerts, observed, session.clock,
                                        server=context.profile or context.host,
                                        audit=AuditFeed(session.audit, session.client.api_url))
        self._announce = announce
        self._listeners: Listeners[[]] = Listeners("session's alerts")

    def run_pass(self) -> None:
        transitions = self.evaluator.evaluate()
        firing = [t.alert for t in transitions if t.alert.status is AlertStatus.FIRING]
        if firing:
            self._announce(firing)
        if transitions:
            self._listeners.tell()

    def add_listener(self, listener: Callable[[], None]) -> Unsubscribe:
        """`listener` is called after every pass that changed an alert's state, until unsubscribed."""
        return self._listeners.add(listener)

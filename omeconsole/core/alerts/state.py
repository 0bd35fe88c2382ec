"""One alert's life: pending, firing, resolved, with hysteresis on both edges.

A condition must hold for the rule's `for` before the alert fires, and must stay gone for
`keep_firing_for` before it resolves; a condition that comes back meanwhile keeps the same alert
firing. So a link that flaps every few seconds raises one alert, not one per flap. A condition that
cannot be judged (no fresh data) changes nothing: timers keep running on what was last known.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from omeconsole.core.alerts.rules import AlertRule, Kind, Severity
from omeconsole.model.paths import NodePath


class AlertStatus(enum.Enum):
    PENDING = "pending"
    FIRING = "firing"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class AlertKey:
    rule: str
    server: str
    path: NodePath | None
    """None for a server-level alert."""
    schedule: str | None = None
    """The schedule whose planned break it is about (the alerts the scheduler fires); None otherwise."""


@dataclass(frozen=True, slots=True)
class Alert:
    """An alert as every reader sees it: times are the console clock's monotonic seconds."""

    key: AlertKey
    kind: Kind
    severity: Severity
    status: AlertStatus
    since: float
    """When the current status began (pending since, firing since, resolved at)."""
    started_at: float | None
    """When it fired (None while pending)."""
    value: float | None
    """The measured value behind the condition (seconds, viewers, percent: see `detail`)."""
    detail: str
    """The measurement in words, e.g. "no input bytes for 12 s"."""
    summary: str
    resolved_at: float | None = None
    resolves_at: float | None = None
    """While firing with its condition gone: when its keep-firing period ends and it resolves (None: the
    condition holds, or the alert is not firing)."""

    @property
    def labels(self) -> Mapping[str, str]:
        """Alertmanager-style labels: alertname, kind, severity, server, the schedule (if any), and the node's
        path parts."""
        labels = {"alertname": self.key.rule, "kind": self.kind, "severity": self.severity,
                  "server": self.key.server}
        if self.key.schedule is not None:
            labels["schedule"] = self.key.schedule
        path = self.key.path
        if path is not None:
            labels["vhost"] = path.vhost
            if path.app is not None:
                labels["app"] = path.app
            if path.stream is not None:
                labels["stream"] = path.stream
        return labels

    @property
    def fingerprint(self) -> str:
        """Stable id of (rule, server, node): the same alert in every notification and every run."""
        text = "\x00".join(f"{k}={v}" for k, v in sorted(self.labels.items()) if k not in ("severity", "kind"))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Transition:
    """An alert that just fired or just resolved (pending never notifies)."""

    alert: Alert


@dataclass(slots=True)
class Tracker:
    """The hysteresis state of one (rule, server, node)."""

    rule: AlertRule
    key: AlertKey
    condition_since: float | None = None
    """When the condition began to hold (None: it does not hold)."""
    clear_since: float | None = None
    """While firing: when the condition stopped holding."""
    alert: Alert | None = None
    value: float | None = None
    detail: str = ""

    @property
    def active(self) -> bool:
        """Pending or firing: something to re-check on every pass, even without new data."""
        return self.alert is not None and self.alert.status is not AlertStatus.RESOLVED

    def update(self, holds: bool | None, now: float, value: float | None, detail: str) -> Transition | None:
        """Feed one judgement of the condition (None: cannot tell); returns a firing or resolution."""
        if holds is None:
            return self._tick(now)
        if value is not None or detail:
            self.value, self.detail = value, detail
        if holds:
            self.clear_since = None
            if self.condition_since is None:
                self.condition_since = now
        else:
            self.condition_since = None
            if self.alert is not None and self.alert.status is AlertStatus.PENDING:
                self.alert = None  # never fired: drop it quietly
            elif self.alert is not None and self.alert.status is AlertStatus.FIRING and self.clear_since is None:
                self.clear_since = now
        return self._tick(now)

    def _tick(self, now: float) -> Transition | None:
        rule = self.rule
        alert = self.alert
        if self.condition_since is not None and (alert is None or alert.status is AlertStatus.RESOLVED):
            self.alert = alert = self._make(AlertStatus.PENDING, self.condition_since, None)
        if alert is None:
            return None
        if alert.status is AlertStatus.PENDING and self.condition_since is not None \
                and now - self.condition_since >= rule.for_s:
            self.alert = self._make(AlertStatus.FIRING, now, now)
            return Transition(self.alert)
        if alert.status is AlertStatus.FIRING and self.clear_since is not None \
                and now - self.clear_since >= rule.keep_firing_for:
            self.alert = replace(self._make(AlertStatus.RESOLVED, now, alert.started_at), resolved_at=now)
            self.clear_since = None
            return Transition(self.alert)
        if alert.status is not AlertStatus.RESOLVED:
            resolves_at = self.clear_since + rule.keep_firing_for if self.clear_since is not None else None
            if (self.value, self.detail, resolves_at) != (alert.value, alert.detail, alert.resolves_at):
                self.alert = replace(alert, value=self.value, detail=self.detail, resolves_at=resolves_at)
        return None

    def _make(self, status: AlertStatus, since: float, started_at: float | None) -> Alert:
        return Alert(self.key, self.rule.kind, self.rule.severity, status, since, started_at, self.value,
                     self.detail, self.rule.summary or self.rule.describe())

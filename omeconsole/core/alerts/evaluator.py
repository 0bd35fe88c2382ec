"""The alert pass: every rule over what changed since the last pass, on an injected clock.

A pass costs what changed, not what exists: node rules judge only the nodes the engine re-read since
the last pass (and, when the listing moved, the nodes that entered or left their scope); alerts that
are pending or firing have their timers checked every pass. Scopes are matched once per listing
change, per application, and reused while the application's streams are unchanged, so a server of
10,000 streams costs a pass a few dozen judgements (see BENCHMARKS.md).

Listeners hear every firing and every resolution once, in order (the TUI's badges and bell, the
webhooks); a listener that raises is logged and never stops the pass.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from omeconsole.core.alerts.audit_feed import AuditFeed
from omeconsole.core.alerts.conditions import (
    GONE,
    NodeCondition,
    marker_unconfirmed,
    node_condition,
    server_down,
)
from omeconsole.core.alerts.rules import HEARD_KINDS, AlertRule
from omeconsole.core.alerts.scope import Scope
from omeconsole.core.alerts.source import Observed
from omeconsole.core.alerts.state import Alert, AlertKey, AlertStatus, Tracker, Transition
from omeconsole.core.clock import Clock
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.model.nodes import AppStreams, Listing
from omeconsole.model.paths import NodePath
from omeconsole.model.server import UNKNOWN_MARKERS

log = logging.getLogger("omeconsole.alerts")

TransitionListener = Callable[[Transition], None]
KEEP_RESOLVED = 200
"""Resolved alerts kept for `alerts()` (the newest)."""


@dataclass(slots=True)
class _NodeRule:
    rule: AlertRule
    scope: Scope
    condition: NodeCondition
    matched: set[NodePath]
    by_app: dict[tuple[str, str], tuple[AppStreams, list[NodePath]]]


class AlertEvaluator:
    """Evaluates `rules` for one server (`server` is its name: the profile, else host:port).

    Rules of the kinds heard from the scheduler (`HEARD_KINDS`) are not judged here: `rules` leaves them out."""

    def __init__(self, rules: Sequence[AlertRule], observed: Observed, clock: Clock, *, server: str,
                 audit: AuditFeed | None = None) -> None:
        self.rules = tuple(rule for rule in rules if rule.kind not in HEARD_KINDS)
        self.server = server
        self._observed = observed
        self._clock = clock
        self._audit = audit
        self._started_at = clock.monotonic()
        self._node_rules: list[_NodeRule] = []
        self._server_rules: list[AlertRule] = []
        self._marker_rules: list[tuple[AlertRule, Scope]] = []
        for rule in self.rules:
            scope = rule.parsed_scope
            condition = node_condition(rule)
            if condition is not None:
                self._node_rules.append(_NodeRule(rule, scope, condition, set(), {}))
            elif rule.kind == "server_down":
                if scope.matches_server(server):
                    self._server_rules.append(rule)
            elif rule.kind == "marker_unconfirmed":
                self._marker_rules.append((rule, scope))
        self._trackers: dict[AlertKey, Tracker] = {}
        self._active: set[AlertKey] = set()
        self._resolved: deque[Alert] = deque(maxlen=KEEP_RESOLVED)
        self._listeners: Listeners[[Transition]] = Listeners("alert evaluator")
        self._listing: Listing | None = None
        self.passes = 0
        self.judgements = 0
        """Node judgements made so far (what a pass costs grows with this, not with the server's size)."""

    def add_listener(self, callback: TransitionListener) -> Unsubscribe:
        """`callback` hears every transition from now on, until what this returns is called."""
        return self._listeners.add(callback)

    # -- reading ------------------------------------------------------------------------------------

    def alerts(self) -> list[Alert]:
        """Firing first, then pending (both oldest first), then resolved (newest first)."""
        live = [t.alert for t in self._trackers.values() if t.active and t.alert is not None]
        live.sort(key=lambda a: (a.status is not AlertStatus.FIRING, a.since, a.key.rule))
        return [*live, *reversed(self._resolved)]

    def firing(self) -> list[Alert]:
        return [a for a in self.alerts() if a.status is AlertStatus.FIRING]

    def firing_by_rule(self) -> dict[str, int]:
        """Every rule's name with its count of firing alerts (0 included, so absence is visible)."""
        counts = dict.fromkeys((r.name for r in self.rules), 0)
        for alert in self.firing():
            counts[alert.key.rule] = counts.get(alert.key.rule, 0) + 1
        return counts

    def firing_paths(self) -> dict[NodePath, list[Alert]]:
        """Firing alerts by node (for a badge on the tree)."""
        paths: dict[NodePath, list[Alert]] = {}
        for alert in self.firing():
            if alert.key.path is not None:
                paths.setdefault(alert.key.path, []).append(alert)
        return paths

    # -- the pass -----------------------------------------------------------------------------------

    def evaluate(self) -> list[Transition]:
        """One pass over what changed since the last; returns (and tells listeners) the transitions."""
        now = self._clock.monotonic()
        self.passes += 1
        changed, listing_changed = self._observed.drain()
        source = self._observed.source
        judged: set[AlertKey] = set()
        transitions: list[Transition] = []
        listing = source.listing()
        rescope = listing_changed or listing is not self._listing
        self._listing = listing
        for node_rule in self._node_rules:
            todo: Iterable[NodePath] = changed
            if rescope:
                entered, left = self._rescope(node_rule, listing)
                for path in left:
                    self._judge(node_rule.rule, path, GONE.holds, GONE.value, GONE.detail, now, judged,
                                transitions)
                todo = set(changed) | entered
            for path in todo:
                if path not in node_rule.matched:
                    continue
                self.judgements += 1
                verdict = node_rule.condition.judge(source.node(path))
                self._judge(node_rule.rule, path, verdict.holds, verdict.value, verdict.detail, now, judged,
                            transitions)
        self._judge_server(now, judged, transitions)
        self._judge_markers(now, judged, transitions)
        for key in list(self._active - judged):
            self._settle(self._trackers[key], self._trackers[key].update(None, now, None, ""), transitions)
        self._tell(transitions)
        return transitions

    def _judge(self, rule: AlertRule, path: NodePath | None, holds: bool | None, value: float | None,
               detail: str, now: float, judged: set[AlertKey], transitions: list[Transition]) -> None:
        key = AlertKey(rule.name, self.server, path)
        tracker = self._trackers.get(key)
        if tracker is None:
            if not holds:
                return  # nothing to remember about a condition that does not hold
            tracker = self._trackers[key] = Tracker(rule, key)
        judged.add(key)
        self._settle(tracker, tracker.update(holds, now, value, detail), transitions)

    def _settle(self, tracker: Tracker, transition: Transition | None, transitions: list[Transition]) -> None:
        if transition is not None:
            transitions.append(transition)
            if transition.alert.status is AlertStatus.RESOLVED:
                self._resolved.append(transition.alert)
        if tracker.active:
            self._active.add(tracker.key)
        else:
            self._active.discard(tracker.key)
            if tracker.condition_since is None:
                del self._trackers[tracker.key]

    def _judge_server(self, now: float, judged: set[AlertKey], transitions: list[Transition]) -> None:
        if not self._server_rules:
            return
        last = self._observed.last_success_at
        down_for = max(0.0, now - (last if last is not None else self._started_at))
        link = self._observed.source.connection
        for rule in self._server_rules:
            verdict = server_down(rule, down_for, link.message)
            self._judge(rule, None, verdict.holds, verdict.value, verdict.detail, now, judged, transitions)

    def _judge_markers(self, now: float, judged: set[AlertKey], transitions: list[Transition]) -> None:
        if not self._marker_rules or self._audit is None:
            return
        self._audit.refresh()
        wall = self._clock.wall()
        server = self._observed.source.connection.server
        markers = server.markers if server is not None else UNKNOWN_MARKERS
        for rule, scope in self._marker_rules:
            for path, cue in self._audit.latest_cues.items():
                if scope.matches(self.server, path):
                    verdict = marker_unconfirmed(rule, cue, wall, markers)
                    self._judge(rule, path, verdict.holds, verdict.value, verdict.detail, now, judged, transitions)

    def _rescope(self, node_rule: _NodeRule, listing: Listing) -> tuple[set[NodePath], set[NodePath]]:
        """Recomputes which listed nodes the rule watches; returns (entered, left)."""
        scope = node_rule.scope
        if not scope.matches_server(self.server):
            return set(), set()
        matched: set[NodePath] = set()
        by_app: dict[tuple[str, str], tuple[AppStreams, list[NodePath]]] = {}
        level = scope.level
        for vhost, apps in listing.items():
            if level == "vhost":
                if scope.matches(self.server, NodePath(vhost)):
                    matched.add(NodePath(vhost))
                continue
            for app, streams in apps.items():
                if level == "app":
                    if scope.matches(self.server, NodePath(vhost, app)):
                        matched.add(NodePath(vhost, app))
                    continue
                cached = node_rule.by_app.get((vhost, app))
                if cached is not None and cached[0] is streams:
                    paths = cached[1]
                else:
                    paths = [NodePath(vhost, app, name) for name in scope.streams_of(vhost, app, streams.live)]
                by_app[(vhost, app)] = (streams, paths)
                matched.update(paths)
        entered, left = matched - node_rule.matched, node_rule.matched - matched
        node_rule.matched, node_rule.by_app = matched, by_app
        return entered, left

    def _tell(self, transitions: list[Transition]) -> None:
        for transition in transitions:
            self._listeners.tell(transition)

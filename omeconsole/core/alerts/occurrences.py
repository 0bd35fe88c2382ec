"""Alerts heard rather than measured: a planned break that did not go out, or went out and was not seen.

The scheduler knows these the moment they happen (no reading shows a break that was never sent), so it
tells `Occurrences`: `happened()` when a planned break of a schedule did not go out (`schedule_missed`)
or its follow did not see it (`marker_unconfirmed`), `cleared()` when that schedule's next break to the
stream was accepted (resp. seen). Each matching `[[alerts]]` rule then goes through the same hysteresis
as the measured kinds (`Tracker`: `for`, `keep_firing_for`), and listeners hear every firing and
resolution once, as from `AlertEvaluator` (the webhooks' `notifier` included). `tick()` moves the timers
on (the runner calls it on its own ticks).

One alert per (rule, server, schedule, stream): a schedule over a pattern whose streams could not be
listed has its pattern as the stream (`default/app/*`), matched against the rule's scope as text.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from omeconsole.core.alerts.rules import AlertRule, Kind
from omeconsole.core.alerts.state import Alert, AlertKey, AlertStatus, Tracker, Transition
from omeconsole.core.clock import Clock
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.model.paths import NodePath

TOLD: tuple[Kind, ...] = ("schedule_missed", "marker_unconfirmed")
"""The kinds the scheduler tells: `schedule_missed` only it can tell (`rules.HEARD_KINDS`); the exporter also
judges `marker_unconfirmed` from the audit log, so with both running a receiver hears an unseen scheduled
break twice: the exporter's alert, and the scheduler's, which names the schedule (another fingerprint)."""
KEEP_RESOLVED = 200


class Occurrences:
    """The scheduler's alerts for one server (`server`: its name, the profile else host:port)."""

    def __init__(self, rules: Sequence[AlertRule], clock: Clock, *, server: str) -> None:
        self.rules = tuple(rule for rule in rules if rule.kind in TOLD)
        self.server = server
        self._clock = clock
        self._scopes = [(rule, rule.parsed_scope) for rule in self.rules]
        self._trackers: dict[AlertKey, Tracker] = {}
        self._resolved: deque[Alert] = deque(maxlen=KEEP_RESOLVED)
        self._listeners: Listeners[[Transition]] = Listeners("schedule alerts")

    def add_listener(self, callback: Callable[[Transition], None]) -> Unsubscribe:
        return self._listeners.add(callback)

    def alerts(self) -> list[Alert]:
        """Firing first, then pending (both oldest first), then resolved (newest first)."""
        live = [t.alert for t in self._trackers.values() if t.active and t.alert is not None]
        live.sort(key=lambda a: (a.status is not AlertStatus.FIRING, a.since, a.key.rule))
        return [*live, *reversed(self._resolved)]

    def happened(self, kind: Kind, schedule: str, path: NodePath, detail: str) -> list[Transition]:
        """A planned break of `schedule` to `path` did not go out (or was not seen), for the reason `detail`."""
        now = self._clock.monotonic()
        transitions: list[Transition] = []
        for rule, scope in self._scopes:
            if rule.kind == kind and scope.matches(self.server, path):
                key = AlertKey(rule.name, self.server, path, schedule)
                tracker = self._trackers.setdefault(key, Tracker(rule, key))
                self._settle(tracker, tracker.update(True, now, None, detail), transitions)
        self._tell(transitions)
        return transitions

    def cleared(self, kind: Kind, schedule: str, path: NodePath | None, detail: str) -> list[Transition]:
        """`schedule`'s break to `path` went out (or was seen): its alerts of `kind` start to resolve. `path`
        None clears every stream of the schedule (a pattern's run that sent)."""
        now = self._clock.monotonic()
        transitions: list[Transition] = []
        for key, tracker in list(self._trackers.items()):
            if tracker.rule.kind == kind and key.schedule == schedule and (path is None or key.path == path):
                self._settle(tracker, tracker.update(False, now, None, detail), transitions)
        self._tell(transitions)
        return transitions

    def tick(self) -> list[Transition]:
        """The timers (`for`, `keep_firing_for`) checked on the clock."""
        now = self._clock.monotonic()
        transitions: list[Transition] = []
        for tracker in list(self._trackers.values()):
            self._settle(tracker, tracker.update(None, now, None, ""), transitions)
        self._tell(transitions)
        return transitions

    def _settle(self, tracker: Tracker, transition: Transition | None, transitions: list[Transition]) -> None:
        if transition is not None:
            transitions.append(transition)
            if transition.alert.status is AlertStatus.RESOLVED:
                self._resolved.append(transition.alert)
        if not tracker.active and tracker.condition_since is None:
            self._trackers.pop(tracker.key, None)

    def _tell(self, transitions: list[Transition]) -> None:
        for transition in transitions:
            self._listeners.tell(transition)

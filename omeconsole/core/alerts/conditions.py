"""What each kind of rule measures, from the readings the engine took and nothing else.

Every measure is taken between readings on the console's clock, never extrapolated past the newest
one: "no input bytes for 12 s" means two readings 12 s apart showed the same input total. A stream the
engine has not read lately is therefore not judged (a sparse reading is not an outage); the server's
own outage is `server_down`'s business. A stream that restarted (new createdTime) starts afresh.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, TypeVar

from omeconsole.core.alerts.audit_feed import CueSend
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.model.server import UNKNOWN_MARKERS, MarkerCapability

MIN_BASELINE_READINGS = 5


@dataclass(frozen=True, slots=True)
class Judgement:
    holds: bool | None
    """None: cannot tell from what is known (no reading yet, or the reading failed)."""
    value: float | None = None
    detail: str = ""


UNKNOWN = Judgement(None)
GONE = Judgement(False, None, "the stream ended")


def bits_per_second(value: float) -> str:
    for threshold, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if value >= threshold:
            return f"{value / threshold:.3g} {unit}"
    return f"{value:.0f} b/s"


def _usable(view: NodeView) -> Sample | None:
    """The newest reading when it may be judged; None for a node in trouble or never read."""
    if view.state in (NodeState.LIVE, NodeState.STALE) and view.error is None:
        return view.latest
    return None


Memory = TypeVar("Memory")


class _NodeMeasure(Generic[Memory]):
    """What every node measure shares: an ended stream is GONE (and forgotten), a node in trouble or never
    read cannot be judged, and each node has its own memory of earlier readings."""

    def __init__(self) -> None:
        self._memory: dict[NodePath, Memory] = {}

    def judge(self, view: NodeView) -> Judgement:
        if view.state is NodeState.ENDED:
            self._memory.pop(view.path, None)
            return GONE
        sample = _usable(view)
        return UNKNOWN if sample is None else self._measure(view.path, sample)

    def _measure(self, path: NodePath, sample: Sample) -> Judgement:
        raise NotImplementedError


@dataclass(slots=True)
class _Still:
    created: datetime | None
    total: int
    moved_at: float


class IngestStopped(_NodeMeasure[_Still]):
    """Input total unchanged across readings at least `after` seconds apart, on a listed stream."""

    def __init__(self, rule: AlertRule) -> None:
        super().__init__()
        self._after = rule.after or 0.0

    def _measure(self, path: NodePath, sample: Sample) -> Judgement:
        total, created = sample.stats.total_bytes_in, sample.stats.created
        if total is None:
            return UNKNOWN
        still = self._memory.get(path)
        if still is None or still.created != created or total != still.total:
            self._memory[path] = still = _Still(created, total, sample.at)
        quiet = sample.at - still.moved_at
        return Judgement(quiet >= self._after, quiet, f"no input bytes for {quiet:.0f} s")


@dataclass(slots=True)
class _Baseline:
    created: datetime | None
    rates: deque[tuple[float, float]] = field(default_factory=deque)
    last_at: float | None = None


class InputBitrateDrop(_NodeMeasure[_Baseline]):
    """The input rate below `below_percent` % of the median of the stream's own rates over `window`.

    The baseline stops learning while the condition holds, so a lasting drop keeps firing until the rate
    comes back (or the stream restarts) instead of becoming the new normal after half a window.
    """

    def __init__(self, rule: AlertRule) -> None:
        super().__init__()
        self._percent = rule.below_percent or 0.0
        self._window = rule.window or 0.0

    def _measure(self, path: NodePath, sample: Sample) -> Judgement:
        rate = sample.rate_in_bps
        if rate is None:
            return UNKNOWN
        base = self._memory.get(path)
        if base is None or base.created != sample.stats.created:
            self._memory[path] = base = _Baseline(sample.stats.created)
        if base.last_at == sample.at:
            return UNKNOWN  # judged this reading already: nothing new
        base.last_at = sample.at
        rates = base.rates
        while rates and rates[0][0] < sample.at - self._window:
            rates.popleft()
        span = sample.at - rates[0][0] if rates else 0.0
        if len(rates) < MIN_BASELINE_READINGS or span < self._window / 2:
            rates.append((sample.at, rate))
            return UNKNOWN
        median = statistics.median(r for _, r in rates)
        if median <= 0:
            rates.append((sample.at, rate))
            return Judgement(False, None, "no input to drop from")
        percent = 100 * rate / median
        holds = percent < self._percent
        if not holds:
            rates.append((sample.at, rate))
        return Judgement(holds, percent, f"input {bits_per_second(rate)}, {percent:.0f} % of its "
                                         f"median {bits_per_second(median)}")


class NoViewers(_NodeMeasure[float]):
    """No viewers (playback sessions: relays, pushes, recordings and thumbnails do not count) in every
    reading for at least `after` seconds."""

    def __init__(self, rule: AlertRule) -> None:
        super().__init__()
        self._after = rule.after or 0.0

    def _measure(self, path: NodePath, sample: Sample) -> Judgement:
        if sample.viewers is None:
            return UNKNOWN
        if sample.viewers > 0:
            self._memory.pop(path, None)
            return Judgement(False, 0.0, f"{sample.viewers} viewers")
        since = self._memory.setdefault(path, sample.at)
        empty = sample.at - since
        return Judgement(empty >= self._after, empty, f"no viewers for {empty:.0f} s")


class ViewersAbove(_NodeMeasure[None]):
    """More viewers (playback sessions: `model.audience`) than `viewers` in the newest reading."""

    def __init__(self, rule: AlertRule) -> None:
        super().__init__()
        self._limit = rule.viewers or 0

    def _measure(self, path: NodePath, sample: Sample) -> Judgement:
        if sample.viewers is None:
            return UNKNOWN
        return Judgement(sample.viewers > self._limit, float(sample.viewers),
                         f"{sample.viewers} viewers (limit {self._limit})")


NodeCondition = IngestStopped | InputBitrateDrop | NoViewers | ViewersAbove


def node_condition(rule: AlertRule) -> NodeCondition | None:
    """The per-node measure of a rule; None for the kinds that are not judged from node readings."""
    match rule.kind:
        case "ingest_stopped":
            return IngestStopped(rule)
        case "input_bitrate_drop":
            return InputBitrateDrop(rule)
        case "no_viewers":
            return NoViewers(rule)
        case "viewers_above":
            return ViewersAbove(rule)
        case _:
            return None


def server_down(rule: AlertRule, down_for: float, link_message: str) -> Judgement:
    return Judgement(down_for >= (rule.after or 0.0), down_for,
                     f"no successful read for {down_for:.0f} s ({link_message})")


def marker_unconfirmed(rule: AlertRule, cue: CueSend, now: datetime,
                       markers: MarkerCapability = UNKNOWN_MARKERS) -> Judgement:
    """The stream's newest cue: not seen in the playlist `within` seconds after it was sent.

    Never holds on a server that writes no marker (open source 0.18 to 0.20): no tag can come there, and
    what can be seen of a cue (its segment cut) is said by the send itself."""
    if markers.cuts_segment_only:
        seen = "its splice seen as a segment cut" if cue.seen_after_s is not None else "no splice seen"
        return Judgement(False, cue.seen_after_s or 0.0, f"cue-{cue.cue_type}: this server writes no marker "
                                                         f"tags, nothing to confirm in the playlist ({seen})")
    if cue.seen_after_s is not None:
        late = cue.seen_after_s > (rule.within or 0.0)
        detail = f"cue-{cue.cue_type} seen {cue.seen_after_s:.1f} s after it was sent" + (" (late)" if late else "")
        return Judgement(False, cue.seen_after_s, detail)
    age = max(0.0, (now - cue.sent_at).total_seconds())
    why = "the playlist watcher gave up" if cue.gave_up else "no confirmation in the audit log"
    answer = "" if cue.accepted else ", the server's answer never came"
    return Judgement(age >= (rule.within or 0.0), age,
                     f"cue-{cue.cue_type} sent {age:.0f} s ago not seen in the playlist ({why}{answer})")

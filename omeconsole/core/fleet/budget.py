"""One request budget for a fleet's engines, divided by what each of them uses (max-min fair).

Every engine of a fleet takes its requests from one `FleetBudget` and keeps its own back-off and link
(core/polling). The plain `TokenBucket` gives each engine that asked lately an even part of the rate,
so a server with one node on screen holds half of a two-server budget it never uses. Here each engine's
part follows its demand, measured over the last WINDOW_S seconds:

- an engine that used less than USED_UP of its part gets what it used plus HEADROOM (at least
  FLOOR_SHARE of the budget, so that it can start asking at once);
- an engine that has taken nothing yet (it is still connecting: detection takes several requests at
  once) counts as wanting more, and a part always holds at least those several requests; a newcomer's
  part starts with them, taken from the shared bucket, so that servers connecting together detect at
  once (`Fleet.connect` makes the burst large enough for every server's detection);
- the engines that used up their part (they would take more) share what is left evenly, each at least
  as much as an even split would give it (water-filling: nobody below its demand gets less than the
  level);
- what nobody wants is spread evenly, so the whole rate stays on offer.

An engine that stops asking (its server is down: it only probes, outside any part) leaves the
division after ACTIVE_S, and the others get its part.

Where the requests come from: while several engines ask, each takes from its own part only, and the
parts' rates add up to the budget's; the shared bucket gives an engine asking alone its tokens, a
newcomer its detection, and a server that is down its probes (one at a time, at most one per interval).
So over a stretch of time T the fleet sends at most rate * T and what the parts hold (each at most its
share of the burst, or one detection), plus, out of the shared bucket, its burst and what it refills
while it is drawn on for those few. Gating every part on the shared bucket as well made the engines
race for its tokens: an engine whose part had tokens found the bucket emptied by another and slept, and
at 10 servers the first readings came up to 2 s late and a selected node's up to 2.7 s apart
(BENCHMARKS.md).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from omeconsole.api.client import DETECTION_REQUESTS
from omeconsole.core.clock import Clock
from omeconsole.core.polling.budget import ACTIVE_S, TokenBucket

WINDOW_S = 2.0
"""How far back an engine's use is measured."""
USED_UP = 0.85
"""An engine that used this share of its part (or more) is taken to want more."""
HEADROOM = 1.5
"""A content engine gets what it used times this, so a little more demand is met at once."""
FLOOR_SHARE = 0.05
"""The least part of the rate an asking engine gets."""
FORGET_S = 60.0
"""An engine that has not asked for this long is forgotten (a closed session's engine)."""
BATCH_WAIT_S = 0.5
"""An engine waiting for a batch waits for at most this much of its part's refill (at least one request)."""


@dataclass(slots=True)
class _Part:
    asked: float
    stamp: float
    tokens: float = 0.0
    rate: float | None = None
    """Its part of the rate at the last division (None: not divided yet)."""
    taken: deque[tuple[float, int]] = field(default_factory=deque)
    ever_taken: bool = False

    def used(self, now: float) -> float:
        """Tokens per second taken over the last WINDOW_S."""
        while self.taken and self.taken[0][0] < now - WINDOW_S:
            self.taken.popleft()
        return sum(count for _, count in self.taken) / WINDOW_S


class FleetBudget(TokenBucket):
    """A `TokenBucket` whose sharers' parts follow their use (see the module docstring)."""

    def __init__(self, clock: Clock, rate: float, capacity: float | None = None) -> None:
        super().__init__(clock, rate, capacity)
        self._burst = capacity if capacity is not None else max(1.0, rate)
        self._parts: dict[int, _Part] = {}

    def part(self, sharer: object) -> float | None:
        """`sharer`'s part of the rate, requests per second, at the last division (None: it asks alone,
        or has not asked)."""
        part = self._parts.get(id(sharer))
        return None if part is None else part.rate

    def allowance(self, sharer: object) -> int:
        now = self._clock.monotonic()
        part = self._parts.get(id(sharer))
        if part is None:
            part = self._parts[id(sharer)] = _Part(asked=now, stamp=now)
        part.asked = now
        active = [p for p in self._parts.values() if now - p.asked <= ACTIVE_S]
        if len(active) <= 1:
            part.rate = None
            part.stamp = now
            return self.available()
        self._divide(active, now)
        return int(part.tokens + 1e-9)

    def take(self, wanted: int, sharer: object | None = None) -> int:
        if sharer is None:
            return super().take(wanted)
        granted = max(0, min(wanted, self.allowance(sharer)))
        part = self._parts[id(sharer)]
        if part.rate is None:  # asking alone: from the shared bucket
            super().take(granted)
        part.tokens = max(0.0, part.tokens - granted)
        if granted:
            part.taken.append((self._clock.monotonic(), granted))
            part.ever_taken = True
        return granted

    def seconds_until(self, tokens: int = 1, sharer: object | None = None) -> float:
        """For an engine with a part: until its part holds the batch, or BATCH_WAIT_S of its refill (a
        small part would wait seconds for a whole batch). The shared bucket says nothing about a part:
        an engine waiting on it woke every 50 ms, its part still empty (10 servers: 4 % of a core)."""
        part = self._parts.get(id(sharer)) if sharer is not None else None
        if part is None or not part.rate:
            return super().seconds_until(tokens)
        now = self._clock.monotonic()
        held = min(self._part_capacity(part.rate), part.tokens + (now - part.stamp) * part.rate)
        wanted = max(1.0, min(float(tokens), part.rate * BATCH_WAIT_S))
        return max(0.0, wanted - held) / part.rate

    def _divide(self, active: list[_Part], now: float) -> None:
        rate = self.shared_rate
        floor = rate * FLOOR_SHARE
        demands: list[tuple[float, int, _Part]] = []
        for index, part in enumerate(active):
            used = part.used(now)
            wants_more = part.rate is None or not part.ever_taken or used >= USED_UP * part.rate
            demands.append((math.inf if wants_more else max(floor, used * HEADROOM), index, part))
        demands.sort(key=lambda item: (item[0], item[1]))
        remaining = rate
        given: list[tuple[_Part, float]] = []
        for position, (demand, _, part) in enumerate(demands):
            level = remaining / (len(demands) - position)
            share = min(demand, level)
            given.append((part, share))
            remaining -= share
        spare = max(0.0, remaining) / len(given)
        for part, share in given:
            part_rate = share + spare
            if part.rate is None:  # new, or was alone: a newcomer's detection at once, out of the shared bucket
                part.tokens = 0.0 if part.ever_taken else float(super().take(DETECTION_REQUESTS))
            else:
                part.tokens = min(self._part_capacity(part_rate), part.tokens + (now - part.stamp) * part.rate)
            part.rate = part_rate
            part.stamp = now
        self._forget(now)

    def _part_capacity(self, part_rate: float) -> float:
        """A part holds its share of the burst, and at least what an engine takes at once to connect."""
        return max(float(DETECTION_REQUESTS), self._burst * part_rate / self.rate)

    def _forget(self, now: float) -> None:
        if len(self._parts) > 64 or any(now - p.asked > FORGET_S for p in self._parts.values()):
            self._parts = {key: p for key, p in self._parts.items() if now - p.asked <= FORGET_S}

"""Request pacing: a token bucket for the global request budget, and jittered back-off.

The engine asks the bucket before each request it plans; what the bucket refuses waits for a later
cycle. So the number of requests over any stretch of time T stays under budget * T + one burst,
however many streams exist and however slow the server answers. One bucket may be shared by several
engines (a fleet of servers under one budget); each engine keeps its own back-offs, and asks for its
`allowance`: an even part of the rate among the engines that asked lately, so the first to ask cannot
take it all, and an engine that stops asking (its server is down) leaves its part to the others.

`Backoff` is the one back-off of the polling package: the link's probe and a failing node's retries
both use it, with their own base and cap.
"""

from __future__ import annotations

import random

from omeconsole.core.clock import Clock

ACTIVE_S = 1.0
"""A sharer that asked within this many seconds counts when a shared bucket is divided."""


class _Share:
    """One sharer's even part of a shared bucket: its own small bucket, refilled at rate / sharers."""

    __slots__ = ("asked", "stamp", "tokens")

    def __init__(self, now: float, tokens: float) -> None:
        self.asked = self.stamp = now
        self.tokens = tokens


class TokenBucket:
    """`rate` tokens per second, holding at most `capacity` (the largest burst)."""

    def __init__(self, clock: Clock, rate: float, capacity: float | None = None) -> None:
        if rate <= 0:
            raise ValueError("the request budget must be positive")
        self._clock = clock
        self._rate = rate
        self._capacity = capacity if capacity is not None else max(1.0, rate)
        self._tokens = self._capacity
        self._stamp = clock.monotonic()
        self._shares: dict[int, _Share] = {}
        """Per sharer (by id): its part of the budget, while several ask."""

    @property
    def rate(self) -> float:
        return self._rate

    def _refill(self) -> None:
        now = self._clock.monotonic()
        self._tokens = min(self._capacity, self._tokens + (now - self._stamp) * self._rate)
        self._stamp = now

    def available(self) -> int:
        self._refill()
        return int(self._tokens + 1e-9)

    def _active(self, now: float) -> list[_Share]:
        return [share for share in self._shares.values() if now - share.asked <= ACTIVE_S]

    def allowance(self, sharer: object) -> int:
        """What `sharer` may take now: all that is there while it asks alone; while several asked in the
        last ACTIVE_S seconds, its even part (its own bucket refilled at rate / sharers), so the first
        to ask cannot take it all, and a sharer that stops asking leaves its part to the others."""
        now = self._clock.monotonic()
        share = self._shares.get(id(sharer))
        if share is None:
            share = self._shares[id(sharer)] = _Share(now, 0.0)
        share.asked = now
        active = self._active(now)
        if len(active) <= 1:
            return self.available()
        for each in active:
            each.tokens = min(self._capacity / len(active), each.tokens + (now - each.stamp) * self._rate / len(active))
            each.stamp = now
        return min(self.available(), int(share.tokens + 1e-9))

    def take(self, wanted: int, sharer: object | None = None) -> int:
        """Grants up to `wanted` whole tokens now (of `sharer`'s allowance when given); returns how many."""
        granted = max(0, min(wanted, self.available() if sharer is None else self.allowance(sharer)))
        self._tokens -= granted
        share = self._shares.get(id(sharer)) if sharer is not None else None
        if share is not None:
            share.tokens -= granted
        return granted

    def seconds_until(self, tokens: int = 1, sharer: object | None = None) -> float:
        """Seconds until `tokens` are there. `sharer`: who will ask (its part of a shared bucket may fill
        at another pace: a subclass dividing the bucket otherwise answers for it; here the bucket's)."""
        self._refill()
        missing = tokens - self._tokens
        return 0.0 if missing <= 0 else missing / self._rate


class Backoff:
    """Exponential back-off with jitter: base * 2^n, capped, scaled by a random 50-100 %."""

    __slots__ = ("_rng", "base", "cap", "failures")

    def __init__(self, base: float = 1.0, cap: float = 30.0, rng: random.Random | None = None) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0
        self._rng = rng or random.Random()

    def next_delay(self) -> float:
        """Counts one more failure and returns how long to wait before trying again."""
        delay = min(self.cap, self.base * (2 ** min(self.failures, 16)))
        self.failures += 1
        return float(delay) * self._rng.uniform(0.5, 1.0)

    def reset(self) -> None:
        self.failures = 0

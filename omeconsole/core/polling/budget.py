"""Request pacing: a token bucket for the global request budget, and jittered back-off.

The engine asks the bucket before each request it plans; what the bucket refuses waits for a later
cycle. So the number of requests over any stretch of time T stays under budget * T + one burst,
however many streams exist and however slow the server answers. One bucket may be shared by several
engines (a fleet of servers under one budget); each engine keeps its own back-offs, and asks for its
`allowance`: an even part of the rate among the engines that asked lately, so the first to ask cannot
take it all, and an engine that stops asking (its server is down) leaves its part to the others.

A small part of the rate may be `reserve`d for a holder (the playlist watch: the rows on screen come
before the thousands of streams behind them): the refill fills the holder's reserve first, at its rate,
up to its capacity, and only the rest goes to the engines, so an engine that would take every token
(10,000 streams) cannot starve the holder; a reserve that is full spills over to the engines, so a
holder with nothing to read costs them nothing. Reserves and engines together stay under the one rate.

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


class _Reserve:
    """One holder's reserved part: `rate` tokens per second, holding at most `capacity`."""

    __slots__ = ("capacity", "rate", "tokens")

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self.tokens = 0.0


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
        self._reserves: dict[int, _Reserve] = {}
        """Per holder (by id): the part of the rate set aside for it (`reserve`)."""

    @property
    def rate(self) -> float:
        return self._rate

    @property
    def shared_rate(self) -> float:
        """What the engines may count on: the rate less the reserves (a full reserve gives the rest back)."""
        return self._rate - sum(reserve.rate for reserve in self._reserves.values())

    def reserve(self, holder: object, rate: float, capacity: float) -> None:
        """Sets `rate` tokens per second aside for `holder` (`take_reserved`), at most half the bucket's
        rate, holding at most `capacity`; a holder that reserves again changes its reserve (keeping what it held)."""
        self._refill()
        others = sum(r.rate for key, r in self._reserves.items() if key != id(holder))
        made = _Reserve(max(0.0, min(rate, self._rate / 2 - others)), max(1.0, capacity))
        before = self._reserves.get(id(holder))
        if before is not None:
            made.tokens = min(made.capacity, before.tokens)
        self._reserves[id(holder)] = made

    def release(self, holder: object) -> None:
        """Gives `holder`'s reserve back to the engines (what it held goes with it)."""
        self._refill()
        self._reserves.pop(id(holder), None)

    def held(self, holder: object) -> int:
        """Whole tokens `holder`'s reserve holds now (0 without one)."""
        self._refill()
        reserve = self._reserves.get(id(holder))
        return 0 if reserve is None else int(reserve.tokens + 1e-9)

    def take_reserved(self, holder: object, wanted: int) -> int:
        """Grants up to `wanted` whole tokens of `holder`'s reserve (0 without one)."""
        self._refill()
        reserve = self._reserves.get(id(holder))
        if reserve is None:
            return 0
        granted = max(0, min(wanted, int(reserve.tokens + 1e-9)))
        reserve.tokens -= granted
        return granted

    def _refill(self) -> None:
        now = self._clock.monotonic()
        elapsed = now - self._stamp
        gained = elapsed * self._rate
        for reserve in self._reserves.values():
            put = min(max(0.0, reserve.capacity - reserve.tokens), elapsed * reserve.rate)
            reserve.tokens += put
            gained -= put
        self._tokens = min(self._capacity, self._tokens + gained)
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
        part_rate = self.shared_rate / len(active)
        for each in active:
            each.tokens = min(self._capacity / len(active), each.tokens + (now - each.stamp) * part_rate)
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
        return 0.0 if missing <= 0 else missing / self.shared_rate


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

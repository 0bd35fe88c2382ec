"""The fleet's one request budget, divided by use: sharers that act like engines (they ask for their
allowance, take what they have work for, at most a batch at a time) on a fake clock."""

from __future__ import annotations

import math

import pytest
from fake_clock import FakeClock

from omeconsole.api.client import DETECTION_REQUESTS
from omeconsole.core.fleet.budget import BATCH_WAIT_S, FleetBudget

RATE = 10.0
STEP = 0.05
BATCH = 4


class Sharer:
    """An engine's demand: `per_second` jobs become due each second (inf: always more than it may send)."""

    def __init__(self, per_second: float) -> None:
        self.per_second = per_second
        self.backlog = 0.0
        self.taken = 0
        self.asking = True

    def step(self, budget: FleetBudget) -> None:
        """What an engine's loop does when it wakes: ask, plan what is due within the allowance, take it."""
        if not self.asking:
            return
        self.backlog = min(self.backlog + self.per_second * STEP, 1000.0)
        allowed = min(BATCH, budget.allowance(self))
        if allowed <= 0:
            return
        granted = budget.take(min(allowed, math.floor(self.backlog)), self)
        self.taken += granted
        self.backlog -= granted


def run(budget: FleetBudget, clock: FakeClock, sharers: list[Sharer], seconds: float) -> list[int]:
    """Each sharer's requests over `seconds`."""
    before = [s.taken for s in sharers]
    for _ in range(round(seconds / STEP)):
        clock.advance(STEP)
        for sharer in sharers:
            sharer.step(budget)
    return [s.taken - b for s, b in zip(sharers, before, strict=True)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_a_quiet_server_keeps_what_it_uses_and_the_busy_one_gets_the_rest(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    quiet, busy = Sharer(1.0), Sharer(math.inf)
    run(budget, clock, [quiet, busy], 5)
    used_quiet, used_busy = run(budget, clock, [quiet, busy], 20)
    assert 19 <= used_quiet <= 21  # every job it had, on time
    assert used_busy >= 8 * 20  # an even split would have held it to 5/s
    assert used_quiet + used_busy <= RATE * 20 + RATE


def test_two_busy_servers_share_evenly_and_never_exceed_the_rate(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    first, second = Sharer(math.inf), Sharer(math.inf)
    used = run(budget, clock, [first, second], 30)
    assert sum(used) <= RATE * 30 + RATE
    assert min(used) >= 0.45 * sum(used)


def test_servers_quiet_for_long_then_busy_burst_at_most_what_the_budget_holds(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    first, second = Sharer(0.0), Sharer(0.0)
    run(budget, clock, [first, second], 30)  # asking, taking nothing: every part and the bucket fill up
    first.per_second = second.per_second = math.inf
    used = run(budget, clock, [first, second], 10)
    parts = 2 * max(DETECTION_REQUESTS, RATE / 2)
    assert sum(used) <= RATE * 10 + RATE + parts


def test_a_server_that_stops_asking_leaves_its_part_to_the_others(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    up, down = Sharer(math.inf), Sharer(math.inf)
    run(budget, clock, [up, down], 5)
    down.asking = False  # its link went down: it only probes, outside any part
    run(budget, clock, [up, down], 2)
    (used_up, _) = run(budget, clock, [up, down], 10)
    assert used_up >= 0.95 * RATE * 10


def test_a_quiet_server_that_gets_busy_is_given_its_share_within_seconds(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    quiet, busy = Sharer(1.0), Sharer(math.inf)
    run(budget, clock, [quiet, busy], 10)
    quiet.per_second = math.inf
    run(budget, clock, [quiet, busy], 5)
    used = run(budget, clock, [quiet, busy], 10)
    assert min(used) >= 0.4 * sum(used)


def test_alone_it_is_the_whole_bucket(clock: FakeClock) -> None:
    budget = FleetBudget(clock, RATE)
    (used,) = run(budget, clock, [Sharer(math.inf)], 10)
    assert RATE * 10 <= used <= RATE * 10 + RATE
    assert budget.part(object()) is None


def test_a_server_that_connects_late_gets_its_detection_batch_at_once(clock: FakeClock) -> None:
    """Detection takes four requests at once; a newcomer among busy servers must not wait for them forever."""
    budget = FleetBudget(clock, 20.0)
    busy = [Sharer(math.inf), Sharer(math.inf)]
    run(budget, clock, busy, 5)
    newcomer = object()
    waited = 0.0
    while budget.allowance(newcomer) < DETECTION_REQUESTS:
        clock.advance(STEP)
        waited += STEP
        for sharer in busy:
            sharer.step(budget)
        assert waited < 1.0, "the newcomer's part never held a detection's requests"
    assert budget.take(DETECTION_REQUESTS, newcomer) == DETECTION_REQUESTS


def test_ten_servers_connecting_together_all_detect_at_once(clock: FakeClock) -> None:
    """`Fleet.connect`'s burst holds every server's detection; each newcomer's part starts with one."""
    budget = FleetBudget(clock, 20.0, capacity=DETECTION_REQUESTS * 10)
    servers = [object() for _ in range(10)]
    granted = []
    for server in servers:  # each engine's first wake-up, one after the other, at the same instant
        if budget.allowance(server) >= DETECTION_REQUESTS:
            granted.append(budget.take(DETECTION_REQUESTS, server))
    assert granted == [DETECTION_REQUESTS] * 10
    assert budget.allowance(object()) == 0  # and nothing more than the burst went out


def test_an_engine_with_an_empty_part_is_told_to_wait_for_its_part_not_the_bucket(clock: FakeClock) -> None:
    """The engine sleeps until its next batch can go: with a part it is the part's refill that says when."""
    budget = FleetBudget(clock, RATE)
    first, second = Sharer(math.inf), Sharer(math.inf)
    run(budget, clock, [first, second], 5)
    part = budget.part(first)
    assert part is not None and 4.0 <= part <= 6.0
    wait = budget.seconds_until(BATCH, first)
    assert 0 < wait <= BATCH_WAIT_S  # half a second of a 5/s part: not 0 (a wake-up for nothing), not 0.8
    clock.advance(wait)
    assert budget.allowance(first) >= 1

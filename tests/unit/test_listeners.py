"""`core.listeners.Listeners`: the one registry of the engine, the evaluator, the ad operations, the ad
board, the clock tick and the session's alerts."""

from __future__ import annotations

import logging

import pytest

from omeconsole.core.listeners import Listeners, Unsubscribe


def test_listeners_hear_in_the_order_they_came_until_they_unsubscribe() -> None:
    heard: list[str] = []
    listeners: Listeners[[int]] = Listeners("test")
    stop_first = listeners.add(lambda n: heard.append(f"first {n}"))
    listeners.add(lambda n: heard.append(f"second {n}"))
    listeners.tell(1)
    stop_first()
    stop_first()  # a second call does nothing (it never removes another listener)
    listeners.tell(2)
    assert heard == ["first 1", "second 1", "second 2"] and len(listeners) == 1


def test_the_same_callable_added_twice_is_told_twice_and_each_unsubscribe_removes_one() -> None:
    heard: list[int] = []
    listeners: Listeners[[int]] = Listeners("test")
    stop_one = listeners.add(heard.append)
    listeners.add(heard.append)
    listeners.tell(1)
    stop_one()
    listeners.tell(2)
    assert heard == [1, 1, 2]


def test_a_listener_that_fails_is_logged_and_the_others_are_still_told(caplog: pytest.LogCaptureFixture) -> None:
    heard: list[int] = []
    listeners: Listeners[[int]] = Listeners("polling engine")

    def broken(_n: int) -> None:
        raise RuntimeError("a screen's bug")

    listeners.add(broken)
    listeners.add(heard.append)
    with caplog.at_level(logging.ERROR, logger="omeconsole.listeners"):
        listeners.tell(7)
    assert heard == [7]
    assert "a listener of the polling engine failed" in caplog.text and "a screen's bug" in caplog.text


def test_a_listener_that_unsubscribes_while_told_does_not_skip_the_next_one() -> None:
    heard: list[str] = []
    listeners: Listeners[[]] = Listeners("clock tick")
    stops: list[Unsubscribe] = []

    def once() -> None:
        heard.append("once")
        stops[0]()

    stops.append(listeners.add(once))
    listeners.add(lambda: heard.append("always"))
    listeners.tell()
    listeners.tell()
    assert heard == ["once", "always", "always"]

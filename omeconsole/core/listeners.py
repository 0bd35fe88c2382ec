"""One way for a producer to tell whoever listens: `Listeners`, with an unsubscribe for each listener.

The engine's updates, the alert evaluator's transitions, the ad operations' news, the console's clock
tick and the ad board each keep one. A listener that raises is logged and never stops the others, nor
the producer (a screen's bug must not stop the polling).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")

Unsubscribe = Callable[[], None]
"""Stops one listener (calling it again does nothing)."""

log = logging.getLogger("omeconsole.listeners")


class Listeners(Generic[P]):
    """Callables told in the order they were added; `Listeners[[EngineUpdate]]` calls `listener(update)`."""

    def __init__(self, producer: str) -> None:
        """`producer`: named in the log when a listener fails."""
        self._producer = producer
        self._listening: list[Callable[P, None]] = []

    def add(self, listener: Callable[P, None]) -> Unsubscribe:
        """`listener` is told from now on, until what this returns is called."""
        self._listening.append(listener)
        added = True

        def unsubscribe() -> None:
            nonlocal added
            if added:
                added = False
                self._listening.remove(listener)

        return unsubscribe

    def tell(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Every listener, in order (one added or removed meanwhile counts from the next time)."""
        for listener in tuple(self._listening):
            try:
                listener(*args, **kwargs)
            except Exception:
                log.exception("a listener of the %s failed", self._producer)

    def __len__(self) -> int:
        return len(self._listening)

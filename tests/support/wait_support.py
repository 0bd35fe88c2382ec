"""Waiting for the screen to stand still, on events rather than time.

`pilot.pause()` waits for the messages already queued and paints; what a widget asked to do once painted
(`call_after_refresh`: the tree lays itself out again when its first paint found badges wider than it had
room for) may run inside that pause on a quiet machine, or after it on a busy one. Tests that count paints
start from the screen after that work, whatever the load.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.worker import WorkerCancelled


async def settled(pilot: Pilot[Any]) -> None:
    """Return once the screen is painted, what its widgets queued for after that paint (`call_after_refresh`)
    has run, and what that changed is painted too."""
    await pilot.pause()
    ran = asyncio.Event()
    pilot.app.screen.call_after_refresh(ran.set)  # runs after the callbacks queued before it, in order
    await ran.wait()
    await pilot.pause()


def work_pending(app: App[Any]) -> bool:
    """Whether a message waits in a queue of the app or of a widget of its screens, or a callback waits for
    a screen's next paint: what the screen shows (and tells the engine is on screen) may still change."""
    screens = app.screen_stack  # (Textual has no public probe of a screen's after-paint callbacks)
    return any(screen._callbacks for screen in screens) or any(
        node.message_queue_size for node in (app, *(n for s in screens for n in s.walk_children(with_self=True))))


async def still(pilot: Pilot[Any]) -> None:
    """Return once nothing is left to do: `settled`, again, until no message or after-paint callback waits
    (a handler's message, such as the tree's rows on screen told after its paint, comes one pause later)."""
    for _ in range(100):
        await settled(pilot)
        if not work_pending(pilot.app):
            return
    raise AssertionError("the screen never stood still: messages keep coming")


async def palette_searched(pilot: Pilot[Any], *keys: str) -> None:
    """Open the command palette, type `keys`, and return once its search has ended: the palette searches in
    workers of its own, which a pause alone may or may not see finish (Enter before then selects nothing)."""
    await pilot.press("ctrl+p", *keys)
    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette), palette
    while searches := [w for w in pilot.app.workers if w.node is palette and w.is_running]:
        for search in searches:
            with contextlib.suppress(WorkerCancelled):  # a later keystroke's search replaced it
                await search.wait()
    await pilot.pause()


async def until(pilot: Pilot[Any], condition: Callable[[], bool], guard_s: float = 30.0) -> None:
    """Pause until `condition` holds (for what Textual does on a real-time timer); the guard is no timing."""
    deadline = time.monotonic() + guard_s
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        await pilot.pause()


async def resized(pilot: Pilot[Any], width: int, height: int) -> None:
    """Resize the terminal and return once the screen has the new size, settled: the app takes a resize on
    a real-time timer (1/120 s, merging a burst of them), which a pause may or may not see fire."""
    await pilot.resize_terminal(width, height)
    await until(pilot, lambda: pilot.app.screen.outer_size == (width, height))
    await settled(pilot)

"""Waiting for the screen to stand still, on events rather than time.

`pilot.pause()` waits for the messages already queued and paints; what a widget asked to do once painted
(`call_after_refresh`: the tree lays itself out again when its first paint found badges wider than it had
room for) may run inside that pause on a quiet machine, or after it on a busy one. Tests that count paints
start from the screen after that work, whatever the load.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widget import Widget
from textual.worker import WorkerCancelled


async def settled(pilot: Pilot[Any], widget: Widget) -> None:
    """Return once `widget` is painted, what it queued for after its paint has run, and its result is painted."""
    await pilot.pause()
    ran = asyncio.Event()
    widget.call_after_refresh(ran.set)  # runs after the callbacks queued before it, in order
    await ran.wait()
    await pilot.pause()


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

"""A pytest plugin that makes a quiet machine behave like a busy one for Pilot tests: `pilot.pause()` stops
waiting for an idle CPU and returns after one turn of the event loop, as it can when other programs hold
the cores. A test that passes only because a pause happened to last long enough fails here every time.

    .venv/bin/pytest -p busy_pilot tests/tui/test_widgets_tree.py
"""

from __future__ import annotations

import asyncio

import textual.pilot


async def _one_turn(*_args: object, **_options: object) -> None:
    await asyncio.sleep(0)


textual.pilot.wait_for_idle = _one_turn  # type: ignore[assignment]

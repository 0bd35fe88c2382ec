"""The status line for a screen that is not a live screen (the events and ended-streams screens).

A live screen redraws its `StatusBar` with its data; a screen that shows a file or the history store
has no engine reports to follow, so its bar asks for its line itself: when mounted and every second
of the console clock (the data's age, the ad-break countdown and the link move while it is open).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work

from omeconsole.core.clock import Clock
from omeconsole.ui.widgets.status_bar import StatusBar, StatusLine

TICK_S = 1.0


class TickingStatusBar(StatusBar):
    def __init__(self, line: Callable[[], StatusLine], clock: Clock, **options: Any) -> None:
        """`line`: the console's status line now (the session's, as the screen below would show it)."""
        super().__init__(**options)
        self._source = line
        self._clock = clock

    def on_mount(self) -> None:
        self.show(self._source())
        self._tick()

    @work(group="status-tick", exclusive=True, exit_on_error=False)
    async def _tick(self) -> None:
        while True:
            await self._clock.sleep(TICK_S)
            self.show(self._source())

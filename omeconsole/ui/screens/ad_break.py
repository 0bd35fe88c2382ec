"""A stream's ad-break panel as a screen of its own (key `a`), with the console's status line.

Everything comes in through the constructor: the stream's controller, the console clock, the server
context, the settings the keys need and where the status line comes from. The screen holds a
`watch()` lease from when it is mounted until it is dismissed (the playlist is read only while
someone looks), redraws when its stream's change reports arrive and on every second of the console
clock (the countdown moves), and acts on its stream with o / i / m through the same flows as any
other screen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from omeconsole.core.adops.controller import StreamController, WatchLease
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.bindings import AD_BREAK, ADOPS_BINDINGS, STREAM_ACTIONS
from omeconsole.ui.adops.changes import AdOpsChanged
from omeconsole.ui.adops.dialogs import CSS_PATH as DIALOGS_CSS
from omeconsole.ui.adops.flows import cue_in_flow, cue_out_flow, id3_flow
from omeconsole.ui.adops.panel import AdBreakPanel
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.status_bar import StatusBar, StatusLine

TICK_S = 1.0


class AdBreakScreen(Screen[None]):
    CSS_PATH = str(Path(__file__).resolve().parents[1] / "adops" / DIALOGS_CSS)
    BINDINGS = [
        Binding("escape", "close", "Back", id="close_ad_break"),
        *(b for b in ADOPS_BINDINGS if b.id in STREAM_ACTIONS - {AD_BREAK}),
    ]

    def __init__(self, controller: StreamController, clock: Clock, context: ServerContext, *, settings: Settings,
                 status_line: Callable[[], StatusLine]) -> None:
        super().__init__()
        self.controller = controller
        self._clock = clock
        self._server = context
        self._settings = settings
        self._status_line = status_line
        self._lease: WatchLease | None = None

    @property
    def path(self) -> NodePath:
        return self.controller.path

    @property
    def selected(self) -> NodePath:
        """The stream this screen shows (and o / i / m act on)."""
        return self.controller.path

    def compose(self) -> ComposeResult:
        yield AdBreakPanel(id="ad-break-panel")
        yield StatusBar(id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        self._lease = self.controller.watch()
        self.draw()
        self._tick()

    def on_unmount(self) -> None:
        if self._lease is not None:
            self._lease.release()

    def on_screen_resume(self) -> None:
        self.draw()

    def on_ad_ops_changed(self, message: AdOpsChanged) -> None:
        if message.path == self.controller.path:
            self.draw()

    def draw(self) -> None:
        if self.is_mounted:
            self.query_one(AdBreakPanel).show(self.controller, self._server, self._clock.wall())
            self.query_one(StatusBar).show(self._status_line())

    @work(group="ad-break-tick", exclusive=True, exit_on_error=False)
    async def _tick(self) -> None:
        while True:
            await self._clock.sleep(TICK_S)
            self.draw()

    def action_close(self) -> None:
        self.dismiss()

    @work(group="adops", exit_on_error=False)
    async def action_cue_out(self) -> None:
        await cue_out_flow(self.app, self.controller, self._settings)

    @work(group="adops", exit_on_error=False)
    async def action_cue_in(self) -> None:
        await cue_in_flow(self.app, self.controller, self._settings)

    @work(group="adops", exit_on_error=False)
    async def action_id3(self) -> None:
        await id3_flow(self.app, self.controller, self._settings)

"""A stream's ad-break panel as a screen of its own (key `a`, or opened after a cue-out is sent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from omeconsole.core.adops.controller import WatchLease
from omeconsole.model.paths import NodePath
from omeconsole.ui.adops.panel import AdBreakPanel

if TYPE_CHECKING:
    from omeconsole.ui.adops.actions import AdOpsActions


class AdBreakScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="close_ad_break")]

    def __init__(self, path: NodePath) -> None:
        super().__init__()
        self.path = path
        self._lease: WatchLease | None = None

    @property
    def selected(self) -> NodePath:
        """The stream o / i / m act on while this screen is in front."""
        return self.path

    def compose(self) -> ComposeResult:
        yield AdBreakPanel(id="ad-break-panel")
        yield Footer()

    def on_mount(self) -> None:
        host = cast("AdOpsActions", self.app)
        self._lease = host.adops().stream(self.path).watch()  # the playlist is read while this is shown
        self.redraw()

    def on_screen_resume(self) -> None:
        self.redraw()

    def on_unmount(self) -> None:
        if self._lease is not None:
            self._lease.release()

    def redraw(self, *, tree_changed: bool = False, changed: frozenset[NodePath] | None = None) -> None:
        """Called by the app on every clock tick and by ad-ops reports (the countdown moves)."""
        if not self.is_mounted:
            return
        host = cast("AdOpsActions", self.app)
        controller = host.adops().stream(self.path)
        self.query_one(AdBreakPanel).show(controller, read_only=controller.read_only, last_id3=controller.last_id3)

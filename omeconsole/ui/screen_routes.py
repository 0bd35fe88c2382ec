"""The app's side of `ui/open_requests.py`: it builds the screen a request names and shows it.

Screens post requests; only this module imports the screens they open, each when first asked for (a
rarely opened screen costs the console's start nothing). `node_screen` is the one a replay's app
overrides, so that Enter in a replay opens a replayed node view wherever it is pressed.
"""

from __future__ import annotations

from textual import on
from textual.screen import Screen

from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.open_requests import (
    AskCopy,
    AskJump,
    OpenAdBreak,
    OpenAdEvents,
    OpenAlerts,
    OpenNode,
    OpenSchedules,
    ShowExported,
)
from omeconsole.ui.palette import PaletteApp
from omeconsole.ui.status import status_line


class ScreenRoutes(PaletteApp[None]):
    """Opens the screens that screens ask for (a `PaletteApp`: the console's colours parse in every theme)."""

    def node_screen(self, live: LiveSession, path: NodePath) -> Screen[None]:
        """The node view of `path` (a replay's app shows its own)."""
        from omeconsole.ui.screens.node_screen import NodeScreen  # not needed before the first Enter

        return NodeScreen(live, path)

    @on(OpenNode)
    def _open_node(self, request: OpenNode) -> None:
        screen = self.node_screen(request.live, request.path)
        if request.instead:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    @on(OpenAlerts)
    def _open_alerts(self, request: OpenAlerts) -> None:
        from omeconsole.ui.screens.alerts import AlertsScreen  # rarely opened

        self.push_screen(AlertsScreen(request.live, request.evaluators))

    @on(OpenSchedules)
    def _open_schedules(self, request: OpenSchedules) -> None:
        from omeconsole.ui.screens.schedules import SchedulesScreen  # rarely opened

        self.push_screen(SchedulesScreen(request.live))

    @on(OpenAdBreak)
    def _open_ad_break(self, request: OpenAdBreak) -> None:
        from omeconsole.ui.screens.ad_break import AdBreakScreen  # loaded at the first a (or cue-out)

        live, controller = request.live, request.controller
        path = controller.path
        self.push_screen(AdBreakScreen(controller, live.clock, live.context, settings=live.settings,
                                       status_line=lambda: status_line(live, path)))

    @on(OpenAdEvents)
    def _open_ad_events(self, request: OpenAdEvents) -> None:
        from omeconsole.ui.screens.ad_events import AdEventsScreen  # loaded at the first E

        live = request.live
        self.push_screen(AdEventsScreen(live.audit, live.context, live.clock, status_line=request.status_line,
                                        seen=lambda: live.ad_board.first_seen))

    @on(AskJump)
    def _ask_jump(self, request: AskJump) -> None:
        from omeconsole.ui.screens.jump_prompt import JumpPrompt  # only when asked

        self.push_screen(JumpPrompt(request.scope), request.answer)

    @on(AskCopy)
    def _ask_copy(self, request: AskCopy) -> None:
        from omeconsole.ui.screens.copy_picker import CopyPicker  # only when asked

        self.push_screen(CopyPicker(request.choices))

    @on(ShowExported)
    def _show_exported(self, request: ShowExported) -> None:
        from omeconsole.ui.screens.prompts import ExportDone  # not needed until the first export

        self.push_screen(ExportDone(request.what, request.paths))

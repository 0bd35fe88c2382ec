"""What the console's screens use of the ad-ops UI (`omeconsole/ui/adops/`), all in this one module.

The package gives one entry point per action (`cue_out_flow(app, controller, settings) -> SendOutcome |
None`, `cue_in_flow`, `id3_flow`: the dialogs, the plan shown with its warnings, one send, one toast)
and the bindings. This module relays the session's ad-ops changes to the screens that show them; the
ad-break and events screens are opened by the app (`ui/screen_routes.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.app import App

from omeconsole.core.adops.controller import SendOutcome, StreamController
from omeconsole.core.config import Settings
from omeconsole.live.session import LiveSession
from omeconsole.ui import adops
from omeconsole.ui.adops import ADOPS_BINDINGS, relay_changes

__all__ = ["ADOPS_BINDINGS", "SEND_GROUP", "Flow", "cue_in_flow", "cue_out_flow", "id3_flow", "relay"]

SEND_GROUP = "adops-send"
"""The worker group a screen runs a flow in."""

Flow = Callable[[App[Any], StreamController, Settings], Awaitable[SendOutcome | None]]


# The flows and screens are the package's, loaded at the first key press that runs or opens one (they cost
# the console's start nothing): these entry points look them up only when called.

async def cue_out_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    return await adops.cue_out_flow(app, controller, settings)


async def cue_in_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    return await adops.cue_in_flow(app, controller, settings)


async def id3_flow(app: App[Any], controller: StreamController, settings: Settings) -> SendOutcome | None:
    return await adops.id3_flow(app, controller, settings)


def relay(app: App[Any], live: LiveSession) -> None:
    """The session's ad-ops changes reach every screen of `app` (the ad-break and events screens redraw)."""
    relay_changes(app, live.ad_board.add_listener)

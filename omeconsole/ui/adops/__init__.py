"""Ad operations in the console: the keys o / i / m / a / E, their flows, dialogs, panel and screens.

A screen that shows a stream adds `ADOPS_BINDINGS` to its bindings and runs `cue_out_flow`,
`cue_in_flow` or `id3_flow` from its actions (in a worker), opens `AdBreakScreen` and
`AdEventsScreen` (the palette offers the keys' bindings). A session's changes reach the
screens through `relay_changes`. Nothing here knows the app.

The bindings and the change relay are what a first screen needs; the flows, dialogs, panel and screens
load when first asked for (a key press), so they cost the console's start nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from omeconsole.ui.adops.bindings import ADOPS_BINDINGS, STREAM_ACTIONS
from omeconsole.ui.adops.changes import AdOpsChanged, relay_changes

if TYPE_CHECKING:
    from omeconsole.ui.adops.break_screen import AdBreakScreen
    from omeconsole.ui.adops.events_screen import AdEventsScreen
    from omeconsole.ui.adops.flows import cue_in_flow, cue_out_flow, id3_flow
    from omeconsole.ui.adops.panel import break_badge

__all__ = ["ADOPS_BINDINGS", "STREAM_ACTIONS", "AdBreakScreen", "AdEventsScreen", "AdOpsChanged", "break_badge",
           "cue_in_flow", "cue_out_flow", "id3_flow", "relay_changes"]

_LOADED_WHEN_ASKED = {"AdBreakScreen": "break_screen", "AdEventsScreen": "events_screen", "cue_in_flow": "flows",
                      "cue_out_flow": "flows", "id3_flow": "flows", "break_badge": "panel"}


def __getattr__(name: str) -> Any:
    module = _LOADED_WHEN_ASKED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

"""Ad operations in the console: the keys o / i / m / a / E, their flows, dialogs and panel.

A screen that shows a stream adds `ADOPS_BINDINGS` to its bindings and runs `cue_out_flow`,
`cue_in_flow` or `id3_flow` from its actions (in a worker); it asks the app for the ad-break and events
screens (`ui/screens/ad_break.py`, `ui/screens/ad_events.py`, through `ui/open_requests.py`). A
session's changes reach the screens through `relay_changes`. Nothing here knows the app or a screen
other than its own dialogs.

The bindings and the change relay are what a first screen needs; the flows, dialogs and panel load
when first asked for (a key press), so they cost the console's start nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from omeconsole.ui.adops.bindings import ADOPS_BINDINGS, STREAM_ACTIONS
from omeconsole.ui.adops.changes import AdOpsChanged, relay_changes

if TYPE_CHECKING:
    from omeconsole.ui.adops.flows import cue_in_flow, cue_out_flow, id3_flow
    from omeconsole.ui.adops.panel import break_badge

__all__ = ["ADOPS_BINDINGS", "STREAM_ACTIONS", "AdOpsChanged", "break_badge", "cue_in_flow", "cue_out_flow", "id3_flow",
           "relay_changes"]

_LOADED_WHEN_ASKED = {"cue_in_flow": "flows", "cue_out_flow": "flows", "id3_flow": "flows", "break_badge": "panel"}


def __getattr__(name: str) -> Any:
    module = _LOADED_WHEN_ASKED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

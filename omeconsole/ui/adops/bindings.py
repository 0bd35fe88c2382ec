"""The ad-ops keys: one binding per action, each with an id (for `[keymap]` and `?`) and a description.

Screens that show a stream put `ADOPS_BINDINGS` in their `BINDINGS` and implement the actions
(`action_cue_out` runs `flows.cue_out_flow` in a worker, and so on); whether a key shows in the
footer is decided by the screen from its selection (a stream only), so the bindings say `show=True`.
"""

from __future__ import annotations

from textual.binding import Binding

CUE_OUT, CUE_IN, ID3, AD_BREAK, AD_EVENTS = "cue_out", "cue_in", "id3", "ad_break", "ad_events"

ADOPS_BINDINGS: list[Binding] = [
    Binding("o", CUE_OUT, "Cue-out", id=CUE_OUT, tooltip="Start an ad break on the selected stream"),
    Binding("i", CUE_IN, "Cue-in", id=CUE_IN, tooltip="End the selected stream's ad break now"),
    Binding("m", ID3, "ID3", id=ID3, tooltip="Send ID3 timed metadata to the selected stream"),
    Binding("a", AD_BREAK, "Ad break", id=AD_BREAK,
            tooltip="The selected stream's ad-break panel: state, countdown, live playlist"),
    Binding("E", AD_EVENTS, "Events", id=AD_EVENTS, tooltip="Every event sent, this run and earlier ones (audit log)"),
]
STREAM_ACTIONS = frozenset({CUE_OUT, CUE_IN, ID3, AD_BREAK})
"""The actions that need a stream selected (the events list does not)."""

"""Keys as data: remapping (`[keymap]`), the help sections, and actions that follow the selection.

- Remapping: Textual applies a keymap through `App.set_keymap`; an id it does not know is silently
  ignored, so the console checks the ids first and tells the user about typos instead.
- Help sections: every binding id the console declares belongs to one section of `?` (navigate,
  view, ad ops, app); a test holds every id to having one.
- Selection actions: some actions only make sense on a node of some level (a cue-out on a stream).
  `SelectionActions.check_action` hides their bindings from the footer, and keeps them from running,
  unless the selection is of that level; so the footer shows `o i m a` on a stream and not on a host.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode

from omeconsole.model.paths import Level, NodePath


def binding_ids(owners: Iterable[type[DOMNode]]) -> set[str]:
    """Every binding id declared by these apps, screens and widgets."""
    return {b.id for owner in owners for b in owner.BINDINGS if isinstance(b, Binding) and b.id}


def split_keymap(keymap: Mapping[str, str], known: set[str]) -> tuple[dict[str, str], list[str]]:
    """(the entries to apply, the unknown ids in order)."""
    return {k: v for k, v in keymap.items() if k in known}, sorted(set(keymap) - known)


class HelpSection(enum.Enum):
    NAVIGATE = "navigate"
    VIEW = "view"
    AD_OPS = "ad ops"
    APP = "app"
    OTHER = "other"


_SECTION_IDS: dict[HelpSection, tuple[str, ...]] = {
    HelpSection.NAVIGATE: ("cursor_down", "cursor_up", "collapse", "expand", "toggle_branch", "page_down",
                           "page_up", "cursor_first", "cursor_last", "open", "back"),
    HelpSection.VIEW: ("filter", "clear_filter", "sort", "chart_window", "chart_window_back", "pause", "refresh",
                       "interval_longer", "interval_shorter"),
    HelpSection.AD_OPS: ("cue_out", "cue_in", "id3", "ad_break", "ad_events", "reload_ad_events",
                         "close_ad_break", "close_ad_events", "close_ad_event", "send_id3", "add_id3_frame",
                         "cancel_cue_out", "cancel_id3", "confirm_send", "refuse_send"),
    HelpSection.APP: ("export", "help", "close_help", "quit", "command_palette", "cancel_prompt", "close_export"),
}
HELP_SECTIONS: Mapping[str, HelpSection] = {
    binding_id: section for section, ids in _SECTION_IDS.items() for binding_id in ids}
"""The section of `?` each binding id is listed under; an id missing here goes to OTHER."""


SELECTION_ACTIONS: Mapping[str, frozenset[Level]] = {
    "cue_out": frozenset({"stream"}),
    "cue_in": frozenset({"stream"}),
    "id3": frozenset({"stream"}),
    "ad_break": frozenset({"stream"}),
    "export": frozenset({"vhost", "app", "stream"}),
}
"""Actions that act on the selected node, and the levels they act on."""


def action_applies(action: str, selected: NodePath | None) -> bool:
    """Whether `action` makes sense with `selected` (actions not tied to a selection always do)."""
    levels = SELECTION_ACTIONS.get(action)
    return levels is None or (selected is not None and selected.level in levels)


class SelectionActions:
    """Mix into an App or a Screen (before it): bindings of `SELECTION_ACTIONS` show in the footer, and
    run, only while the selection is of their level.

    The host says what is selected (`selected_node`) and calls `selection_changed()` when that changes,
    so the footer follows the cursor. Declare those bindings with `show=True`.
    """

    def selected_node(self) -> NodePath | None:
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action_applies(action, self.selected_node())

    def selection_changed(self) -> None:
        node = self
        assert isinstance(node, DOMNode), "SelectionActions mixes into an App or a Screen"
        node.refresh_bindings()

"""Every key of the console as a named action: one registry the bindings, the footer, `?` and ctrl+p read.

Each action has an id (the `[keymap]` name), default keys, a description and a longer detail, the
section of `?` it is listed under, and, for actions that act on the selected node, the levels it
acts on. Widgets, screens and the app declare their keys as `bindings("pause", "refresh", ...)`,
so nothing is described twice and `?` cannot drift from the keys (Harlequin's and Posting's way).

The ad-ops keys are the ad-ops package's bindings (`adops_seam.ADOPS_BINDINGS`), adopted here with
their section and the level they act on (a stream), so the footer shows `o i m a` on a stream only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from omeconsole.model.paths import Level, NodePath
from omeconsole.ui.adops.bindings import ADOPS_BINDINGS
from omeconsole.ui.keymap import HelpSection

STREAM: frozenset[Level] = frozenset({"stream"})
ANY_NODE: frozenset[Level] = frozenset({"vhost", "app", "stream"})


@dataclass(frozen=True)
class ConsoleAction:
    id: str
    keys: str
    """Default keys, comma-separated, as Textual writes them ("down,j")."""
    action: str
    """The Textual action string the keys run ("chart_window(1)")."""
    description: str
    section: HelpSection
    detail: str = ""
    levels: frozenset[Level] | None = None
    """The levels of selected node the action acts on; None: it does not depend on the selection."""
    show: bool = True
    """In the footer (while it applies)."""
    key_display: str | None = None
    priority: bool = False
    """Before the focused widget's own use of the keys (the replay's arrows over the tree's)."""

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.description, show=self.show, key_display=self.key_display,
                       id=self.id, tooltip=self.detail, priority=self.priority)

    def applies_to(self, selected: NodePath | None) -> bool:
        return self.levels is None or (selected is not None and selected.level in self.levels)


TABLE_SORT_KEYS = (
    ("server", "E", "server (a fleet's table)"), ("stream", "N", "stream name"), ("state", "T", "state"),
    ("input", "P", "input protocol"), ("viewers", "V", "viewers"), ("in", "I", "input rate"),
    ("out", "O", "output rate"), ("uptime", "U", "uptime"), ("ad", "B", "ad break"), ("alerts", "L", "alerts"),
    ("age", "D", "data age"),
)
"""The streams table's sort keys (k9s: shift and a letter of the column): column id, key, what it sorts by."""

N, V, AD, APP = HelpSection.NAVIGATE, HelpSection.VIEW, HelpSection.AD_OPS, HelpSection.APP

_OWN = (
    # Navigate: the tree's keys, then the screens'.
    ConsoleAction("cursor_down", "down,j", "cursor_down", "Down", N, show=False),
    ConsoleAction("cursor_up", "up,k", "cursor_up", "Up", N, show=False),
    ConsoleAction("collapse", "left,h", "collapse", "Collapse / parent", N,
                  "Close the branch under the cursor, or go to its parent", show=False),
    ConsoleAction("expand", "right,l", "expand", "Expand / child", N,
                  "Open the branch under the cursor, or go to its first child", show=False),
    ConsoleAction("toggle_branch", "space", "toggle_branch", "Open or close branch", N, show=False),
    ConsoleAction("page_down", "pagedown", "page_down", "Page down", N, show=False),
    ConsoleAction("page_up", "pageup", "page_up", "Page up", N, show=False),
    ConsoleAction("cursor_first", "home,g", "first", "First", N, show=False),
    ConsoleAction("cursor_last", "end,G", "last", "Last", N, show=False),
    ConsoleAction("open", "enter", "open", "Open", N, "The node's own screen: detail and children"),
    # The same keys in every table and list (alerts, ad events, ended streams, a node's children).
    ConsoleAction("row_down", "j", "cursor_down", "Down", N, "Tables: the next row", show=False),
    ConsoleAction("row_up", "k", "cursor_up", "Up", N, "Tables: the previous row", show=False),
    ConsoleAction("row_first", "g", "scroll_top", "First", N, "Tables: the first row", show=False),
    ConsoleAction("row_last", "G", "scroll_bottom", "Last", N, "Tables: the last row", show=False),
    ConsoleAction("option_down", "j", "cursor_down", "Down", N, "Lists: the next entry", show=False),
    ConsoleAction("option_up", "k", "cursor_up", "Up", N, "Lists: the previous entry", show=False),
    ConsoleAction("option_first", "g", "first", "First", N, "Lists: the first entry", show=False),
    ConsoleAction("option_last", "G", "last", "Last", N, "Lists: the last entry", show=False),
    ConsoleAction("back", "escape", "back", "Back", N, "Return to the previous level"),
    ConsoleAction("next_server", "right_square_bracket", "next_server", "Next server", N,
                  "A fleet: the next server's tree (the status line says which server you are on)",
                  key_display="]"),
    ConsoleAction("previous_server", "left_square_bracket", "previous_server", "Previous server", N,
                  "A fleet: the previous server's tree", key_display="[", show=False),
    # View.
    ConsoleAction("filter", "slash", "filter", "Filter", V, "Show only nodes whose name contains the text"),
    ConsoleAction("clear_filter", "escape", "clear_filter", "Clear filter", V, show=False),
    ConsoleAction("jump", "colon", "jump", "Jump", N,
                  "Go to a host, application or stream by name (→ completes, Enter goes, Esc cancels)",
                  key_display=":", show=False),
    ConsoleAction("sort", "s", "cycle_sort", "Sort", V,
                  "Sort by name, viewers, input rate or output rate in turn (the status line names the order)"),
    ConsoleAction("toggle_table", "t", "toggle_table", "Table", V,
                  "The streams as a table (one row per stream, sortable by any column), or back to the tree",
                  show=False),
    *(ConsoleAction(f"table_sort_{column}", key, f"sort_column('{column}')", f"Sort by {word}", V,
                    f"Table: sort by {word} (figures busiest first, words A to Z; again: reversed)", show=False)
      for column, key, word in TABLE_SORT_KEYS),
    ConsoleAction("chart_window", "w", "chart_window(1)", "Window", V,
                  "What the charts span: 1 min, 5 min, 15 min, 1 h in turn"),
    ConsoleAction("chart_window_back", "W", "chart_window(-1)", "Shorter window", V,
                  "The charts' window, the other way round", show=False),
    ConsoleAction("pause", "p", "pause", "Pause", V, "Stop polling; the data's age keeps counting"),
    ConsoleAction("refresh", "r", "refresh", "Refresh", V,
                  "Poll what is on screen now (once, while paused); reconnect now while disconnected"),
    ConsoleAction("interval_longer", "plus", "interval_longer", "Slower", V, "Longer refresh interval",
                  show=False),
    ConsoleAction("interval_shorter", "minus", "interval_shorter", "Faster", V, "Shorter refresh interval",
                  show=False),
    # Replay (`omeconsole --replay`): time moves by these keys; the tree keeps h l g G.
    ConsoleAction("replay_back", "left", "replay_jump(-10)", "-10 s", V, "Replay: 10 s back", priority=True,
                  key_display="←"),
    ConsoleAction("replay_forward", "right", "replay_jump(10)", "+10 s", V, "Replay: 10 s forward", priority=True,
                  key_display="→"),
    ConsoleAction("replay_back_more", "shift+left", "replay_jump(-60)", "-1 min", V, "Replay: 1 min back",
                  priority=True, show=False),
    ConsoleAction("replay_forward_more", "shift+right", "replay_jump(60)", "+1 min", V, "Replay: 1 min forward",
                  priority=True, show=False),
    ConsoleAction("replay_start", "home", "replay_seek(0)", "Start", V, "Replay: the start of the replayed range",
                  priority=True, show=False),
    ConsoleAction("replay_end", "end", "replay_seek(1)", "End", V, "Replay: the end of the replayed range",
                  priority=True, show=False),
    ConsoleAction("replay_play_1x", "1", "replay_play(1)", "Play 1x", V, "Replay: play at real speed"),
    ConsoleAction("replay_play_10x", "2", "replay_play(10)", "10x", V, "Replay: play ten times faster"),
    ConsoleAction("replay_play_60x", "3", "replay_play(60)", "60x", V, "Replay: play a minute a second"),
    ConsoleAction("replay_pause", "p", "replay_pause", "Pause", V, "Replay: stop (or go on) where it is"),
    # App.
    ConsoleAction("copy", "y", "copy", "Copy", V,
                  "Send the stream's path or a playback URL to the terminal's clipboard (OSC 52)", levels=STREAM,
                  show=False),  # the playback panel's title says it: the footer keeps its hints
    ConsoleAction("export", "e", "export", "Export", APP, "Write the node's history as CSV and JSON",
                  levels=ANY_NODE),
    ConsoleAction("alerts", "A", "alerts", "Alerts", APP, "The alerts of the [[alerts]] rules, firing and resolved",
                  show=False),
    ConsoleAction("ended", "H", "ended", "Ended", APP,
                  "Every stream of this server that ended, from the history store: peak, bytes out, live time",
                  show=False),
    ConsoleAction("close_ended", "escape", "close", "Close", APP),
    ConsoleAction("schedules", "S", "schedules", "Schedules", APP,
                  "The break schedules: their next runs, who runs them; run them in this console", show=False),
    ConsoleAction("close_schedules", "escape,S", "dismiss", "Close schedules", APP),
    ConsoleAction("run_schedules", "R", "run_schedules", "Run here", APP,
                  "Run the schedules in this console (when no omeconsole scheduler holds the lock), or stop them"),
    ConsoleAction("help", "question_mark", "help", "Help", APP, "Every key, from the bindings", key_display="?"),
    ConsoleAction("quit", "q", "quit", "Quit", APP, "Leave the console"),
    ConsoleAction("interrupt", "ctrl+c", "interrupt", "Quit", APP,
                  "Leave the console; while a send is in flight, ask first", show=False),
    ConsoleAction("quit_anyway", "y", "quit_anyway", "Quit anyway", APP,
                  "Leave with the send unanswered (the audit log records its outcome as unknown)"),
    ConsoleAction("stay", "escape,n", "stay", "Stay", APP, "Stay until the send is answered"),
    ConsoleAction("close_help", "escape,question_mark,q", "dismiss", "Close help", APP),
    ConsoleAction("cancel_prompt", "escape", "cancel", "Cancel", APP),
    ConsoleAction("close_export", "escape,enter", "close", "Close", APP),
    ConsoleAction("close_alerts", "escape,A", "dismiss", "Close alerts", APP),
)

_ADOPS_LEVELS: Mapping[str, frozenset[Level] | None] = {
    "cue_out": STREAM, "cue_in": STREAM, "id3": STREAM, "ad_break": STREAM, "ad_events": None,
}


def _adopted(binding: Binding) -> ConsoleAction:
    assert binding.id is not None
    return ConsoleAction(binding.id, binding.key, binding.action, binding.description, AD, binding.tooltip,
                         levels=_ADOPS_LEVELS.get(binding.id), show=binding.id != "ad_events")


ACTIONS: Mapping[str, ConsoleAction] = {a.id: a for a in (*_OWN, *(_adopted(b) for b in ADOPS_BINDINGS))}
"""Every action of the console by id."""

SELECTION_ACTIONS: Mapping[str, ConsoleAction] = {a.action: a for a in ACTIONS.values() if a.levels is not None}
"""The actions that act on the selected node, by the Textual action name a binding runs."""


def bindings(*ids: str) -> list[BindingType]:
    """The bindings of these actions, for a BINDINGS list."""
    return [ACTIONS[ident].binding() for ident in ids]


def applies(action: str, selected: NodePath | None) -> bool:
    """Whether the Textual action `action` can run with `selected` (True for those not tied to a selection)."""
    found = SELECTION_ACTIONS.get(action)
    return found is None or found.applies_to(selected)


_DIALOG_IDS = ("reload_ad_events", "close_ad_break", "close_ad_events", "close_ad_event", "send_id3",
               "add_id3_frame", "cancel_cue_out", "cancel_id3", "confirm_send", "refuse_send")
"""Keys of the ad-ops screens and dialogs (declared there), listed under "ad ops" in `?`."""

HELP_SECTIONS: Mapping[str, HelpSection] = {
    **{ident: AD for ident in _DIALOG_IDS}, **{ident: a.section for ident, a in ACTIONS.items()},
    "command_palette": APP,
}
"""The section of `?` each binding id is listed under; an id missing here goes to OTHER."""

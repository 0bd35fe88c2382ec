"""The main screen: the node tree beside the selected node's detail, a banner and a status line.

Below 80x24 the detail panel is hidden by the stylesheet and the tree alone remains (Enter still
opens a node's full view); a hidden detail is not redrawn. The tree's rows carry the ad breaks and
alerts of their nodes; an application's or host's detail says which of its streams are on air.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Input, Static

from omeconsole.core.nearest import Jump, JumpScope, nearest_paths
from omeconsole.core.polling.engine import EngineUpdate
from omeconsole.core.stream_table import TableFacts
from omeconsole.core.text import visible
from omeconsole.core.tree_rows import Row
from omeconsole.live.playback import playback_of
from omeconsole.live.recorded_ended import REREAD_S, recorded_ended
from omeconsole.live.row_marks import node_marks
from omeconsole.live.session import LiveSession
from omeconsole.live.table_source import table_source
from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import TABLE_SORT_KEYS, bindings
from omeconsole.ui.event_source import shown_events
from omeconsole.ui.node_notes import node_notes
from omeconsole.ui.open_requests import AskJump, OpenNode
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.status_bar import Banner, StatusBar
from omeconsole.ui.widgets.stream_table import StreamTableView

WIDE_COLUMNS = 140
"""From this width the tree has room for every badge."""


class DashboardScreen(LiveScreen):
    BINDINGS = bindings("filter", "clear_filter", "sort", "jump", "toggle_table")

    filter_text: reactive[str] = reactive("", init=False)

    def __init__(self, live: LiveSession, *, select: NodePath | None = None, intro: str | None = None) -> None:
        """`select`: the node to put the cursor on once it is listed (`--select`, or the node shown
        before a reconnection). `intro`: a line above the tree (the demo's addresses and token)."""
        super().__init__(live)
        self._intro = intro
        self.recorded = recorded_ended(live)
        """The server's ended streams recorded in the history store (None: no store), for the tree."""
        self._pending = select
        self._told_missing = False
        self._opened_at = live.clock.monotonic()

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        if self._intro:
            yield Static(self._intro, id="intro", markup=False)
        yield from self.compose_above_body()
        with Horizontal(id="body"):
            yield NodeTree(id="tree")
            yield NodeDetail(id="detail", chart_gap=self.live.pace.chart_gap, fold_hint="scroll, or Enter")
        yield Input(placeholder="filter: part of a name (Esc clears)", id="filter")
        yield StatusBar(id="status")
        yield FittedFooter()

    def compose_above_body(self) -> ComposeResult:
        """What a dashboard of several servers puts between the banner and the tree (nothing here)."""
        yield from ()

    def on_resize(self) -> None:
        """The tree's columns and labels as wide as the terminal allows, from the moment it changes size (not
        from the next reading); decided once per size, so data arriving never moves the panes."""
        width = self.app.size.width
        self.query_one(NodeTree).fit_to(width, compact=width < WIDE_COLUMNS)

    def on_mount(self) -> None:
        self.on_resize()
        self.query_one("#filter", Input).display = False
        self.query_one(NodeTree).focus()
        self._read_recorded()
        self.set_interval(REREAD_S, self._read_recorded)

    def rebind(self, live: LiveSession) -> None:
        self.recorded = recorded_ended(live)
        super().rebind(live)
        self._read_recorded()

    @work(exclusive=True, group="recorded-ended", exit_on_error=False)
    async def _read_recorded(self) -> None:
        """The server's ended streams from the history store, for the tree's "ended" groups."""
        recorded = self.recorded
        if recorded is not None:
            await recorded.load()
            if recorded is self.recorded and self.in_view:
                self._draw(EngineUpdate(tree_changed=True))

    def _rows(self) -> NodeTree | StreamTableView:
        """The tree, or the streams table when `t` put it in the tree's place."""
        return self.query_one(StreamTableView) if self.has_class("-table") else self.query_one(NodeTree)

    def selected_path(self) -> NodePath | None:
        return self._rows().cursor_path

    def status_options(self) -> dict[str, str]:
        table = self.query_one(StreamTableView) if self.has_class("-table") else None
        sort = self.live.options.sort_order.value if table is None else f"table {table.order.text}"
        return {"sort": sort, "filter_text": self.filter_text}

    def showing_readings(self) -> bool:
        engine = self.live.engine
        return any(engine.node(path).latest is not None for path in self._rows().visible_paths())

    # Data ---------------------------------------------------------------------------------------------

    def redraw(self, changes: EngineUpdate) -> None:
        live = self.live
        tree = self.query_one(NodeTree)
        tree.node_order = live.options.sort_order
        recorded = self.recorded
        listing = live.engine.listing() if recorded is None else recorded.merged(live.engine.listing())
        if self.has_class("-table"):
            self.draw_table(listing)
            self.declare_on_screen()
            self._refresh_detail(self.selected_path())
            return
        laid_out = tree.show(listing, live.engine.node, live.clock.monotonic(), changes.nodes,
                             marks_of=partial(node_marks, live), ended_note=None if recorded is None else recorded.note,
                             listed=live.engine.listing_complete)
        self._try_pending(tree)
        if laid_out or changes.nodes is None:  # otherwise the same rows: a scroll or a cursor move declares its own
            self.declare_on_screen()
        self._refresh_detail(tree.cursor_path)

    def draw_table(self, listing: Listing) -> None:
        """The streams table on this server's `listing` (its recorded ended streams included)."""
        self.query_one(StreamTableView).show({"": listing}, TableFacts.single(table_source(self.live)))

    def _refresh_detail(self, path: NodePath | None) -> None:
        """The detail of `path`, the selected node (as the caller knows it)."""
        detail = self.query_one(NodeDetail)
        if not detail.display:
            return
        if path is None:
            detail.clear(self._empty_message())
            return
        live = self.live
        now = live.clock.monotonic()
        detail.show(live.chart_view(path), now, live.options.chart_window, self._notes(path),
                    shown_events(live, path, now), playback_of(live, path))

    def _notes(self, path: NodePath) -> Text | None:
        """The node's notes (ad breaks, alerts) and, for a stream that ended, its recorded life."""
        colours = self.colours
        notes = node_notes(self.live, path, colours)
        recorded = self.recorded.note(path) if self.recorded is not None and path.stream is not None else None
        if recorded is None:
            return notes
        line = Text(f"recorded: {visible(recorded)}", style=colours.get("muted", ""), no_wrap=True,
                    overflow="ellipsis")
        return line if notes is None else Text.assemble(notes, "\n", line)

    def _empty_message(self) -> str:
        line = self.query_one(NodeTree).cursor_line
        if isinstance(line, Row) and line.group:
            held = f"{line.held:,} ended stream{'s' if line.held != 1 else ''}"
            return f"{held} of {visible(str(line.path))}: Enter or → lists them, with their recorded life"
        engine = self.live.engine
        if engine.connection.status != "connected":
            return "waiting for the server…"
        if self.filter_text:
            return f"nothing matches the filter {visible(self.filter_text)!r} (Esc clears it)"
        return "no virtual hosts on this server yet" if not engine.listing() else "select a node"

    def declare_on_screen(self) -> None:
        """The rows on screen, and the applications whose stream rows are among them (listed every 10 s)."""
        rows = self._rows()
        visible_rows = rows.visible_paths(rows.home) if isinstance(rows, StreamTableView) else rows.visible_paths()
        engine = self.live.engine
        engine.set_on_screen(visible_rows, {p.parent for p in visible_rows if p.parent is not None and p.stream})
        if self._pending is None:
            engine.select(rows.cursor_path)

    def _try_pending(self, tree: NodeTree) -> None:
        """Honours `--select` once the node appears in the tree; says so once if it does not."""
        wanted = self._pending
        if wanted is None:
            return
        if tree.select_path(wanted):
            self._pending = None
            self.live.engine.select(wanted)
            return
        live = self.live
        waited = live.clock.monotonic() - self._opened_at
        if (not self._told_missing and live.engine.connection.status == "connected"
                and waited >= live.settings.listing_interval):
            self._told_missing = True
            nearest = nearest_paths(wanted, live.engine.listing())
            hint = f"; nearest: {', '.join(str(path) for path in nearest)}" if nearest else ""
            self.notify(visible(f"{wanted} is not on the server (yet){hint}. Nothing else was opened: it will be "
                                "selected when it appears"), title="--select", severity="warning", timeout=15,
                        markup=False)

    # Tree events --------------------------------------------------------------------------------------

    @on(NodeTree.Highlighted, "#tree")
    def _highlighted(self, event: NodeTree.Highlighted) -> None:
        path = event.path
        if path != self.query_one("#tree", NodeTree).cursor_path:
            return  # a highlight the cursor has already left
        if self._pending is not None and path != self._pending:
            return  # the cursor only rests here until the --select node is listed
        self.live.engine.select(path)  # None: a row that is not a node (an "ended" group, a server)
        self._refresh_detail(path)
        self.refresh_status()
        self.selection_changed()

    def on_key(self, _event: events.Key) -> None:
        self._pending = None  # the user took over the cursor: --select no longer applies

    @on(NodeTree.Opened, "#tree")
    def _opened(self, event: NodeTree.Opened | StreamTableView.Opened) -> None:
        self.post_message(OpenNode(self.live, event.path))

    @on(StreamTableView.Highlighted, "#table")
    def _table_highlighted(self, event: StreamTableView.Highlighted) -> None:
        row = self.query_one(StreamTableView).cursor_row
        if (row is None and event.path is None) or row == (event.server, event.path):  # not one the cursor left
            self.follow_row_server(event.server)
            self.live.engine.select(event.path)
            self._refresh_detail(event.path)
            self.refresh_status()
            self.selection_changed()

    @on(StreamTableView.Sorted, "#table")
    def _table_sorted(self) -> None:
        self.refresh_status()

    @on(StreamTableView.Opened, "#table")
    def _table_opened(self, event: StreamTableView.Opened) -> None:
        self.follow_row_server(event.server)
        self._opened(event)

    def follow_row_server(self, server: str) -> None:
        """The table's cursor is on a stream of `server`: a fleet's screen moves to that server (one server's
        table has only its own rows)."""

    @on(NodeTree.VisibleRowsChanged, "#tree")
    @on(StreamTableView.VisibleRowsChanged, "#table")
    def _scrolled(self, event: NodeTree.VisibleRowsChanged | StreamTableView.VisibleRowsChanged) -> None:
        if self.in_view and event.control is self._rows():  # the hidden one's rows are not on screen
            self.declare_on_screen()

    # Filter and sort ----------------------------------------------------------------------------------

    def watch_filter_text(self, value: str) -> None:
        self.query_one(NodeTree).filter_text = value
        if self.query(StreamTableView):
            self.query_one(StreamTableView).filter_text = value
        self.refresh_status()
        self._refresh_detail(self.selected_path())

    @on(Input.Changed, "#filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self._rows().focus()

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_jump(self) -> None:
        self.post_message(AskJump(self.jump_scope, self._jumped))

    def jump_scope(self) -> JumpScope:
        """What `:` searches: this server's listing (a fleet's screen adds the other servers')."""
        return JumpScope(self.live.engine.listing())

    def _jumped(self, jump: Jump | None) -> None:
        if jump is None or jump.path is None:
            return
        path = jump.path
        self._pending = None  # the operator chose where to go: --select no longer applies
        if path.level != "stream" and self.has_class("-table"):
            self._show_table(False)  # the table has streams only: a host or application is in the tree
        rows = self._rows()
        if self.filter_text and not rows.select_path(path):
            self.action_clear_filter()  # the filter hid it: show everything again
        if rows.select_path(path):
            rows.focus()
        else:
            self.say(f"{path} is no longer listed")

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if not box.display and not self.filter_text:
            return
        box.value = ""
        box.display = False
        self.filter_text = ""
        self._rows().focus()

    def action_cycle_sort(self) -> None:
        if self.has_class("-table"):
            fleet = self.query_one(StreamTableView).fleet
            keys = " ".join(key for column, key, _ in TABLE_SORT_KEYS if fleet or column != "server")
            self.say(f"the table sorts by a column's key: {keys} (again reverses; ? lists them)")
            return
        options = self.live.options
        options.sort_order = options.sort_order.next()
        self.query_one(NodeTree).node_order = options.sort_order
        self.say(f"sorted by {options.sort_order.value}")

    async def action_toggle_table(self) -> None:
        """The streams table in the tree's place, or the tree back. The table is mounted the first time it is
        asked for: a console that never shows it does not carry it."""
        if not self.query(StreamTableView):
            table = StreamTableView(id="table")
            table.filter_text = self.filter_text
            await self.query_one("#body").mount(table, after=self.query_one(NodeTree))
        self._show_table(not self.has_class("-table"))

    def _show_table(self, shown: bool) -> None:
        """The table or the tree; the selected stream stays selected."""
        selected = self.selected_path()
        self.set_class(shown, "-table")
        self._draw(EngineUpdate(tree_changed=True))
        if selected is not None and selected.level == "stream":
            self._rows().select_path(selected)
        self._rows().focus()
        self.declare_on_screen()
        self.say("streams table: a sort key per column (? lists them), t for the tree" if shown else "tree")

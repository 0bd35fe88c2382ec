"""The fleet's main screen: the fleet's totals on top, then the selected node on every server and summed
(the fleet view), then the tree with a server level (a row per server with its health and totals, the
server the operator is on open with its hosts → applications → streams) beside the detail.

It is the dashboard of one server at a time: the open server's nodes, the detail, the status line
(which names the server: host:port and profile) and every key act on that server, so a send goes to
that server only. Moving to another server (Enter or → on its row, or `]` / `[` anywhere) keeps the
selected node when that server has it (`:` and a node only another server has goes to that server);
with the cursor on a server's row the detail shows its health.
The other servers keep polling under the fleet's budget, each with its own back-off: another server's
report redraws the server rows and the fleet view (the nodes and the detail follow the current server's
own feed), so one that stops answering turns its own row red while the others stay fresh.

Every server's `[[alerts]]` rules run on its own readings: a server's row has a badge with its alerts
firing, the status line counts the fleet's, and A lists every server's alerts with their server.

The streams table (`t`) has every server's streams with a server column: the cursor on another server's
row moves the console to that server (as `]` does), so the detail, the status line and a send follow the
row; each server polls its own rows on screen; a server that stops answering keeps its rows, stale.
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.nearest import Jump, JumpScope
from omeconsole.core.polling.engine import EngineUpdate
from omeconsole.core.stream_table import TableFacts, TableRow
from omeconsole.core.tree_servers import ServerRow
from omeconsole.live.fleet import FleetLive, FleetSummary
from omeconsole.live.pace import Interval
from omeconsole.live.table_source import table_source
from omeconsole.model.nodes import Listing
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import bindings
from omeconsole.ui.open_requests import OpenAlerts
from omeconsole.ui.screens.dashboard import DashboardScreen
from omeconsole.ui.widgets.fleet_view_panel import FleetViewPanel
from omeconsole.ui.widgets.node_detail import NodeDetail
from omeconsole.ui.widgets.node_tree import NodeTree
from omeconsole.ui.widgets.server_lines import fleet_line, server_card, server_label
from omeconsole.ui.widgets.status_bar import StatusLine
from omeconsole.ui.widgets.stream_table import StreamTableView
from omeconsole.ui.widgets.tree_drawing import ServerLine


class OthersChanged(Message):
    """A server other than the one on screen reported (posted once until handled)."""


class FleetScreen(DashboardScreen):
    CSS_PATH = "../fleet.tcss"
    DEFAULT_CLASSES = "-fleet"
    """What fleet.tcss selects on: a subclass whose first base is another screen (the replay's) keeps it."""
    BINDINGS = bindings("next_server", "previous_server")

    def __init__(self, fleet: FleetLive, *, select: NodePath | None = None, intro: str | None = None) -> None:
        super().__init__(fleet.live, select=select, intro=intro)
        self.fleet = fleet
        self._others_posted = False
        self._stop_fleet: list[Unsubscribe] = []
        self._fleet_timer: Timer | None = None
        self._fleet_drawn = Interval()
        """The other servers' news: at most one redraw per redraw gap (`live/pace.py`)."""

    def compose_above_body(self) -> ComposeResult:
        yield Static(id="fleet-totals")
        yield FleetViewPanel(id="fleet-view")

    def on_mount(self) -> None:
        # Another server's report or alert redraws the rows (an alert's badge comes with its pass).
        self._stop_fleet = [self.fleet.on_others_report(self._others_report),
                            *(watch.add_listener(self._others_report) for watch in self.fleet.alert_watches())]

    def on_unmount(self) -> None:
        stop, self._stop_fleet = self._stop_fleet, []
        for unsubscribe in stop:
            unsubscribe()

    def _others_report(self) -> None:
        """Another server's news: its row and the fleet view are drawn again, once for a burst; the tree and
        the detail show the current server only and follow its own feed."""
        if not self._others_posted:
            self._others_posted = True
            self.post_message(OthersChanged())

    @on(OthersChanged)
    def _others_changed(self) -> None:
        self._others_posted = False
        if not self.in_view or self._fleet_timer is not None:
            return
        wait = self._fleet_drawn.wait(self.live.clock.monotonic(), self.live.pace.redraw_gap)
        if not wait:
            self._draw_fleet()
        else:  # a real terminal: at most one such redraw per gap, whatever the number of servers
            self._fleet_timer = self.set_timer(wait, self._draw_fleet)

    # Data ---------------------------------------------------------------------------------------------

    def redraw(self, changes: EngineUpdate) -> None:
        self._draw_rows()  # first: the tree's server level says whose nodes come next
        super().redraw(changes)  # the detail's redraw draws the fleet view

    def _refresh_detail(self, path: NodePath | None) -> None:
        if not self._show_server_card(self.fleet.summary()):
            super()._refresh_detail(path)
        self._draw_fleet_view()

    def _show_server_card(self, summary: FleetSummary) -> bool:
        """With the cursor on a server's row the detail shows the server's health; True when it does."""
        line = self.query_one(NodeTree).cursor_line
        detail = self.query_one(NodeDetail)
        if not isinstance(line, ServerRow) or not detail.display or self.has_class("-table"):
            return False
        server = next(s for s in summary.servers if s.health.profile == line.profile)
        detail.clear(server_card(server, self.palette.built_with()))
        return True

    def _draw_fleet(self) -> None:
        if self.is_mounted and self.app.is_running:
            self._draw_rows()
            if self.has_class("-table"):  # another server's rows: the rows on screen are drawn again
                self.draw_table(self.live.engine.listing())
            self._draw_fleet_view()

    def draw_table(self, listing: Listing) -> None:
        """Every server's streams as listed by its engine (the history store's ended streams are the tree's:
        rows do not come and go as the cursor moves from server to server), each server's figures its own."""
        del listing  # the current server's is its engine's, as every other server's
        lives = self.fleet.lives
        facts = TableFacts({profile: table_source(live) for profile, live in lives.items()},
                           self.live.clock.monotonic())
        self.query_one(StreamTableView).show({profile: live.engine.listing() for profile, live in lives.items()},
                                             facts, home=self.fleet.current)

    def _draw_rows(self) -> None:
        if self._fleet_timer is not None:
            self._fleet_timer.stop()
            self._fleet_timer = None
        self._fleet_drawn.drawn(self.live.clock.monotonic())
        summary = self.fleet.summary()
        self.query_one("#fleet-totals", Static).update(fleet_line(summary))
        colours = self.palette.built_with()
        self.query_one(NodeTree).show_servers(
            [ServerLine(server.health.profile, *server_label(server, colours)) for server in summary.servers],
            self.fleet.current)
        self._show_server_card(summary)

    def _draw_fleet_view(self) -> None:
        panel = self.query_one(FleetViewPanel)
        path = self.selected_path()
        if path is None or not self.query_one(NodeDetail).display:  # too small a terminal: the tree alone
            panel.clear()
        else:
            panel.show(self.fleet.view(path))

    def declare_on_screen(self) -> None:
        super().declare_on_screen()
        self.fleet.follow(self._followed(), self._others_on_screen())

    def selection_changed(self) -> None:
        super().selection_changed()
        self.fleet.follow(self._followed(), self._others_on_screen())

    def _others_on_screen(self) -> dict[str, list[NodePath]]:
        """The other servers' streams on screen (the table's rows; the tree shows the current server's only)."""
        if not self.has_class("-table"):
            return {}
        shown: dict[str, list[NodePath]] = {}
        for row in self.query_one(StreamTableView).visible_rows():
            if row.server != self.fleet.current:
                shown.setdefault(row.server, []).append(row.path)
        return shown

    def _followed(self) -> NodePath | None:
        """The node every other server reads: the selected one, or the `--select` node until it is listed
        here (the others need not wait for this server's listing to start on it)."""
        return self.selected_path() or self._pending

    def status_now(self) -> StatusLine:
        """The status line of the server the operator is on, with the whole fleet's alerts firing."""
        firing = sum(self.fleet.firing(profile) for profile in self.fleet.lives)
        return replace(super().status_now(), alerts=firing)

    def action_alerts(self) -> None:
        """Every server's alerts, each with its server."""
        watches = self.fleet.alert_watches()
        if not watches:
            self.say("no [[alerts]] rules in the config file")
            return
        self.post_message(OpenAlerts(self.live, [watch.evaluator for watch in watches]))

    # Servers ------------------------------------------------------------------------------------------

    @on(NodeTree.ServerOpened, "#tree")
    def _server_opened(self, event: NodeTree.ServerOpened) -> None:
        self.go_to_server(event.profile)

    def go_to_server(self, profile: str) -> None:
        """The tree, the detail, the status line and the keys act on `profile`'s server from now on; the
        selected node stays selected if that server has it."""
        if profile == self.fleet.current:
            return
        path = self.selected_path()
        self._switch_to(profile)
        if self.has_class("-table"):  # the same stream's row on that server, else that server's first row
            table = self.query_one(StreamTableView)
            if path is None or not table.select_row(TableRow(profile, path)):
                table.select_server(profile)
        else:
            # The highlighted row moves with the server: its node when it has it, else the server's own row
            # (never left on the server the operator just left, which the detail would then describe).
            tree = self.query_one(NodeTree)
            if path is None or not tree.select_path(path, nearest=True) or tree.cursor_path is None:
                tree.select_server(profile)
        self.selection_changed()
        self._refresh_detail(self.selected_path())

    def follow_row_server(self, server: str) -> None:
        """The table's cursor went to a row of another server: the console is on that server from now on."""
        if server and server != self.fleet.current:
            self._switch_to(server)

    def _switch_to(self, profile: str) -> None:
        self.rebind(self.fleet.switch(profile))
        self._draw_rows()  # the tree's server level: `profile`'s nodes now open under its row
        self.say(f"on server {profile} ({self.live.context.host})")

    def jump_scope(self) -> JumpScope:
        """`:` completes and finds the other servers' nodes too (a name this server has stays here)."""
        others = {member.profile: member.engine.listing() for member in self.fleet.others()}
        return JumpScope(self.live.engine.listing(), others, self.fleet.current)

    def _jumped(self, jump: Jump | None) -> None:
        if jump is not None and jump.path is not None and jump.server is not None:
            self.go_to_server(jump.server)
        super()._jumped(jump)

    def action_next_server(self) -> None:
        self._step_server(+1)

    def action_previous_server(self) -> None:
        self._step_server(-1)

    def _step_server(self, step: int) -> None:
        profiles = self.fleet.fleet.profiles
        self.go_to_server(profiles[(profiles.index(self.fleet.current) + step) % len(profiles)])

"""The alerts of the `[[alerts]]` rules: firing first, then pending, then the recently resolved; within
each, critical before warning before info, then the oldest first (the latest resolved first).

Each row says the state (a firing alert whose condition is gone: "resolving (keep-firing 0:24)"),
severity, rule, node, when it fired, for how long, and the measured value against the rule's threshold;
the highlighted alert's words, scope and timings are below the table. Enter opens the alert's node;
Escape or A closes. The screen redraws when a pass makes an alert fire or resolve and on every clock
tick (the durations move). It changes nothing of what is polled: the screen below keeps its nodes fresh.

On a fleet it lists every server's alerts, each node after its server's name (`edge-1:default/app/news`);
Enter opens a node of the server the operator is on (another server's: move there first, `]` / `[`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.state import Alert, AlertStatus
from omeconsole.core.polling.engine import EngineUpdate
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import bindings
from omeconsole.ui.alert_rows import detail_text, row_cells
from omeconsole.ui.open_requests import OpenNode
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.keyed_lists import KeyedTable
from omeconsole.ui.widgets.status_bar import Banner, StatusBar

STATE_ORDER = {AlertStatus.FIRING: 0, AlertStatus.PENDING: 1, AlertStatus.RESOLVED: 2}
SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}
COLUMNS = ("state", "severity", "rule", "node", "fired", "for", "value / threshold")


def _row_key(alert: Alert) -> str:
    return f"{alert.fingerprint}:{alert.status.value}:{alert.since!r}"


class AlertsScreen(LiveScreen):
    BINDINGS = bindings("close_alerts")

    def __init__(self, live: LiveSession, evaluators: Sequence[AlertEvaluator] = ()) -> None:
        """`evaluators`: every server's (a fleet's), else `live`'s alone."""
        super().__init__(live)
        own = [live.alerts] if live.alerts is not None else []
        self.evaluators: list[AlertEvaluator] = list(evaluators) or own
        assert self.evaluators, "the alerts screen needs [[alerts]] rules"
        self._servers = len(self.evaluators) > 1
        self._alerts: dict[str, Alert] = {}
        self._drawn: list[tuple[str, tuple[Text, ...]]] = []
        self._columns: list[ColumnKey] = []

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        yield Static(id="alerts-summary", markup=False)
        yield KeyedTable(id="alerts", cursor_type="row", zebra_stripes=True)
        yield Static(id="alert-detail", markup=False)
        yield StatusBar(id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self._columns = table.add_columns(*COLUMNS)
        table.focus()

    # What the screen says about itself ----------------------------------------------------------------

    def highlighted(self) -> Alert | None:
        table = self.query_one(DataTable)
        if not self._drawn or not 0 <= table.cursor_row < len(self._drawn):
            return None
        return self._alerts.get(self._drawn[table.cursor_row][0])

    def selected_path(self) -> NodePath | None:
        alert = self.highlighted()
        return alert.key.path if alert is not None else None

    def declare_on_screen(self) -> None:
        """Nothing of its own: what the screen below polls stays polled (its alerts keep being judged)."""

    # Drawing ------------------------------------------------------------------------------------------

    def redraw(self, changes: EngineUpdate) -> None:
        live = self.live
        now, wall = live.clock.monotonic(), live.clock.wall()
        colours = self.palette.built_with()
        alerts = self.alerts()
        rows = [(_row_key(a), row_cells(a, self._rule_of(a), now, wall, colours, server=self._servers))
                for a in alerts]
        self._alerts = {key: alert for (key, _), alert in zip(rows, alerts, strict=True)}
        if [key for key, _ in rows] == [key for key, _ in self._drawn]:
            self._update(rows)  # the same alerts: only their durations and values move
        else:
            self._fill(rows)
        self._drawn = rows
        self._show_summary(alerts)
        self._show_detail()

    def alerts(self) -> list[Alert]:
        """Of every server, ordered by state (firing, pending, resolved), then severity (critical first),
        then age: the longest firing or pending first, the latest resolved first."""
        alerts = [alert for evaluator in self.evaluators for alert in evaluator.alerts()]
        return sorted(alerts, key=lambda a: (STATE_ORDER[a.status], SEVERITY_ORDER[a.severity],
                                             -a.since if a.status is AlertStatus.RESOLVED else a.since,
                                             a.key.server, a.key.rule))

    def _rule_of(self, alert: Alert) -> AlertRule | None:
        evaluator = next((e for e in self.evaluators if e.server == alert.key.server), self.evaluators[0])
        return next((rule for rule in evaluator.rules if rule.name == alert.key.rule), None)

    def _update(self, rows: list[tuple[str, tuple[Text, ...]]]) -> None:
        table = self.query_one(DataTable)
        for (key, cells), (_, before) in zip(rows, self._drawn, strict=True):
            for column, cell, old in zip(self._columns, cells, before, strict=True):
                if cell != old:  # a cell grown wider ("resolving (keep-firing 0:24)") widens its column
                    table.update_cell(key, column, cell, update_width=cell.cell_len > old.cell_len)

    def _fill(self, rows: list[tuple[str, tuple[Text, ...]]]) -> None:
        table = self.query_one(DataTable)
        keep = self._drawn[table.cursor_row][0] if 0 <= table.cursor_row < len(self._drawn) else None
        table.clear()
        for key, cells in rows:
            table.add_row(*cells, key=key)
        keys = [key for key, _ in rows]
        if keep in keys:
            table.move_cursor(row=keys.index(keep), animate=False)

    def _show_summary(self, alerts: list[Alert]) -> None:
        counts = {status: sum(1 for a in alerts if a.status is status) for status in AlertStatus}
        self.query_one("#alerts-summary", Static).update(
            f"{counts[AlertStatus.FIRING]} firing · {counts[AlertStatus.PENDING]} pending · "
            f"{counts[AlertStatus.RESOLVED]} recently resolved · {len(self.evaluators[0].rules)} rule(s), judged on "
            "the nodes this console polls (omeconsole exporter watches every node)")

    def _show_detail(self) -> None:
        panel = self.query_one("#alert-detail", Static)
        alert = self.highlighted()
        if alert is None:
            panel.update("No alerts yet: a rule's alert appears here once its condition holds.")
            return
        panel.update(detail_text(alert, self._rule_of(alert), self.palette.built_with(), server=self._servers))

    # Keys ---------------------------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#alerts")
    def _highlight_moved(self) -> None:
        self._show_detail()
        self.refresh_status()
        self.selection_changed()

    @on(DataTable.RowSelected, "#alerts")
    def _open_node(self, event: DataTable.RowSelected) -> None:
        alert = self._alerts.get(str(event.row_key.value))
        if alert is None:
            return
        if alert.key.path is None:
            self.say("a server-wide alert: it has no node to open")
            return
        here = self.live.alerts
        if here is None or alert.key.server != here.server:
            self.say(f"on server {alert.key.server}: move to it (] or [) to open its node")
            return
        self.post_message(OpenNode(self.live, alert.key.path, instead=True))

    def action_alerts(self) -> None:
        """A (the key that opened it) closes it."""
        self.dismiss()

"""The fleet's level above the tree: the fleet's totals, then one row per server with its health.

A row says which server (profile, host:port), whether it answers (connected / connecting / unreachable
with the time since it last answered), what it is (edition and version), how fast (median latency),
how often it fails (errors per minute), its own totals (viewers, in and out) and a badge with the number
of its alerts firing (the fleet's line adds them up). The cursor is the
server the tree below shows: moving it sends `ServerRows.Chosen`. Names and messages came from servers
or the config: they are drawn as data (`visible`, rich Text, never markup).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from omeconsole.core import units
from omeconsole.core.fleet.health import ServerHealth
from omeconsole.core.text import visible
from omeconsole.ui.fleet_live import FleetSummary, ServerSummary
from omeconsole.ui.widgets.status_bar import CONNECTION_MARKS

COLUMNS: tuple[tuple[str, bool], ...] = (
    ("server", False), ("api", False), ("link", False), ("edition", False), ("latency", True), ("err/min", True),
    ("viewers", True), ("in", True), ("out", True))
"""Each column's heading and whether it is right-aligned (numbers are)."""
GAP = "  "


def _latency(health: ServerHealth) -> str:
    median = health.latency.median_s
    return units.NA if median is None else f"{median * 1000:.0f} ms"


def server_cells(server: ServerSummary) -> list[str]:
    """A server's cells under `COLUMNS` (only the health ones while it cannot be read)."""
    health = server.health
    symbol, word = CONNECTION_MARKS[health.status]
    what = " ".join(visible(part, 24) for part in (health.edition, health.version) if part) or units.NA
    cells = [visible(health.profile, 24), visible(health.host, 40), f"{symbol} {word}", what, _latency(health),
             f"{health.errors_per_minute:.0f}"]
    if health.reachable:
        cells += [units.count(server.viewers), units.rate(server.rate_in_bps),
                  units.rate(server.rate_out_bps)]
    return cells


def _why_not(health: ServerHealth) -> str:
    """What an unreachable server's row says in place of its totals."""
    since = health.since_success_s
    said = f"last answered {units.age(since)} ago" if since is not None else "never answered"
    return f"{said}: {visible(health.last_error, 120)}" if health.last_error else said


def server_table(servers: Sequence[ServerSummary], colours: Mapping[str, str]) -> tuple[Text, list[Text]]:
    """The heading and one row per server, in columns as wide as their widest cell."""
    cells = [server_cells(server) for server in servers]
    widths = [max([len(heading), *(len(row[index]) for row in cells if index < len(row))])
              for index, (heading, _) in enumerate(COLUMNS)]

    def line(values: Sequence[str], styles: Sequence[str]) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        for index, value in enumerate(values):
            right = COLUMNS[index][1]
            text.append(GAP if index else "")
            text.append(value.rjust(widths[index]) if right else value.ljust(widths[index]), style=styles[index])
        return text

    muted, warn = colours.get("muted", ""), colours.get("state-stale", "")
    heading = line([name for name, _ in COLUMNS], [muted] * len(COLUMNS))
    rows = []
    for server, values in zip(servers, cells, strict=True):
        health = server.health
        errors = warn if health.errors_per_minute > 0 else ""
        styles = ["bold", "", "" if health.reachable else f"bold {warn}", muted, "", errors, *[""] * 3]
        row = line(values, styles)
        if server.alerts:
            row.append(GAP + _alerts_badge(server.alerts), style=f"bold {warn}")
        if not health.reachable:
            row.append(GAP + _why_not(health), style=warn)
        rows.append(row)
    return heading, rows


def _alerts_badge(firing: int) -> str:
    return f"⚑ {firing} alert{'s' if firing != 1 else ''}"


def fleet_line(summary: FleetSummary) -> Text:
    """The fleet's own totals: servers reachable, streams, viewers, ingest and outbound rates; which servers
    the sums leave out (they could not be read)."""
    totals = summary.totals
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    line.append(f"FLEET {visible(summary.name)}", style="bold")
    line.append(f"  {summary.reachable}/{len(summary.servers)} servers reachable  {units.count(summary.streams)} "
                f"streams  viewers {units.count(totals.viewers)}  in {units.rate(totals.ingest_bps)}  "
                f"out {units.rate(totals.rate_out_bps)}")
    if summary.alerts:
        line.append(GAP + _alerts_badge(summary.alerts), style="bold")
    if totals.not_read:
        line.append(f"  (without {', '.join(visible(name) for name in totals.not_read)}: not read)", style="bold")
    return line


class ServerRows(Vertical):
    """`show(summary)` draws it; the highlighted row is the server the operator is on."""

    @dataclass
    class Chosen(Message):
        """The operator moved to another server."""

        profile: str

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._profiles: tuple[str, ...] = ()
        self._drawn: list[Text] = []

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-totals")
        yield Static(id="server-heading")
        yield OptionList(id="server-list")

    @property
    def chosen(self) -> str | None:
        highlighted = self.query_one(OptionList).highlighted
        return None if highlighted is None or highlighted >= len(self._profiles) else self._profiles[highlighted]

    def show(self, summary: FleetSummary, current: str) -> None:
        self.query_one("#fleet-totals", Static).update(fleet_line(summary))
        heading, rows = server_table(summary.servers, self.app.theme_variables)
        self.query_one("#server-heading", Static).update(heading)
        profiles = tuple(server.health.profile for server in summary.servers)
        options = self.query_one(OptionList)
        if profiles != self._profiles:
            self._profiles = profiles
            options.clear_options()
            options.add_options([Option(row, id=str(index)) for index, row in enumerate(rows)])
        else:
            for index, row in enumerate(rows):
                if index >= len(self._drawn) or row != self._drawn[index]:
                    options.replace_option_prompt_at_index(index, row)
        self._drawn = rows
        self.point_at(current)

    def point_at(self, profile: str) -> None:
        """Moves the cursor to `profile`'s row without telling anyone (the screen moved there itself)."""
        if profile in self._profiles and self.chosen != profile:
            with self.prevent(OptionList.OptionHighlighted):
                self.query_one(OptionList).highlighted = self._profiles.index(profile)

    @on(OptionList.OptionHighlighted, "#server-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        chosen = self.chosen
        if chosen is not None:
            self.post_message(self.Chosen(chosen))

    @on(OptionList.OptionSelected, "#server-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a server: on to its tree."""
        event.stop()
        self.screen.focus_next()

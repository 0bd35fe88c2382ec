"""Totals of the selected node: bytes in human units, rates and peaks, the server's own figures, times,
how often it was read and the data's age.

Unknowns read "n/a", never 0; a value the server sent broken reads "invalid"; an ended stream shows
no current rate (its peaks, totals and when it was last seen); where the server's own avg/max
throughput contradicts the console's rate, the row says so.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from omeconsole.core import units
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.readings import NodeStats

DISAGREE = "⚠ differs from ours"
TWO_COLUMNS = 84
"""Content width from which the pairs are shown in two columns."""


def _field(stats: NodeStats | None, name: str, shown: str) -> str:
    if stats is None:
        return units.NA
    return units.INVALID if name in stats.invalid else shown


def _pair(stats: NodeStats | None, kind: str) -> str:
    if stats is None:
        return units.NA
    values = [_field(stats, f"{kind}_throughput_{d}_bps", units.rate(getattr(stats, f"{kind}_throughput_{d}_bps")))
              for d in ("in", "out")]
    return " / ".join(values)


def totals_rows(view: NodeView, now: float) -> list[tuple[str, str]]:
    """The label/value pairs shown, in order."""
    latest = view.latest
    stats = latest.stats if latest is not None else None
    ended = view.state is NodeState.ENDED
    peak = units.NA
    if stats is not None:
        when = units.timestamp(stats.max_total_connection_time)
        peak = f"{units.count(stats.max_total_connections)} at {when}"
    disagree = view.server_disagrees
    rows = [
        ("bytes in", _field(stats, "total_bytes_in", units.size(stats.total_bytes_in if stats else None))),
        ("bytes out", _field(stats, "total_bytes_out", units.size(stats.total_bytes_out if stats else None))),
    ]
    if ended:
        rows.append(("rate in / out", "— (ended)"))
    else:
        rows.append(("rate in / out", f"{units.rate(view.rate_in_bps)} / {units.rate(view.rate_out_bps)}"))
    rows += [
        ("peak in / out", f"{units.rate(view.peak_rate_in_bps)} / {units.rate(view.peak_rate_out_bps)}"),
        ("server avg in / out", _pair(stats, "avg") + (f"  {DISAGREE}" if disagree else "")),
        ("server max in / out", _pair(stats, "max")),
        ("connections", "— (ended)" if ended else _field(stats, "total_connections", units.count(
            stats.total_connections if stats else None))),
        ("peak connections", peak),
        ("created", _field(stats, "created", units.timestamp(stats.created if stats else None))),
    ]
    if ended and view.last_seen_at is not None:
        rows.append(("ended", f"last seen {units.age(now - view.last_seen_at)} ago"))
    else:
        rows.append(("last updated", _field(stats, "last_updated", units.timestamp(stats.last_updated if stats
                                                                                   else None))))
    sampled = f"every {units.age(view.sampled_every)}" if view.sampled_every is not None else units.NA
    rows += [("read", sampled), ("data age", units.age(view.age(now)))]
    return rows


class TotalsPanel(Static):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = "totals"
        self._rows: list[tuple[str, str]] = []
        self._laid_out = (0, 0)

    def show(self, view: NodeView, now: float) -> None:
        rows = totals_rows(view, now)
        if rows != self._rows:
            self._rows = rows
            self._draw()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._draw())  # labels in muted

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        """One column of label/value pairs, or two side by side when the panel is wide enough."""
        rows = self._rows
        columns = 2 if self.content_size.width >= TWO_COLUMNS else 1
        colours = self.app.theme_variables
        muted = colours.get("muted", "")
        table = Table.grid(padding=(0, 1))
        for column in range(columns):
            table.add_column(style=muted, no_wrap=True)
            table.add_column(no_wrap=True, overflow="ellipsis", ratio=1 if column == columns - 1 else None)
        height = (len(rows) + columns - 1) // columns
        for line in range(height):
            cells: list[Text] = []
            for column in range(columns):
                index = column * height + line
                label, value = rows[index] if index < len(rows) else ("", "")
                cell = Text(value, style=muted if value in (units.NA, units.INVALID) else "")
                if DISAGREE in value:
                    cell.highlight_words([DISAGREE], style=colours.get("state-stale", ""))
                cells += [Text(label), cell]
            table.add_row(*cells)
        self.update(table, layout=(len(rows), columns) != self._laid_out)
        self._laid_out = (len(rows), columns)

"""Totals of the selected node: bytes in human units, peak connections and when, times, data age."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from omeconsole.model.nodes import NodeView
from omeconsole.ui import format as fmt


def totals_rows(view: NodeView, now: float) -> list[tuple[str, str]]:
    """The label/value pairs shown, in order; unknowns are "n/a", never 0."""
    latest = view.latest
    stats = latest.stats if latest is not None else None
    peak = fmt.NA
    if stats is not None:
        when = fmt.timestamp(stats.max_total_connection_time)
        peak = f"{fmt.count(stats.max_total_connections)} at {when}"
    return [
        ("bytes in", fmt.size(stats.total_bytes_in) if stats else fmt.NA),
        ("bytes out", fmt.size(stats.total_bytes_out) if stats else fmt.NA),
        ("rate in", fmt.rate(latest.rate_in_bps) if latest else fmt.NA),
        ("rate out", fmt.rate(latest.rate_out_bps) if latest else fmt.NA),
        ("server avg in/out", f"{fmt.rate(stats.avg_throughput_in_bps)} / {fmt.rate(stats.avg_throughput_out_bps)}"
         if stats else fmt.NA),
        ("server max in/out", f"{fmt.rate(stats.max_throughput_in_bps)} / {fmt.rate(stats.max_throughput_out_bps)}"
         if stats else fmt.NA),
        ("connections", fmt.count(stats.total_connections) if stats else fmt.NA),
        ("peak connections", peak),
        ("created", fmt.timestamp(stats.created) if stats else fmt.NA),
        ("last updated", fmt.timestamp(stats.last_updated) if stats else fmt.NA),
        ("data age", fmt.age(view.age(now))),
    ]


class TotalsPanel(Static):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = "totals"
        self._rows: list[tuple[str, str]] = []
        self._laid_out: list[tuple[str, str]] = []

    def show(self, view: NodeView, now: float) -> None:
        rows = totals_rows(view, now)
        if rows == self._rows:
            return
        self._rows = rows
        muted = self.app.theme_variables.get("muted", "")
        table = Table.grid(padding=(0, 1))
        table.add_column(style=muted, no_wrap=True)
        table.add_column(no_wrap=True)
        for label, value in rows:
            table.add_row(label, Text(value, style=muted if value == fmt.NA else ""))
        self.update(table, layout=len(rows) != len(self._laid_out))
        self._laid_out = rows

"""The selected node on every server of the fleet, and summed: who ingests it (the origin) and who relays
it (edges pulling over OVT), viewers per server and per protocol, each server's in and out rate.

The sums are `core.fleet.views`' (a sum is shown only when every server that has the node gave the
figure; servers that could not be read are named, not counted as zero). Names are server data: every
cell is a rich Text, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from omeconsole.core import units
from omeconsole.core.fleet.views import FleetView, ServerPart
from omeconsole.core.text import visible
from omeconsole.model import audience
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, palette

PRESENCE_WORDS = {"absent": "not on this server", "pending": "listed, not read yet"}


def viewer_protocols(view: FleetView) -> list[str]:
    """The playback protocols with viewers somewhere in the fleet (relays, pushes, recordings and thumbnails
    are not viewers: they have their own columns)."""
    return sorted(name for name, count in view.by_protocol.items() if count and name in audience.PLAYBACK)


def other_columns(view: FleetView) -> list[tuple[str, str]]:
    """(protocol, word) of the not-viewer connections to show: relays always, the others when any server
    has some."""
    return [(name, word) for name, word in audience.NOT_VIEWERS
            if name == audience.RELAY or view.by_protocol.get(name, 0)]


def _cells(values: Iterable[str], style: str = "") -> list[Text]:
    return [Text(value, style=style, no_wrap=True, overflow="ellipsis") for value in values]


def _server_cells(part: ServerPart, protocols: list[str], others: list[tuple[str, str]]) -> list[Text]:
    if part.presence != "present":
        words = PRESENCE_WORDS.get(part.presence) or f"not read: {visible(part.error or 'no answer', 60)}"
        return [*_cells([visible(part.profile)], "bold"), *_cells(["", words], "italic")]
    counts = [units.count(part.by_protocol.get(name, 0)) for name in protocols]
    return [*_cells([visible(part.profile)], "bold"),
            *_cells([part.role or "?", units.rate(part.rate_in_bps), units.count(part.viewers), *counts,
                     *(units.count(part.by_protocol.get(name, 0)) for name, _ in others),
                     units.rate(part.rate_out_bps)])]


def fleet_table(view: FleetView, colours: Mapping[str, str]) -> Table:
    """One row per server, then the fleet's sums (`Σ fleet`)."""
    protocols = viewer_protocols(view)
    others = other_columns(view)
    table = Table(box=None, padding=(0, 1), show_edge=False, expand=False, header_style=colours.get("muted", ""))
    table.add_column("server", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("in", justify="right", no_wrap=True)
    table.add_column("viewers", justify="right", no_wrap=True)
    for name in protocols:
        table.add_column(visible(name, 12), justify="right", no_wrap=True)
    for _, word in others:
        table.add_column(word, justify="right", no_wrap=True)
    table.add_column("out", justify="right", no_wrap=True)
    for part in view.servers:
        table.add_row(*_server_cells(part, protocols, others))
    sums = [units.count(view.by_protocol.get(name, 0)) for name in protocols]
    other_sums = [units.count(view.relays) if name == audience.RELAY else units.count(view.by_protocol.get(name, 0))
                  for name, _ in others]
    table.add_row(*_cells(["Σ fleet", "ingest", units.rate(view.ingest_bps), units.count(view.viewers), *sums,
                           *other_sums, units.rate(view.rate_out_bps)], "bold"))
    return table


def fleet_title(view: FleetView) -> Text:
    """`default/app/stream on 3 of 3 servers, origin: origin` and what the sums leave out."""
    title = Text(no_wrap=True, overflow="ellipsis", end="")
    title.append(visible(str(view.path)), style="bold")
    title.append(f" on {len(view.present)} of {len(view.servers)} servers")
    if view.origins:
        title.append(f"  ingest on {', '.join(visible(name) for name in view.origins)}")
    if view.not_read:
        title.append(f"  sums without {', '.join(visible(name) for name in view.not_read)} (not read)", style="bold")
    return title


class FleetViewPanel(Static):
    """`show(view)` draws a node across the fleet; `clear()` when nothing is selected."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def show(self, view: FleetView) -> None:
        self.display = True
        body = Table.grid()
        body.add_row(fleet_title(view))
        body.add_row(fleet_table(view, palette(self)))
        self.update(body)

    def clear(self) -> None:
        self.display = False

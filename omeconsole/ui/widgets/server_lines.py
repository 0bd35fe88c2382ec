"""The fleet's server level in words: the fleet's totals above the tree, a server's row in the tree, and
the card the detail shows when the cursor is on a server's row.

A server's row says which server (profile), whether it answers (connected / connecting / unreachable,
with the time since it last answered and why), how fast (median latency), how often it fails (errors per
minute), its own totals (viewers, then relays to edges, pushes, recordings and thumbnails by name, out),
what it is (edition and version) and where (host:port),
with a badge counting its alerts firing (the fleet's line adds them up). Names and messages came from
servers or the config: they are drawn as data (`visible`, rich Text, never markup).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from omeconsole.core import units
from omeconsole.core.fleet.health import ServerHealth
from omeconsole.core.text import visible
from omeconsole.live.fleet import FleetSummary, ServerSummary
from omeconsole.model import audience
from omeconsole.ui.badges import marks_text, name_text
from omeconsole.ui.widgets.status_bar import CONNECTION_MARKS

GAP = "  "


def _latency(health: ServerHealth) -> str:
    median = health.latency.median_s
    return units.NA if median is None else f"{median * 1000:.0f} ms"


def _what(health: ServerHealth) -> str:
    return " ".join(visible(part, 24) for part in (health.edition, health.version) if part) or units.NA


def _why_not(health: ServerHealth) -> str:
    """What an unreachable server says in place of its totals."""
    since = health.since_success_s
    said = f"last answered {units.age(since)} ago" if since is not None else "never answered"
    return f"{said}: {visible(health.last_error, 120)}" if health.last_error else said


def _alerts(firing: int) -> str:
    return f"⚑ {firing} alert{'s' if firing != 1 else ''}"


def server_label(server: ServerSummary, colours: Mapping[str, str]) -> tuple[Text, int]:
    """`origin  ● connected  12 ms  0 err/min  0 viewers  out 25.1 Mb/s  16 relays  OvenMediaEngine 0.20.1  host:port`
    (ingest is on the fleet's line, the streams' rows and the server's card), and the width of all but what and
    where it is (the tree makes room for that much; the status line and the card name the server's address)."""
    health = server.health
    warn, muted = colours.get("state-stale", ""), colours.get("muted", "")
    label = name_text(health.profile, colours)
    label.append(GAP)
    if server.alerts:
        label.append_text(marks_text([_alerts(server.alerts)], colours))
    symbol, word = CONNECTION_MARKS[health.status]
    label.append(f"{symbol} {word}", style="" if health.reachable else f"bold {warn}")
    label.append(f"{GAP}{_latency(health)}{GAP}")
    label.append(f"{health.errors_per_minute:.0f} err/min", style=warn if health.errors_per_minute > 0 else "")
    if health.reachable:
        label.append(f"{GAP}{units.count(server.viewers)} viewers")
        label.append(f"{GAP}out ", style=muted)
        label.append(units.rate(server.rate_out_bps), style=colours.get("rate-out", ""))
        for word, count in server.others:  # after out: a narrow tree cuts these first (the card has them all)
            label.append(f"{GAP}{audience.count_text(count, word)}", style=muted)
    else:
        label.append(f"{GAP}{_why_not(health)}", style=warn)
    needed = label.cell_len
    label.append(f"{GAP}{_what(health)}{GAP}{visible(health.host, 40)}", style=muted)
    return label, needed


def server_card(server: ServerSummary, colours: Mapping[str, str]) -> Text:
    """Everything a server's row says, one item a line, for the detail beside the tree."""
    health = server.health
    symbol, word = CONNECTION_MARKS[health.status]
    card = name_text(health.profile, colours)
    card.append(f"  server at {visible(health.host, 80)}\n")
    items = [("link", f"{symbol} {word}" + (f" — {visible(health.message, 120)}" if health.message else "")),
             ("what", _what(health) + (f" (stats API {visible(health.stats_api, 16)})" if health.stats_api else "")),
             ("latency", f"{_latency(health)} median"),
             ("errors", f"{health.errors_per_minute:.0f} per minute"
              + (f"; last: {visible(health.last_error, 120)}" if health.last_error else ""))]
    if health.reachable:
        others = "; ".join(audience.count_text(count, word) for word, count in server.others)
        not_viewers = f" (not viewers: {others})" if others else ""
        items.append(("totals", f"{units.count(server.viewers)} viewers{not_viewers}"
                                f"  in {units.rate(server.rate_in_bps)}  out {units.rate(server.rate_out_bps)}"))
    else:
        items.append(("totals", f"not read ({_why_not(health)})"))
    items.append(("alerts", f"{server.alerts} firing"))
    muted = colours.get("muted", "")
    for name, value in items:
        card.append(f"{name:<9}", style=muted)
        card.append(f"{value}\n")
    card.append("Enter or → on its row: its hosts, applications and streams (the status line, the detail and "
                "every send then act on this server)", style=muted)
    return card


def _others(others: tuple[tuple[str, int], ...]) -> str:
    return " · ".join(audience.count_text(count, word) for word, count in others)


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
        line.append(GAP + _alerts(summary.alerts), style="bold")
    if totals.not_read:
        line.append(f"  (without {', '.join(visible(name) for name in totals.not_read)}: not read)", style="bold")
    if totals.others:  # last: a narrow line cuts these first
        line.append(f"  not viewers: {_others(totals.others)}")
    return line

"""The command line's renderings of a fleet: the server table with health, a node on every server.

Every name and message that came from a server (or the config) is made visible where it is put into a
line; JSON is ASCII-only (`format.dumps`). Units are the console's (`core.units`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from omeconsole.cli import format as fmt
from omeconsole.core import units
from omeconsole.core.fleet.health import ServerHealth
from omeconsole.core.fleet.views import FleetView, ServerPart
from omeconsole.core.history.target import Target
from omeconsole.core.text import visible
from omeconsole.model import audience


def _ms(seconds: float | None) -> str:
    return units.NA if seconds is None else f"{seconds * 1000:.0f} ms"


def health_table(fleet: str, rows: Sequence[ServerHealth]) -> str:
    reachable = sum(1 for row in rows if row.reachable)
    lines = [f"fleet {visible(fleet)}: {reachable} of {len(rows)} servers reachable",
             f"  {'server':<14} {'status':<12} {'edition':<10} {'version':<14} {'latency':>8} {'errors/min':>10}  api"]
    for row in rows:
        lines.append(f"  {visible(row.profile):<14} {row.status:<12} {visible(row.edition or '-'):<10} "
                     f"{visible(row.version or '-'):<14} {_ms(row.latency.median_s):>8} "
                     f"{row.errors_per_minute:>10.0f}  {visible(row.host)}")
        if not row.reachable:  # what went wrong (the link's message says when it would retry: it will not)
            lines.append(f"  {'':<14} {visible(row.last_error or row.message, 300)}")
    return "\n".join(lines)


def health_json(fleet: str, rows: Sequence[ServerHealth]) -> str:
    return fmt.dumps({"fleet": fleet, "servers": [{
        "server": row.profile, "api": row.host, "status": row.status, "reachable": row.reachable,
        "message": row.message, "edition": row.edition, "version": row.version, "stats_api": row.stats_api,
        "latency_ms": None if row.latency.median_s is None else round(row.latency.median_s * 1000, 3),
        "latency_samples": row.latency.samples, "errors_per_minute": row.errors_per_minute,
        "last_error": row.last_error} for row in rows]})


def _protocols(counts: Mapping[str, int]) -> str:
    shown = [f"{visible(name)} {count:,}" for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
             if count]
    return "  ".join(shown) if shown else "none"


def _rates(part: ServerPart | FleetView, *, server_figures: bool) -> tuple[float | None, float | None]:
    """(in, out): the console's rates from byte totals, or the server's own averages for a single reading."""
    if isinstance(part, FleetView):
        return (part.server_ingest_bps, part.server_out_bps) if server_figures else (part.ingest_bps,
                                                                                     part.rate_out_bps)
    return (part.server_in_bps, part.server_out_bps) if server_figures else (part.rate_in_bps, part.rate_out_bps)


def view_text(fleet: str, view: FleetView, *, server_figures: bool) -> str:
    """A node on every server and the fleet's sums. `server_figures`: a single reading (no rates of the
    console's yet) shows the servers' own average throughput."""
    where = visible(str(view.path)) if view.path is not None else "every virtual host"
    origins = ", ".join(visible(p) for p in view.origins) or "no server"
    lines = [f"{where} on fleet {visible(fleet)}: on {len(view.present)} of {len(view.servers)} servers, "
             f"ingested by {origins}"]
    rates = "server avg in / out" if server_figures else "rate in / out"
    lines.append(f"  {'server':<14} {'role':<7} {'input':<10} {'viewers':>8} {'relays':>7}  {rates:<27} "
                 f"{'bytes out':>11}  viewers by protocol; not viewers")
    for part in view.servers:
        name = visible(part.profile)
        if part.presence != "present":
            why = {"absent": "not on this server", "pending": "listed, not read yet"}.get(part.presence)
            lines.append(f"  {name:<14} {why or 'cannot be read: ' + visible(part.error or '', 300)}")
            continue
        rate_in, rate_out = _rates(part, server_figures=server_figures)
        lines.append(f"  {name:<14} {part.role or '?':<7} {visible(','.join(part.inputs) or '?'):<10} "
                     f"{units.count(part.viewers):>8} {units.count(part.relays):>7}  "
                     f"{units.rate(rate_in) + ' / ' + units.rate(rate_out):<27} {units.size(part.bytes_out):>11}  "
                     f"{_audience(part.by_protocol)}")
    ingest, out = _rates(view, server_figures=server_figures)
    lines.append(f"  {'fleet':<14} {'':<7} {'':<10} {units.count(view.viewers):>8} {units.count(view.relays):>7}  "
                 f"{'ingest ' + units.rate(ingest) + ' / ' + units.rate(out):<27} {units.size(view.bytes_out):>11}  "
                 f"{_audience(view.by_protocol)}")
    if not view.complete:
        lines.append(f"  (sums leave out {', '.join(visible(p) for p in view.not_read)}: not read)")
    return "\n".join(lines)


def _audience(by_protocol: Mapping[str, int]) -> str:
    """The playback protocols' counts, then what is not a viewer (relays have their own column)."""
    playback = _protocols({name: count for name, count in by_protocol.items() if name in audience.PLAYBACK})
    others = audience.others_text(by_protocol, skip=("relays",))
    return f"{playback}; {others}" if others else playback


def view_line(view: FleetView, when: datetime) -> str:
    """One line per reading (`--format line`): the sums, then each server's viewers and outbound rate."""
    parts = [f"{when.astimezone().strftime('%H:%M:%S')}  {visible(str(view.path))}  viewers "
             f"{units.count(view.viewers)}  ingest {units.rate(view.ingest_bps)}  out {units.rate(view.rate_out_bps)}"]
    for part in view.servers:
        if part.presence == "present":
            parts.append(f"{visible(part.profile)} {units.count(part.viewers)} {units.rate(part.rate_out_bps)}")
        else:
            parts.append(f"{visible(part.profile)} {part.presence}")
    return "  |  ".join(parts)


def _part_json(part: ServerPart) -> dict[str, Any]:
    return {"server": part.profile, "presence": part.presence, "role": part.role, "inputs": list(part.inputs),
            "viewers": part.viewers, **_others_json(part.by_protocol if part.presence == "present" else None),
            "by_protocol": dict(part.by_protocol),
            "rate_in_bps": part.rate_in_bps, "rate_out_bps": part.rate_out_bps, "server_in_bps": part.server_in_bps,
            "server_out_bps": part.server_out_bps, "bytes_in": part.bytes_in, "bytes_out": part.bytes_out,
            "error": part.error}


def _others_json(by_protocol: Mapping[str, int] | None) -> dict[str, int | None]:
    """`relays`, `pushes`, `recordings`, `thumbnails`: the connections that are not viewers."""
    return audience.others_counts(by_protocol)


def view_json(fleet: str, view: FleetView) -> str:
    return fmt.dumps({
        "fleet": fleet, "path": None if view.path is None else str(view.path), "complete": view.complete,
        "origins": list(view.origins), "servers": [_part_json(part) for part in view.servers],
        "sum": {"viewers": view.viewers, **_others_json(view.by_protocol), "relays": view.relays,
                "by_protocol": dict(view.by_protocol),
                "rate_out_bps": view.rate_out_bps, "server_out_bps": view.server_out_bps,
                "ingest_bps": view.ingest_bps, "server_ingest_bps": view.server_ingest_bps,
                "bytes_out": view.bytes_out}})


def target_text(target: Target) -> str:
    return visible(str(target))

"""Human-readable and JSON renderings for the command line, in the console's units.

Rates are bits per second with SI prefixes, totals bytes with IEC prefixes (`core.units`, as in the
console). Units are labelled as the server defines them (reference §1.3): the server's throughput
fields are bits per second, `lastThroughput*` is a byte count, and rates the console computes itself
say so. Every value that came from the server is made visible (`core.text.visible`) where it is put
into text; JSON is ASCII-only, so it carries no raw control or bidi character either.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from omeconsole.core import units
from omeconsole.core.adops.controller import SendOutcome
from omeconsole.core.adops.matcher import Sighting
from omeconsole.core.history.target import Target
from omeconsole.core.polling.own_share import taken_text
from omeconsole.core.text import visible
from omeconsole.model import audience
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample, StreamInfo
from omeconsole.model.server import ServerInfo


def _time(value: datetime | None) -> str:
    return "-" if value is None else value.isoformat(sep=" ", timespec="milliseconds")


Name = NodePath | Target
"""A node as printed: `vhost/app/stream`, or `PROFILE:vhost/app/stream` on a fleet's server."""


def path_text(path: Name | str) -> str:
    return visible(str(path))


def _counts(counts: Mapping[str, int] | None) -> str:
    if counts is None:
        return "not reported by this server"
    shown = [f"{visible(name)} {n}" for name, n in counts.items() if n]
    return "  ".join(shown) if shown else "none"


def jsonable(value: Any) -> Any:
    """Dataclasses, datetimes and paths as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat(timespec="milliseconds")
    if isinstance(value, NodePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(jsonable(v) for v in value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """One line of JSON, ASCII only: every control, bidi or other non-ASCII character as an escape."""
    return json.dumps(jsonable(value), ensure_ascii=True, sort_keys=True)


def stats_text(path: Name, stats: NodeStats, server: ServerInfo | None, sample: Sample | None = None, *,
               own: Sample | None = None) -> str:
    """`own`: the reading whose `own_*` say what was taken off `stats` as the console's own reads."""
    source = f"  ({visible(server.edition)}, {server.stats_api} statistics)" if server else ""
    lines = [
        f"{path_text(path)}{source}",
        f"  created           {_time(stats.created)}",
        f"  last updated      {_time(stats.last_updated)}",
        f"  viewers           {units.count(stats.viewers)} now (llhls + hlsv3 + webrtc + srt)",
        f"  not viewers       {_not_viewers(stats)}",
        f"  connections       {units.count(stats.total_connections)} now (every publisher session), peak "
        f"{units.count(stats.max_total_connections)} at {_time(stats.max_total_connection_time)}",
        f"  inbound           {_counts(stats.connections_in)}",
        f"  outbound          {_counts(stats.connections_out)}",
        f"  bytes in / out    {units.size(stats.total_bytes_in)} / {units.size(stats.total_bytes_out)}",
        f"  server in         avg {units.rate(stats.avg_throughput_in_bps)}, "
        f"max {units.rate(stats.max_throughput_in_bps)}, last window {units.size(stats.last_throughput_in_bytes)}",
        f"  server out        avg {units.rate(stats.avg_throughput_out_bps)}, "
        f"max {units.rate(stats.max_throughput_out_bps)}, last window {units.size(stats.last_throughput_out_bytes)}",
    ]
    if sample is not None:
        lines.append(f"  rate in / out     {units.rate(sample.rate_in_bps)} / {units.rate(sample.rate_out_bps)}"
                     "  (from byte totals)")
    if own is not None and (taken := taken_text(own)) is not None:
        lines.append(f"  this console      {taken}")
    if stats.invalid:
        lines.append(f"  invalid           {', '.join(visible(name) for name in sorted(stats.invalid))}")
    return "\n".join(lines)


def own_json(sample: Sample) -> dict[str, int]:
    """What was taken off the reading as the console's own playlist reads (`own_*`, 0 when nothing)."""
    return {"own_viewers": sample.own_viewers, "own_bytes_out": sample.own_bytes_out, "own_peak": sample.own_peak}


def _not_viewers(stats: NodeStats) -> str:
    if stats.connections_out is None:
        return "not reported by this server"
    return audience.others_text(stats.connections_out) or "none"


def stats_line(path: Name, stats: NodeStats, sample: Sample | None, when: datetime) -> str:
    """One line per reading (`--format line`): time, node, viewers, rates, totals."""
    rates = (f"in {units.rate(sample.rate_in_bps)}  out {units.rate(sample.rate_out_bps)}"
             if sample is not None else "in n/a  out n/a")
    line = (f"{when.astimezone().strftime('%H:%M:%S')}  {path_text(path)}  viewers "
            f"{units.count(stats.viewers)}{_others_suffix(stats)}  {rates}  total in {units.size(stats.total_bytes_in)}"
            f"  out {units.size(stats.total_bytes_out)}")
    return line + (f"  invalid: {', '.join(visible(n) for n in sorted(stats.invalid))}" if stats.invalid else "")


def _others_suffix(stats: NodeStats) -> str:
    others = audience.others_text(stats.connections_out)
    return f" ({others})" if others else ""


def audience_json(stats: NodeStats) -> dict[str, int | None]:
    """`viewers` (playback sessions) and the connections that are not viewers, by name."""
    return {"viewers": stats.viewers, **audience.others_counts(stats.connections_out)}


def sample_json(path: NodePath, sample: Sample, server: str | None = None) -> str:
    """One reading with its rates; `server`: the fleet's profile it was read on."""
    return dumps({"path": path, "rate_in_bps": sample.rate_in_bps, "rate_out_bps": sample.rate_out_bps,
                  **audience_json(sample.stats), **own_json(sample), "stats": sample.stats, **_on(server)})


def info_text(info: StreamInfo) -> str:
    lines = [
        f"{visible(info.name)}",
        f"  source            {visible(info.source_type or '-')}"
        + (f"  {visible(info.source_url)}" if info.source_url else ""),
        f"  created           {_time(info.created)}",
    ]
    for track in info.tracks:
        detail = [visible(track.codec or "")]
        if track.width and track.height:
            detail.append(f"{track.width}x{track.height}")
        if track.framerate:
            detail.append(f"{track.framerate:g} fps")
        if track.keyframe_interval:
            detail.append(keyframe_text(track.keyframe_interval, track.framerate))
        if track.samplerate:
            detail.append(f"{track.samplerate} Hz")
        if track.channels:
            detail.append(f"{track.channels} ch")
        if track.bitrate:
            detail.append(units.rate(track.bitrate))
        ident = "-" if track.id is None else str(track.id)
        lines.append(f"  track {ident:<3} {visible(track.type):<6} {'  '.join(d for d in detail if d)}")
    if info.outputs:
        lines.append(f"  outputs           {', '.join(visible(o) for o in info.outputs)}")
    return "\n".join(lines)


def keyframe_text(frames: float, framerate: float | None) -> str:
    """The server gives the keyframe interval in frames: `keyframe every 1.0 s (29.96 frames)`, or
    `keyframe every 29.96 frames` when the frame rate is not known."""
    if framerate:
        return f"keyframe every {frames / framerate:.1f} s ({frames:.2f} frames)"
    return f"keyframe every {frames:.2f} frames"


def outcome_text(outcome: SendOutcome) -> str:
    plan = outcome.plan
    if outcome.http_status is None:
        text = f"{plan.action} to {path_text(plan.target)}: {visible(outcome.message)}"
    else:
        text = (f"{plan.action} sent to {path_text(plan.target)}: HTTP {outcome.http_status} "
                f"{visible(outcome.server_message)}")
    for index, item in enumerate(outcome.items):
        text += f"\n  #{index}: HTTP {item.status} {visible(item.message)}"
    return text


def _on(server: str | None) -> dict[str, str]:
    """The `server` field of a JSON line about one of several servers (none for a single server)."""
    return {"server": server} if server else {}


def outcome_json(outcome: SendOutcome, server: str | None = None) -> str:
    plan = outcome.plan
    return dumps({"path": plan.target, "action": plan.action, "outcome": outcome.status,
                  "status": outcome.http_status, "message": outcome.message, "items": outcome.items,
                  "body": plan.body, "send_id": plan.send_id, "blocked_by": outcome.blocked_by, **_on(server)})


def sighting_json(sighting: Sighting, server: str | None = None) -> str:
    return dumps({"confirmed": sighting.seen, "seen_after_s": sighting.seen_after_s, "detail": sighting.detail,
                  "line": sighting.line, "no_marker": sighting.by_cut, **_on(server)})

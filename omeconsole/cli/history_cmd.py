"""`omeconsole history [TARGET]`: what the store recorded of a node, live or ended; no server is asked.

Without TARGET it lists the recorded streams with their one-line summaries (`--ended` for the ended
ones only). The server is the one the target's PROFILE, `--api-url` or `--profile` names; with none
of those, the one server the store has the node of (several: the configured one, else say which).
With `--fleet NAME` the servers are the fleet's: `PROFILE:` names one of them, and a target without it
is shown on each of the fleet's servers that recorded it (JSON: `{"fleet", "servers": [...]}`; CSV: a
`server` column first).

Every point carries viewers (playback sessions: the last reading's, and the lowest and highest in it)
and, where the store kept them (full resolution), the viewers per playback protocol; a tier's buckets
keep only the total, and the output says so instead of printing zeros.

The node's ad breaks and alerts over the range (those of the nodes below it too, and the server's own alerts)
follow its readings in text and JSON; `--events` prints only them, in every format (`history_events`).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

from omeconsole.cli import exit_codes
from omeconsole.cli.history_events import CSV_COLUMNS, print_spans, span_json, span_row
from omeconsole.cli.output import complain
from omeconsole.core.config import ConfigError, Settings, load_settings
from omeconsole.core.history.target import Target
from omeconsole.core.text import visible
from omeconsole.core.units import count, rate, size
from omeconsole.model.audience import PLAYBACK

if TYPE_CHECKING:  # the store's modules are imported when the command runs, not at every start
    from omeconsole.core.fleet.settings import FleetSettings
    from omeconsole.core.history.events import RecordedSpan
    from omeconsole.core.history.points import HistoryPoint, HistorySeries
    from omeconsole.core.history.reader import HistoryReader
    from omeconsole.core.history.summary import StreamSummary

DEFAULT_SINCE_S = 3600.0


class _Refused(Exception):
    """Nothing to show (exit 1), or a target that names no one server (exit 2)."""

    def __init__(self, message: str, code: int = exit_codes.REFUSED) -> None:
        super().__init__(message)
        self.code = code


def run(args: argparse.Namespace, settings: Settings, *, fleet: FleetSettings | None = None, now: float | None = None,
        out: IO[str] | None = None) -> int:
    from pathlib import Path

    from omeconsole.core.history.database import HistoryError
    from omeconsole.core.history.reader import HistoryReader

    out = out or sys.stdout
    now = time.time() if now is None else now
    path = Path(args.db).expanduser() if args.db else settings.history.database_path()
    end = now if args.end is None else args.end
    start = args.start if args.start is not None else end - (args.since or DEFAULT_SINCE_S)
    if start >= end:
        complain("history: the start must come before the end")
        return exit_codes.USAGE
    if args.step is not None and args.step < 1:
        complain("history: --step must be at least 1 s")
        return exit_codes.USAGE
    try:
        with HistoryReader(path, settings.history) as reader:
            if args.target is None:
                return _list(reader, args, now, out, fleet)
            if fleet is None:
                return _show(reader, [_server(reader, args, settings)], args, start, end, now, out)
            return _show(reader, _fleet_servers(reader, args.target, fleet), args, start, end, now, out,
                         fleet=None if args.target.profile else fleet.name)
    except HistoryError as error:
        complain(f"history: {error}")
        return exit_codes.REFUSED
    except _Refused as refused:
        complain(f"history: {refused}")
        return refused.code
    except ValueError as error:  # too many points for the range and step
        complain(f"history: {error}")
        return exit_codes.USAGE


def _server(reader: HistoryReader, args: argparse.Namespace, settings: Settings) -> str:
    """host:port of the server the target is on (see the module docstring)."""
    from omeconsole.core.history.observations import server_key

    target: Target = args.target
    recorded = reader.servers_with(target.path)
    shown = visible(str(target))
    if target.profile is not None:
        try:
            key = server_key(load_settings({"profile": target.profile}, warn=lambda _m: None).api_url)
        except ConfigError:
            key = None
        labelled = [s.key for s in reader.servers() if s.profile == target.profile and s.key in recorded]
        if key is not None and key in recorded:
            return key
        if len(labelled) == 1:
            return labelled[0]
        raise _Refused(f"nothing recorded for {shown}")
    if args.api_url or args.profile:
        key = server_key(settings.api_url)
        if key not in recorded:
            raise _Refused(f"nothing recorded for {shown} on {visible(key)}")
        return key
    if not recorded:
        raise _Refused(f"nothing recorded for {shown}")
    if len(recorded) == 1:
        return recorded[0]
    configured = server_key(settings.api_url)
    if configured in recorded:
        return configured
    raise _Refused(f"{shown} was recorded on several servers ({', '.join(visible(k) for k in recorded)}): name "
                   "one with PROFILE:" + visible(str(target.path)) + " or --api-url", exit_codes.USAGE)


def _fleet_servers(reader: HistoryReader, target: Target, fleet: FleetSettings) -> list[str]:
    """host:port of each of the fleet's servers `target` names (its PROFILE, or all) that recorded it."""
    from omeconsole.core.fleet.naming import servers_of
    from omeconsole.core.history.observations import server_key

    try:
        profiles = servers_of(target, fleet.profiles)
    except ValueError as error:
        raise _Refused(str(error), exit_codes.USAGE) from None
    recorded = set(reader.servers_with(target.path))
    keys = [server_key(fleet.server(profile).api_url) for profile in profiles]
    found = [key for key in keys if key in recorded]
    if not found:
        raise _Refused(f"nothing recorded for {visible(str(target))} on fleet {visible(fleet.name)}")
    return found


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def _local(epoch: float, *, precise: bool) -> str:
    text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    return f"{text}.{int(epoch * 1000) % 1000:03d}" if precise else text


def _summary_json(summary: StreamSummary) -> dict[str, Any]:
    return {"path": str(summary.path), "server": summary.server, "profile": summary.profile,
            "state": "ended" if summary.ended else "live when last seen",
            "first_seen": _iso(summary.first_seen), "last_seen": _iso(summary.last_seen),
            "ended_at": _iso(summary.ended_at), "live_seconds": round(summary.live_seconds, 3),
            "peak_viewers": summary.peak_viewers, "peak_viewers_at": _iso(summary.peak_viewers_at),
            "peak_rate_in_bps": summary.peak_rate_in_bps, "peak_rate_out_bps": summary.peak_rate_out_bps,
            "bytes_in": summary.bytes_in, "bytes_out": summary.bytes_out, "samples": summary.samples,
            "lives": summary.lives}


def _list(reader: HistoryReader, args: argparse.Namespace, now: float, out: IO[str],
          fleet: FleetSettings | None) -> int:
    if args.events:
        raise _Refused("--events needs a TARGET", exit_codes.USAGE)
    if args.csv:
        raise _Refused("--csv needs a TARGET (the list of streams is text or --json)", exit_codes.USAGE)
    summaries = reader.summaries(ended=True if args.ended else None)
    if fleet is not None:
        from omeconsole.core.history.observations import server_key

        keys = {server_key(settings.api_url) for settings in fleet.servers}
        summaries = [summary for summary in summaries if summary.server in keys]
    if args.json:
        print(json.dumps([_summary_json(s) for s in summaries], ensure_ascii=True, sort_keys=True), file=out)
        return exit_codes.OK
    if not summaries:
        print("no streams recorded" + (" that ended" if args.ended else ""), file=out)
    for summary in summaries:
        print(f"{visible(summary.server)}  {visible(str(summary.path))}  {summary.describe(now)}", file=out)
    return exit_codes.OK


_COLUMNS = ("time", "samples", "viewers", "viewers_min", "viewers_max", "rate_in_bps", "rate_out_bps",
            "rate_out_max_bps", "bytes_in", "bytes_out", "total_in", "total_out",
            *(f"viewers_{protocol}" for protocol in PLAYBACK))
NOT_KEPT = "viewers per protocol: not kept at this resolution (only the total)"


def _point_json(point: HistoryPoint, protocols: dict[str, int] | None) -> dict[str, Any]:
    return {"time": _iso(point.at), "samples": point.samples, "viewers": point.viewers,
            "viewers_min": point.viewers_min, "viewers_max": point.viewers_max, "rate_in_bps": point.rate_in_bps,
            "rate_out_bps": point.rate_out_bps, "rate_out_max_bps": point.rate_out_max_bps,
            "bytes_in": point.bytes_in, "bytes_out": point.bytes_out, "total_in": point.total_in,
            "total_out": point.total_out, "viewers_by_protocol": protocols}


def _csv_row(point: HistoryPoint, protocols: dict[str, int] | None) -> dict[str, Any]:
    row = _point_json(point, None)
    del row["viewers_by_protocol"]
    row.update({f"viewers_{protocol}": None if protocols is None else protocols[protocol] for protocol in PLAYBACK})
    return {key: "" if value is None else value for key, value in row.items()}


def _protocols(reader: HistoryReader, series: HistorySeries, now: float) -> list[dict[str, int] | None] | None:
    """Each point's viewers per protocol; None when the points come from a tier (which keeps none)."""
    from omeconsole.core.history.protocol_viewers import per_point

    if series.source_step != 0:
        return None
    return per_point(series.points, reader.samples(series.server, series.path, series.start, series.end, now=now))


def _show(reader: HistoryReader, servers: list[str], args: argparse.Namespace, start: float, end: float, now: float,
          out: IO[str], *, fleet: str | None = None) -> int:
    """The target on each of `servers`; `fleet`: the name of the fleet they are (each is labelled)."""
    target: Target = args.target
    documents: list[dict[str, Any]] = []
    columns = CSV_COLUMNS if args.events else _COLUMNS
    columns = ("server", *columns) if fleet else columns
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n") if args.csv else None
    if writer is not None:
        writer.writeheader()
    for index, server in enumerate(servers):
        spans = reader.spans(server, start, end, target.path)
        if args.events:
            _show_spans(reader, spans, server, args, start, end, out, documents, writer, index, fleet=fleet)
            continue
        series = reader.series(server, target.path, start, end, step=args.step, now=now)
        summary = reader.summary(server, target.path)
        protocols = _protocols(reader, series, now)
        each = protocols or [None] * len(series.points)
        if args.json:
            documents.append({"server": server, "path": str(target.path), "from": _iso(start), "to": _iso(end),
                              "step": series.step, "source": series.source, "sampled_every": series.sampled_every,
                              "viewers_by_protocol_kept": protocols is not None,
                              "summary": None if summary is None else _summary_json(summary),
                              "points": [_point_json(p, c) for p, c in zip(series.points, each, strict=True)],
                              "events": [span_json(span) for span in spans]})
        elif writer is not None:
            lead = {"server": server} if fleet else {}
            for point, counts in zip(series.points, each, strict=True):
                writer.writerow({**lead, **_csv_row(point, counts)})
        else:
            if index:
                print(file=out)
            _print_text(series, protocols, summary, server, now, out)
            print_spans(spans, reader.spans_kept_after(), start, out)
    if args.json:
        document = {"fleet": fleet, "servers": documents} if fleet else documents[0]
        print(json.dumps(document, ensure_ascii=True), file=out)
    return exit_codes.OK


def _show_spans(reader: HistoryReader, spans: list[RecordedSpan], server: str, args: argparse.Namespace,
                start: float, end: float, out: IO[str], documents: list[dict[str, Any]],
                writer: csv.DictWriter[str] | None, index: int, *, fleet: str | None) -> None:
    """`--events`: only the spans, in the asked format."""
    target: Target = args.target
    if args.json:
        documents.append({"server": server, "path": str(target.path), "from": _iso(start), "to": _iso(end),
                          "events": [span_json(span) for span in spans]})
    elif writer is not None:
        lead = {"server": server} if fleet else {}
        for span in spans:
            writer.writerow({**lead, **span_row(span)})
    else:
        if index:
            print(file=out)
        print(f"{visible(str(target.path))} on {visible(server)}, {_local(start, precise=False)} to "
              f"{_local(end, precise=False)} (local time)", file=out)
        print_spans(spans, reader.spans_kept_after(), start, out)


def _protocols_text(counts: dict[str, int] | None) -> str:
    """`llhls 12 · webrtc 3` (the protocols with viewers), `-` when nobody watched; "" when not known."""
    if counts is None:
        return ""
    return " · ".join(f"{protocol} {counts[protocol]:,}" for protocol in PLAYBACK if counts[protocol]) or "-"


def _print_text(series: HistorySeries, protocols: list[dict[str, int] | None] | None, summary: StreamSummary | None,
                server: str, now: float, out: IO[str]) -> None:
    where = f"{visible(str(series.path))} on {visible(server)}"
    if summary is not None and summary.profile:
        where += f" (profile {visible(summary.profile)})"
    print(f"{where}: {summary.describe(now)}" if summary is not None else where, file=out)
    every = "sampled every " + (f"{series.sampled_every:.1f} s" if series.sampled_every else "? s (one sample)")
    resolution = "every sample as taken" if series.step is None else f"one point per {series.step:g} s"
    print(f"{_local(series.start, precise=False)} to {_local(series.end, precise=False)} "
          f"(local time, {datetime.now().astimezone().strftime('%z')}), {resolution} from {series.source}, "
          f"{every}", file=out)
    precise = series.step is None
    if protocols is None:
        print(NOT_KEPT, file=out)
    print(f"{'time':<23}  {'viewers':>7}  {'peak':>7}  {'rate in':>11}  {'rate out':>11}  {'peak out':>11}  "
          f"{'bytes in':>10}  {'bytes out':>10}" + ("  viewers per protocol" if protocols is not None else ""),
          file=out)
    gaps: list[HistoryPoint] = []
    each = protocols or [None] * len(series.points)
    for point, counts in (*zip(series.points, each, strict=True), (None, None)):
        if point is not None and point.gap:
            gaps.append(point)
            continue
        if gaps:  # a run of gaps is one line
            until = f" until {_local(gaps[-1].at, precise=precise)} ({len(gaps)} points)" if len(gaps) > 1 else ""
            print(f"{_local(gaps[0].at, precise=precise):<23}  gap: no sample{until}", file=out)
            gaps = []
        if point is None:
            break
        print(f"{_local(point.at, precise=precise):<23}  {count(point.viewers):>7}  {count(point.viewers_max):>7}  "
              f"{rate(point.rate_in_bps):>11}  {rate(point.rate_out_bps):>11}  {rate(point.rate_out_max_bps):>11}  "
              f"{size(point.bytes_in):>10}  {size(point.bytes_out):>10}"
              + (f"  {_protocols_text(counts)}" if protocols is not None else ""), file=out)
    total_in, total_out = series.bytes_total()
    print(f"total moved in this range: {size(total_in)} in, {size(total_out)} out", file=out)

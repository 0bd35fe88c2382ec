"""`omeconsole record`: the console's polling without a screen, every sample into the history store.

The process an operator leaves running under systemd (`ExecStart=omeconsole record --profile prod`).
It prints one line when it starts, a status line every `--status-every` seconds and one when it stops
(`--json`: one JSON object per line). SIGTERM or SIGINT stops the polling, writes out everything taken
and exits 0; 1 if some observations could not be written; 2 if the store cannot be opened.

`--fleet NAME` records every server of the fleet in the one process and the one store, each server
under its own name (host:port, labelled with its profile), their engines under the fleet's one request
budget; status lines then come one per server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from omeconsole.cli import exit_codes
from omeconsole.cli.output import complain
from omeconsole.core.config import Settings
from omeconsole.core.polling.settings import PollSettings
from omeconsole.core.text import visible

if TYPE_CHECKING:
    from omeconsole.core.fleet.settings import FleetSettings
    from omeconsole.core.history.recorder import Recorder, RecorderStatus

def _status_fields(event: str, status: RecorderStatus) -> dict[str, Any]:
    writer = status.writer
    return {"event": event, "server": status.server.key, "profile": status.server.profile,
            "link": status.link.status, "listed": status.listed,
            "sampled": status.sampled, "requests": status.requests, "accepted": writer.accepted,
            "committed": writer.committed, "samples": writer.samples, "dropped": writer.dropped, "lost": writer.lost,
            "pending": writer.pending, "db_bytes": writer.used_bytes, "write_p50_s": writer.latency_p50_s,
            "write_p99_s": writer.latency_p99_s, "transaction_p50_s": writer.transaction_p50_s,
            "transaction_max_s": writer.transaction_max_s, "writer_cpu_s": writer.writer_cpu_s,
            "last_error": writer.last_error}


def _status_text(event: str, status: RecorderStatus) -> str:
    writer = status.writer
    latency = ("" if writer.latency_p50_s is None else
               f"; write p50 {writer.latency_p50_s * 1000:.0f} ms, p99 {(writer.latency_p99_s or 0) * 1000:.0f} ms")
    named = f" ({visible(status.server.profile)})" if status.server.profile else ""
    text = (f"{event}: {visible(status.server.key)}{named} {status.link.status}; {status.listed:,} nodes listed, "
            f"{status.sampled:,} sampled; {writer.committed:,} observations on disk ({writer.samples:,} samples), "
            f"{writer.pending:,} pending, "
            f"{writer.dropped:,} dropped, {writer.lost:,} lost; store {writer.used_bytes / 1024**2:,.1f} MiB"
            f"{latency}")
    if writer.last_error:
        text += f"; last error: {visible(writer.last_error, 200)}"
    return text


def _say(out: IO[str], as_json: bool, event: str, status: RecorderStatus) -> None:
    line = json.dumps(_status_fields(event, status), ensure_ascii=True) if as_json else _status_text(event, status)
    print(line, file=out, flush=True)


def _say_started(out: IO[str], args: argparse.Namespace, servers: FleetSettings, recorders: list[Recorder],
                 path: Path) -> None:
    history = servers.servers[0].history
    if len(recorders) == 1:
        server = recorders[0].server
        if args.json:
            print(json.dumps({"event": "started", "server": server.key, "profile": server.profile, "db": str(path),
                              "retention": history.describe()}, ensure_ascii=True), file=out, flush=True)
        else:
            print(f"recording {visible(server.key)}" + (f" (profile {visible(server.profile)})" if server.profile
                  else "") + f" into {visible(str(path))}: {history.describe()}", file=out, flush=True)
        return
    if args.json:
        print(json.dumps({"event": "started", "fleet": servers.name, "db": str(path), "retention": history.describe(),
                          "servers": [{"server": r.server.key, "profile": r.server.profile} for r in recorders]},
                         ensure_ascii=True), file=out, flush=True)
    else:
        named = ", ".join(f"{visible(r.server.profile or '')} ({visible(r.server.key)})" for r in recorders)
        print(f"recording fleet {visible(servers.name)}: {named} into {visible(str(path))}: {history.describe()}",
              file=out, flush=True)


async def _record(args: argparse.Namespace, servers: FleetSettings, out: IO[str]) -> int:
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.fleet.fleet import Fleet
    from omeconsole.core.history.database import HistoryError
    from omeconsole.core.history.observations import ServerId
    from omeconsole.core.history.recorder import Recorder
    from omeconsole.core.history.writer import HistoryWriter
    from omeconsole.core.session import poll_settings

    history = servers.servers[0].history
    path = Path(args.db).expanduser() if args.db else history.database_path()
    try:
        writer = await asyncio.to_thread(HistoryWriter.start, path, history)
    except HistoryError as error:
        complain(f"record: {error}")
        return exit_codes.USAGE
    clock = SystemClock()

    def pacing(settings: Settings) -> PollSettings:
        # The engine's in-memory rings only feed charts; the store keeps the history here.
        return poll_settings(settings.model_copy(update={"history_seconds": 10,
                                                         "listing_interval": args.listing_interval}))

    try:
        fleet = Fleet.connect(servers, clock, pacing=pacing)
    except ValueError:
        await asyncio.to_thread(writer.close)
        raise
    recorders = [Recorder(member.engine, clock, ServerId.from_url(member.session.client.api_url,
                                                                   member.session.settings.profile), writer)
                 for member in fleet]
    _say_started(out, args, servers, recorders, path)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    async def report() -> None:
        while True:
            await asyncio.sleep(args.status_every)
            for recorder in recorders:
                _say(out, args.json, "status", recorder.status())

    reporting = asyncio.create_task(report())
    try:
        await asyncio.gather(*(recorder.run(stop) for recorder in recorders))
    finally:
        reporting.cancel()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await asyncio.to_thread(writer.close)
        await fleet.aclose()
    for recorder in recorders:
        _say(out, args.json, "stopped", recorder.status())
    return exit_codes.OK if writer.stats().lost == 0 else exit_codes.REFUSED


def run(args: argparse.Namespace, settings: Settings, *, fleet: FleetSettings | None = None,
        out: IO[str] | None = None) -> int:
    """Records `settings`' server, or every server of `fleet`."""
    from omeconsole.core.fleet.settings import FleetSettings

    assert all(s.token_value() is not None for s in (fleet.servers if fleet else (settings,)))  # the caller checks
    if settings.insecure and fleet is None:
        complain("warning: TLS certificate verification is off (--insecure)")
    try:
        return asyncio.run(_record(args, fleet or FleetSettings.single(settings), out or sys.stdout))
    except ValueError as error:  # an API URL the client refuses
        complain(f"record: {error}")
        return exit_codes.USAGE

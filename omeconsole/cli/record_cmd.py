"""`omeconsole record`: the console's polling without a screen, every sample into the history store.

The process an operator leaves running under systemd (`ExecStart=omeconsole record --profile prod`).
It prints one line when it starts, a status line every `--status-every` seconds and one when it stops
(`--json`: one JSON object per line). SIGTERM or SIGINT stops the polling, writes out everything taken
and exits 0; 1 if some observations could not be written; 2 if the store cannot be opened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from omeconsole.cli import exit_codes
from omeconsole.cli.output import complain
from omeconsole.core.config import Settings
from omeconsole.core.history.settings import parse_duration
from omeconsole.core.text import visible

if TYPE_CHECKING:
    from omeconsole.core.history.recorder import RecorderStatus

LISTING_INTERVAL_S = 60.0
"""A full listing of 10,000 streams is ~105 requests: every 10 s (the console's default, for a screen) it
would take half of a 20 requests/s budget; a recorder gives that to samples (BENCHMARKS.md)."""


def _seconds(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_parser(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    record = add("record", "poll every listed node without a screen and record each sample into the history "
                 "store (for systemd; stops cleanly on SIGTERM and SIGINT)")
    record.add_argument("--db", help="the history database (default: $OMECONSOLE_HISTORY_DB, [history] path, "
                        "or history.sqlite3 in the user data directory)")
    record.add_argument("--status-every", type=_seconds, default=60.0, metavar="SECONDS",
                        help="seconds between status lines (default 60)")
    record.add_argument("--json", action="store_true", help="status lines as JSON objects, one per line")
    record.add_argument("--listing-interval", type=_seconds, default=LISTING_INTERVAL_S, metavar="SECONDS",
                        help=f"seconds between listings of the server (default {LISTING_INTERVAL_S:g}: new and "
                        "ended streams are seen within that, and the rest of the budget goes to samples)")


def _status_fields(event: str, status: RecorderStatus) -> dict[str, Any]:
    writer = status.writer
    return {"event": event, "server": status.server.key, "link": status.link.status, "listed": status.listed,
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
    text = (f"{event}: {visible(status.server.key)} {status.link.status}; {status.listed:,} nodes listed, "
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


async def _record(args: argparse.Namespace, settings: Settings, token: str, out: IO[str]) -> int:
    from omeconsole.api.client import OmeClient
    from omeconsole.core.clock import SystemClock
    from omeconsole.core.history.database import HistoryError
    from omeconsole.core.history.observations import ServerId
    from omeconsole.core.history.recorder import Recorder
    from omeconsole.core.history.writer import HistoryWriter
    from omeconsole.core.polling.engine import PollingEngine
    from omeconsole.core.session import poll_settings

    path = Path(args.db).expanduser() if args.db else settings.history.database_path()
    try:
        writer = await asyncio.to_thread(HistoryWriter.start, path, settings.history)
    except HistoryError as error:
        complain(f"record: {error}")
        return exit_codes.USAGE
    clock = SystemClock()
    # The engine's in-memory rings only feed charts; the store keeps the history here.
    polling = poll_settings(settings.model_copy(update={"history_seconds": 10,
                                                        "listing_interval": args.listing_interval}))
    async with OmeClient(settings.api_url, token, timeout=settings.timeout, verify=not settings.insecure) as client:
        server = ServerId.from_url(client.api_url, settings.profile)
        recorder = Recorder(PollingEngine(client, clock, polling), clock, server, writer)
        if args.json:
            started = {"event": "started", "server": server.key, "profile": settings.profile, "db": str(path),
                       "retention": settings.history.describe()}
            print(json.dumps(started, ensure_ascii=True), file=out, flush=True)
        else:
            print(f"recording {visible(server.key)}" + (f" (profile {visible(settings.profile)})"
                  if settings.profile else "") + f" into {visible(str(path))}: {settings.history.describe()}",
                  file=out, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)

        async def report() -> None:
            while True:
                await asyncio.sleep(args.status_every)
                _say(out, args.json, "status", recorder.status())

        reporting = asyncio.create_task(report())
        try:
            await recorder.run(stop)
        finally:
            reporting.cancel()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
            await asyncio.to_thread(writer.close)
        _say(out, args.json, "stopped", recorder.status())
    return exit_codes.OK if recorder.status().writer.lost == 0 else exit_codes.REFUSED


def run(args: argparse.Namespace, settings: Settings, *, out: IO[str] | None = None) -> int:
    token = settings.token_value()
    assert token is not None  # the caller refuses to go on without one
    if settings.insecure:
        complain("warning: TLS certificate verification is off (--insecure)")
    try:
        return asyncio.run(_record(args, settings, token, out or sys.stdout))
    except ValueError as error:  # an API URL the client refuses
        complain(f"record: {error}")
        return exit_codes.USAGE

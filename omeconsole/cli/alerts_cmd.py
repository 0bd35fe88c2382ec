"""`omeconsole alerts`: the current alerts of a running exporter, once or as they change.

The exporter (`omeconsole exporter`) is the process that evaluates the `[[alerts]]` rules all the time
and sends the webhooks; this command reads its `/alerts` document, so every reader sees the same alerts
and nothing is notified twice. `--watch` prints the table, then one line per alert that fires, resolves
or goes pending; `--json` prints the document (with `--watch`, one JSON object per change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TextIO

from omeconsole.api.alerts_reader import fetch_alerts
from omeconsole.api.errors import OmeError
from omeconsole.cli import exit_codes
from omeconsole.cli.output import complain
from omeconsole.core.text import visible


def _time(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _ago(start: object, now: datetime | None) -> str:
    moment = _time(start)
    if moment is None or now is None:
        return "?"
    seconds = max(0, int((now - moment).total_seconds()))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else (f"{minutes}m{secs:02d}s" if minutes else f"{secs}s")


def _text(value: object, limit: int = 80) -> str:
    return visible(str(value), limit) if value is not None else "-"


def alert_line(alert: Mapping[str, Any], now: datetime | None) -> str:
    status = str(alert.get("status", "?"))
    since = alert.get("resolved_at") if status == "resolved" else alert.get("since")
    where = alert.get("node") or "(server)"
    return (f"{_text(status, 9):9} {_text(alert.get('severity'), 8):8} {_text(alert.get('rule'), 30):30} "
            f"{_text(alert.get('server'), 24)}:{_text(where, 60)}  {_ago(since, now)} ago  "
            f"{_text(alert.get('detail'), 120)}")


def print_table(document: Mapping[str, Any], out: TextIO) -> None:
    now = _time(document.get("generated_at"))
    alerts = document.get("alerts", [])
    if not alerts:
        print("no alerts", file=out)
    for alert in alerts:
        print(alert_line(alert, now), file=out)
    for hook in document.get("webhooks", []):
        if isinstance(hook, dict) and (hook.get("dropped") or hook.get("queued") or hook.get("last_error")):
            print(f"webhook {_text(hook.get('name'), 40)}: delivered {_text(hook.get('delivered'))}, "
                  f"failed attempts {_text(hook.get('failed_attempts'))}, dropped {_text(hook.get('dropped'))}, "
                  f"queued {_text(hook.get('queued'))}, last error: {_text(hook.get('last_error'), 120)}", file=out)


def _states(document: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """Each alert by (fingerprint, status): a change of either is worth a line."""
    return {(str(a.get("fingerprint")), str(a.get("status"))): a for a in document.get("alerts", [])}


async def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        document = await fetch_alerts(args.exporter)
        if args.json and not args.watch:
            print(json.dumps(document, separators=(",", ":")), file=out)
            return exit_codes.OK
        if args.json:
            for alert in document["alerts"]:
                print(json.dumps(alert, separators=(",", ":")), file=out, flush=True)
        else:
            print_table(document, out)
        if not args.watch:
            return exit_codes.OK
        seen = _states(document)
        readings = 1
        while args.count is None or readings < args.count:
            await asyncio.sleep(max(0.1, args.interval))
            document = await fetch_alerts(args.exporter)
            readings += 1
            now = _time(document.get("generated_at"))
            current = _states(document)
            for key, alert in current.items():
                if key not in seen:
                    line = json.dumps(alert, separators=(",", ":")) if args.json else alert_line(alert, now)
                    print(line, file=out, flush=True)
            seen = current
    except OmeError as error:
        complain(str(error))
        return exit_codes.for_error(error)
    return exit_codes.OK

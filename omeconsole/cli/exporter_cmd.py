"""`omeconsole exporter`: Prometheus metrics and alerts for a server or a fleet, from the console's polling,
headless.

Listens on loopback by default; another address is allowed and warned about (anyone who reaches the
port reads stream names, numbers and alerts). Stops cleanly on SIGTERM or Ctrl-C. `--fleet NAME`
exports every server of the fleet from this one process under one request budget, each server's
series labelled `server` = its profile's name.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from typing import TYPE_CHECKING

from omeconsole.cli import exit_codes
from omeconsole.cli.loopback import is_loopback
from omeconsole.cli.output import complain
from omeconsole.core.alerts.webhook_config import WebhookConfigError
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.fleet.settings import FleetSettings
from omeconsole.core.text import visible

if TYPE_CHECKING:  # uvicorn and prometheus_client load when the exporter runs, not at every start (the console's)
    from omeconsole.exporter.service import Exporter



async def _serve(exporter: Exporter, host: str, port: int) -> int:
    try:
        bound_host, bound_port = await exporter.start_http(host, port)
    except OSError as error:
        complain(f"cannot listen on {host}:{port}: {error.strerror or error}")
        return exit_codes.USAGE
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    servers = "" if len(exporter.servers) == 1 else f": {', '.join(server.name for server in exporter.servers)}"
    print(f"omeconsole exporter: http://{shown}:{bound_port}/metrics and /alerts for {visible(exporter.name)}"
          f"{visible(servers)} ({len(exporter.settings.alerts)} alert rules, {len(exporter.webhooks)} webhooks)",
          file=sys.stderr)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, exporter.stop)
    await exporter.run()
    return exit_codes.OK


async def _main(settings: Settings, args: argparse.Namespace, fleet: FleetSettings | None) -> int:
    from omeconsole.exporter.service import Exporter  # imported here: see TYPE_CHECKING above

    try:
        exporter = Exporter(settings, SystemClock(), fleet=fleet, max_streams=args.max_streams,
                            warn=lambda text: complain(f"warning: {text}"))
    except WebhookConfigError as error:
        complain(str(error))
        return exit_codes.USAGE
    except ValueError as error:  # an API URL the client refuses
        complain(f"exporter: {error}")
        return exit_codes.USAGE
    async with exporter:
        return await _serve(exporter, *args.listen)


def configure_logging() -> None:
    """Alert transitions and delivery failures at INFO on stderr; the HTTP library's own lines are kept out
    (a request's full URL may reach them, and a webhook URL may carry a token in its query)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    for wire in ("aiohttp", "aiohttp.client"):
        logging.getLogger(wire).setLevel(logging.WARNING)


def run(settings: Settings, args: argparse.Namespace, *, fleet: FleetSettings | None = None) -> int:
    """Exports `settings`' server, or every server of `fleet` (then `settings` are its first server's: the
    webhooks, the alert rules' log and the interval of the exporter come from them)."""
    host, _ = args.listen
    if not is_loopback(host):
        print(f"omeconsole: warning: listening on {host}: anyone who can reach this port reads stream names, "
              "numbers and alerts (there is no authentication)", file=sys.stderr)
    configure_logging()
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_main(settings, args, fleet))
    return exit_codes.OK

"""`omeconsole serve`: the console in a browser, one console process per browser session (omeconsole/serve).

Loopback by default. Any other address is refused unless `--auth-file` names a password (0600), and then
warned about without TLS. Sessions are read-only unless `--allow-sends`. The access token reaches each
console through its environment, never its command line; the URL printed holds no secret.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import signal
import sys
from pathlib import Path

from omeconsole.cli import exit_codes
from omeconsole.cli.loopback import is_loopback
from omeconsole.cli.output import complain
from omeconsole.core.config import TOKEN_ENV, Settings
from omeconsole.core.text import visible


def _without_userinfo(url: str) -> str:
    """The API's address as pages and the banner show it: a `user:password@` in it is left out."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def console_arguments(settings: Settings, args: argparse.Namespace) -> list[str]:
    """The console's command line for one session: the server's address (no token) and the session's mode."""
    words = [sys.executable, "-m", "omeconsole.cli.main"]
    if not _allow_sends(settings, args):
        words.append("--read-only")
    if args.select:
        words += ["--select", args.select]
    if args.demo:
        return [*words, "demo", "--scenario", args.scenario, "--seed", str(args.seed)]
    if settings.profile:
        words += ["--profile", settings.profile]
    words += ["--api-url", settings.api_url]
    if settings.publisher_url:
        words += ["--publisher-url", settings.publisher_url]
    if settings.insecure:
        words.append("--insecure")
    return [*words, "ui"]


def _allow_sends(settings: Settings, args: argparse.Namespace) -> bool:
    """--allow-sends, unless the settings are read-only (--read-only, or the profile's read_only)."""
    return bool(args.allow_sends) and not settings.read_only


def _environment(settings: Settings, args: argparse.Namespace) -> dict[str, str]:
    token = None if args.demo else settings.token_value()
    return {} if token is None else {"OME_ACCESS_TOKEN": token}


async def _serve(settings: Settings, args: argparse.Namespace, secret: bytes | None) -> int:
    from omeconsole.serve.auth import Gate
    from omeconsole.serve.pages import Terms
    from omeconsole.serve.server import ConsoleCommand, ConsoleServer

    host, port = args.listen
    target = "the demo (a simulator per session)" if args.demo else visible(_without_userinfo(settings.api_url))
    allow_sends = _allow_sends(settings, args)
    if args.allow_sends and not allow_sends:
        complain("serve: warning: --allow-sends is overruled: the settings are read-only (--read-only or the "
                 "profile's read_only); every session is read-only")
    terms = Terms(title=f"omeconsole · {target}", allow_sends=allow_sends, max_sessions=args.max_sessions,
                  idle_timeout_s=args.idle_timeout)
    console = ConsoleCommand(shlex.join(console_arguments(settings, args)), _environment(settings, args),
                             removed=tuple(TOKEN_ENV))
    server = ConsoleServer(console, terms, Gate(secret))
    try:
        bound_host, bound_port = await server.start(host, port)
    except OSError as error:
        complain(f"cannot listen on {host}:{port}: {error.strerror or error}")
        return exit_codes.USAGE
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    mode = "sends allowed" if allow_sends else "read-only"
    login = ", password required" if secret is not None else ""
    print(f"omeconsole serve: http://{shown}:{bound_port}/ — the console on {target}; {mode}{login}; "
          f"at most {args.max_sessions} sessions, each ended after {args.idle_timeout:g} s without a key press",
          file=sys.stderr, flush=True)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, server.stop)
    await server.run()
    return exit_codes.OK


def run(settings: Settings, args: argparse.Namespace) -> int:
    host, _ = args.listen
    secret: bytes | None = None
    if args.auth_file is not None:
        from omeconsole.serve.auth import AuthFileError, read_auth_file

        try:
            secret = read_auth_file(Path(args.auth_file).expanduser())
        except AuthFileError as error:
            complain(f"serve: {error}")
            return exit_codes.USAGE
    if not is_loopback(host):
        if secret is None:
            complain(f"serve: refusing to listen on {host} without --auth-file: anyone who reaches the port "
                     "would get the console (listen on 127.0.0.1, or require a password)")
            return exit_codes.USAGE
        complain(f"serve: warning: listening on {host} without TLS: the password and every screen cross the "
                 "network in clear; put a TLS reverse proxy in front")
    try:
        import omeconsole.serve.compat  # noqa: F401  (textual-serve's version, checked before listening)
    except ImportError as error:
        complain(f"serve: {error}")
        return exit_codes.REFUSED
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_serve(settings, args, secret))
    return exit_codes.OK

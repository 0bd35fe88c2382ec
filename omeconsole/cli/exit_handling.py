"""A command's work: its failures said on stderr with their exit status, and on the event loop, SIGINT,
SIGTERM and SIGHUP stopping it cleanly.

A send interrupted mid-flight is logged by the send path with its outcome unknown; this says so, and
the command exits 128 + the signal's number as a program killed by it would.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable

from omeconsole.api.errors import OmeError
from omeconsole.cli import exit_codes
from omeconsole.cli.commands import UsageError
from omeconsole.cli.output import complain
from omeconsole.core.config import ConfigError

INTERRUPTING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


async def interruptible(work: Callable[[], Awaitable[int]], *, sending: bool) -> int:
    """`work()`'s exit status, or 128 + N when signal N stopped it (the caller closes what it opened)."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    caught: list[int] = []

    def interrupt(signum: int) -> None:
        caught.append(signum)
        task.cancel()

    for signum in INTERRUPTING:
        loop.add_signal_handler(signum, interrupt, signum)
    try:
        return await work()
    except asyncio.CancelledError:
        if not caught:
            raise
        name = signal.Signals(caught[0]).name
        if sending:
            complain(f"interrupted by {name}: a request that was in flight is logged with its outcome unknown — "
                     "check the playlist before sending again")
        else:
            complain(f"interrupted by {name}")
        return 128 + caught[0]
    finally:
        for signum in INTERRUPTING:
            loop.remove_signal_handler(signum)


def reported(work: Callable[[], int]) -> int:
    """`work()`'s exit status; a usage or configuration mistake, or a server's error, said and turned into
    its status."""
    try:
        return work()
    except (ConfigError, UsageError) as error:
        complain(str(error))
        return exit_codes.USAGE
    except OmeError as error:
        complain(str(error))
        return exit_codes.for_error(error)

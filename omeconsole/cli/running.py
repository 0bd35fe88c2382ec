"""A command's work on the event loop: SIGINT, SIGTERM and SIGHUP stop it cleanly, with the right status.

A send interrupted mid-flight is logged by the send path with its outcome unknown; this says so, and
the command exits 128 + the signal's number as a program killed by it would.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable

from omeconsole.cli.output import complain

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

"""The schedules run by the console itself, when no `omeconsole scheduler` holds the lock.

One per server connection (its ad operations), kept while the console runs: closing the schedules
screen does not stop it, quitting the console does (the lock is the kernel's, released with the
process). The runner is the core's, with the same lock, rules and audit log as the headless one; what
it says is kept (the newest `KEPT` events) for the screen and told in a toast when it matters.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import deque
from collections.abc import Callable

from omeconsole.core.adops.operations import AdOps
from omeconsole.core.schedule.edits import Files
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.lock import LockHeld, RunnerLock, holder_of, lock_path
from omeconsole.core.schedule.runner import Runner, RunnerRefused
from omeconsole.core.schedule.store import Book, load_book

KEPT = 200
TOLD = frozenset({"preroll", "sent", "skipped", "missed", "unknown", "unconfirmed", "refused", "invalid", "no-match"})
"""What is worth a toast (the rest is only on the schedules screen)."""


class ConsoleScheduler:
    def __init__(self, adops: AdOps, files: Files) -> None:
        self.adops = adops
        self.files = files
        self.events: deque[RunnerEvent] = deque(maxlen=KEPT)
        self.runner: Runner | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.tell: Callable[[RunnerEvent], None] | None = None

    @property
    def lock_file(self) -> str:
        return str(lock_path(self.adops.audit.path))

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def holder(self) -> str | None:
        """Who runs the schedules when this console does not (None: nobody)."""
        return None if self.running else holder_of(lock_path(self.adops.audit.path))

    def book(self) -> Book:
        if self.runner is not None and self.running:
            return self.runner.book
        return load_book(self.files.config, self.files.schedules)

    def start(self) -> str:
        """Run the schedules here; the words say what happened (refused: whoever holds the lock, a bad file)."""
        if self.running:
            return "the schedules already run in this console"
        runner = Runner(self.adops, lambda: load_book(self.files.config, self.files.schedules),
                        [self.files.config, self.files.schedules], self._report,
                        RunnerLock(lock_path(self.adops.audit.path), "omeconsole console"))
        try:
            runner.start()
        except (LockHeld, RunnerRefused, ValueError) as error:  # ValueError: ScheduleError
            return f"not started: {error}"
        except OSError as error:
            return f"not started: the lock {runner.lock.path} cannot be taken ({error.strerror or error})"
        self.runner = runner
        self._stop = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(runner), name="console schedules")
        return f"running {len(runner.book.schedules)} schedule(s) in this console"

    async def stop(self) -> None:
        if self._task is None:
            return
        self._stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self, runner: Runner) -> None:
        try:
            await runner.run(self._stop)
        finally:
            runner.close()

    def _report(self, event: RunnerEvent) -> None:
        self.events.append(event)
        if self.tell is not None and event.kind in TOLD:
            self.tell(event)


_BY_SERVER: weakref.WeakKeyDictionary[AdOps, ConsoleScheduler] = weakref.WeakKeyDictionary()


def console_scheduler(adops: AdOps, files: Files) -> ConsoleScheduler:
    """The console's scheduler for this server connection (made on first use)."""
    found = _BY_SERVER.get(adops)
    if found is None:
        found = _BY_SERVER[adops] = ConsoleScheduler(adops, files)
    return found

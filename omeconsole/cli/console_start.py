"""The console's start: its first requests already on the way while the terminal UI is imported.

Importing the UI (Textual, the screens, the chart) takes a few hundred milliseconds. The command line
therefore makes the session first, with the connector the console itself uses, and runs its engine on
the event loop the console will then run on: edition detection (whose reply is the first reading),
the first listing and the selected node's first reading travel while a worker thread imports the UI.
The console adopts that running session (`run_app(..., started=...)`) rather than connecting again,
so its first screen draws what has already arrived. Garbage collection stays off (the command line
turned it off at launch) until that first screen is drawn (`gc_policy`).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
from types import ModuleType

from omeconsole.cli import exit_codes, gc_policy
from omeconsole.cli.output import complain
from omeconsole.core.clock import SystemClock
from omeconsole.core.config import Settings
from omeconsole.core.session import Started, connector
from omeconsole.model.paths import NodePath

CONSOLE_MODULE = "omeconsole.ui.app"


def run_console(settings: Settings, select: str | None, *, debug: bool = False) -> int:
    """The console until the user quits; 0 on a normal exit. `select` is "vhost[/app[/stream]]". `debug`:
    how the process is tuned is said on stderr first."""
    if importlib.util.find_spec(CONSOLE_MODULE) is None:
        complain(f"the terminal console is not available in this build ({CONSOLE_MODULE} is missing); "
                 "the command-line subcommands work: see omeconsole --help")
        return exit_codes.REFUSED
    loop = asyncio.new_event_loop()
    started: Started | None = None
    try:
        started = loop.run_until_complete(_start(loop, settings, select))
        # The engine's task goes on with its requests (on this loop) while the UI is imported.
        module: ModuleType = loop.run_until_complete(asyncio.to_thread(importlib.import_module, CONSOLE_MODULE))
        result = module.run_app(settings, select=select, started=started,
                                start_watch=gc_policy.console(debug=debug))
        return result if isinstance(result, int) else exit_codes.OK
    finally:
        _close(loop, started)


async def _start(loop: asyncio.AbstractEventLoop, settings: Settings, select: str | None) -> Started | None:
    """The session and its engine's task; None when the settings cannot make one (the console then
    connects itself and says why, as without this head start)."""
    try:
        session = connector(SystemClock())(settings)
    except ValueError:
        return None
    if select:
        session.engine.select(NodePath.parse(select))  # what the console's first screen selects
    return Started(session, loop, loop.create_task(session.engine.run(), name="engine"))


def _close(loop: asyncio.AbstractEventLoop, started: Started | None) -> None:
    """What is left on the loop once the console is gone (or never came): the session closed (a no-op
    if the console closed it already), the engine's task ended, the loop closed."""
    try:
        if started is not None:
            loop.run_until_complete(started.session.aclose())
        left = asyncio.all_tasks(loop)  # the engine's task, if the console never took it over
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()

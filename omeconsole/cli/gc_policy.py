"""The process's garbage collection: the one module that decides when Python collects, freezes or waits.

The command line calls it (`main`: `launch`, `command_chosen`, `exiting`; a console's entry: `console`);
the polling engine and the screens know nothing of it. What it does, and why (BENCHMARKS.md):

- From launch to the command: no collections. Loading a command (pydantic's models, the HTTP client,
  Textual) makes long-lived objects only; the collections it would trigger free next to nothing and cost
  the console ~40 ms before its first screen. Any command but the console resumes them at once.
- A console: what exists once its modules are loaded, when an engine starts, when a server's first
  complete listing has arrived (and what the screens built from it) and when the first screen is drawn
  lives as long as the process: it is frozen (`gc.freeze()`), so full collections scan only what came
  later. At `scale` this took the steady full-collection pause from ~85 to ~30 ms.
- The console started by `omeconsole` (`console_start`) holds collections off until its first screen is
  on the terminal: the collection is not what the user is waiting for.
- Drawing: the middle generation is examined once per `MIDDLE_EVERY` young collections (Python's default:
  10), so what the screen caches for a second or two dies there instead of filling the oldest
  generation; and Textual's strips no longer hold themselves (`ui/textual_compat.py`, for the Textual
  versions it was written for).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line's start imports no engine (tests/unit/test_cli_startup.py)
    from omeconsole.core.polling.engine import EngineUpdate, PollingEngine

MIDDLE_EVERY = 100
"""Young collections between two collections of the middle generation (about ten seconds of drawing)."""


def launch() -> None:
    """At the start of the process, before a command is chosen."""
    gc.disable()


def command_chosen(*, holds_off_until_drawn: bool) -> None:
    """The command is known: only the console started by `omeconsole` keeps collections off (until its
    first screen is drawn, `ConsoleStart.first_screen_drawn`)."""
    if not holds_off_until_drawn:
        gc.enable()


def exiting() -> None:
    gc.enable()


def console(*, debug: bool = False, say: Callable[[str], None] | None = None) -> ConsoleStart:
    """A console is about to run (its modules are loaded): tuned for drawing; what it returns is told of
    the console's start (`ui.app.StartWatch`). `debug`: what was tuned is said on stderr (or to `say`)."""
    from omeconsole.ui.textual_compat import uncycle_strips

    compat = uncycle_strips()
    young, _middle, old = gc.get_threshold()
    gc.set_threshold(young, MIDDLE_EVERY, old)
    gc.freeze()  # the modules live as long as the process
    if debug:
        tell = say or (lambda words: print(f"omeconsole: {words}", file=sys.stderr))
        tell(compat.words)
        tell(f"garbage collection: thresholds {gc.get_threshold()}, "
             f"{'on' if gc.isenabled() else 'off until the first screen is drawn'}")
    return ConsoleStart()


class ConsoleStart:
    """Told of a console's start; freezes what is long-lived at each step and resumes collections once the
    first screen is drawn."""

    def engine_started(self, engine: PollingEngine) -> None:
        """An engine starts polling: the app and its screens are built."""
        gc.freeze()
        stop: Callable[[], None] | None = None

        def first_listing(update: EngineUpdate) -> None:
            if not update.first_listing:
                return
            if stop is not None:
                stop()
            if gc.isenabled():  # while collections are held off, `first_screen_drawn` collects and freezes
                gc.collect()
                gc.freeze()

        stop = engine.add_listener(first_listing)

    def first_screen_drawn(self) -> None:
        gc.collect()
        gc.freeze()
        gc.enable()

"""Ended streams, from the history store: every stream of this server that ended, with its life in one line.

The tree shows a stream for a while after it ends (what the engine keeps); the store keeps it for its
retention, so this screen (`H`) lists every recorded stream of the server that has ended, last ended
first: "default/app/keynote  ended 3 h 02 min ago — peak 812 viewers, 14.16 GiB out, 1 h 52 min live".
The filter keeps the lines whose name contains the text. The store is read in a worker thread with its
own connection; names are the server's and are shown through `visible`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from omeconsole.core.clock import Clock
from omeconsole.core.history.replay_engine import ReplayEngine
from omeconsole.core.history.summary import StreamSummary
from omeconsole.core.text import visible
from omeconsole.live.recorded_ended import EndedSource, read_ended
from omeconsole.live.session import LiveSession
from omeconsole.ui.actions import bindings
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.keyed_lists import KeyedOptionList
from omeconsole.ui.widgets.status_bar import StatusLine
from omeconsole.ui.widgets.ticking_status_bar import TickingStatusBar

MAX_SHOWN = 2000
"""Lines listed at most (the most recently ended); the title says how many more there are."""


def ended_source(live: LiveSession) -> EndedSource | None:
    """Where this session's ended streams are recorded (None: the console records no history)."""
    if live.past is not None:
        return EndedSource(live.past.path, live.past.settings, live.past.server)
    engine = live.engine
    if isinstance(engine, ReplayEngine):
        return EndedSource(engine.reader.path, engine.reader.settings, engine.server_key)
    return None


class EndedScreen(Screen[None]):
    BINDINGS = bindings("close_ended", "filter")

    def __init__(self, source: EndedSource, clock: Clock, *, status_line: Callable[[], StatusLine]) -> None:
        super().__init__()
        self.source = source
        self._status_line = status_line
        self._clock = clock
        self._summaries: list[StreamSummary] | None = None
        self.loaded = asyncio.Event()
        """Set once the store has been read and listed."""

    def compose(self) -> ComposeResult:
        yield Static(id="ended-title")
        yield Input(placeholder="filter: part of a name", id="ended-filter")
        yield KeyedOptionList(id="ended-list")
        yield TickingStatusBar(self._status_line, self._clock, id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        self._title("reading the history store…")
        self.query_one(OptionList).focus()
        self._load()

    def _title(self, words: str) -> None:
        self.query_one("#ended-title", Static).update(Text(words, style="bold"))

    @work(exclusive=True, group="ended-read", exit_on_error=False)
    async def _load(self) -> None:
        self._summaries = await asyncio.to_thread(read_ended, self.source)
        self._show()
        self.loaded.set()

    @on(Input.Changed, "#ended-filter")
    def _filtered(self) -> None:
        self._show()

    def _show(self) -> None:
        summaries = self._summaries
        if summaries is None:
            return
        wanted = self.query_one("#ended-filter", Input).value.strip().casefold()
        matching = [s for s in summaries if wanted in str(s.path).casefold()]
        now = self._clock.wall().timestamp()
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(Option(self._line(summary, now)) for summary in matching[:MAX_SHOWN])
        more = f" ({len(matching) - MAX_SHOWN:,} more not listed)" if len(matching) > MAX_SHOWN else ""
        words = f"{len(summaries):,} ended stream{'s' if len(summaries) != 1 else ''} recorded on " \
                f"{visible(self.source.server)}"
        if wanted:
            words += f"; {len(matching):,} match {visible(wanted)!r}"
        self._title(words + more + " (Esc closes)")

    @staticmethod
    def _line(summary: StreamSummary, now: float) -> Text:
        line = Text(visible(str(summary.path)), style="bold", no_wrap=True, overflow="ellipsis")
        line.append(f"  {summary.describe(now)}")
        return line

    def action_filter(self) -> None:
        self.query_one("#ended-filter", Input).focus()

    def action_close(self) -> None:
        self.dismiss()

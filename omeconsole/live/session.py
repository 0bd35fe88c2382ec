"""What a live screen is built with: the session as the screens see it, and the console's clock tick.

- `LiveSession`: the session as a screen sees it (engine, ad operations, context, settings), plus the
  console's clock tick, view options and pace (`live/pace.py`: when a terminal redraws). Screens take it
  in their constructor; a new session (another token, server or profile) means new screens.
- `Ticker`: one loop on the console clock for the whole app; each live screen listens while mounted.

How the engine's news and the tick reach a screen as Textual messages is `ui/engine_feed.py`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.chart_scale import WINDOWS
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.core.export import export_directory
from omeconsole.core.listeners import Listeners, Unsubscribe
from omeconsole.core.polling.engine import PollingEngine
from omeconsole.core.session import Session
from omeconsole.core.tree_model import SortOrder
from omeconsole.live.ad_board import AdBoard
from omeconsole.live.alert_watch import SessionAlerts
from omeconsole.live.chart_events import ChartEvents
from omeconsole.live.pace import Pace
from omeconsole.model.nodes import NodeView
from omeconsole.model.paths import NodePath

if TYPE_CHECKING:
    from omeconsole.live.recorded_past import StoredPast


@dataclass
class ViewOptions:
    """What the operator chose to see, shared by the screens of a session (only the screen in front
    changes them; the others read them again when they come back)."""

    chart_window: float = WINDOWS[0]
    """Seconds of history the charts and sparklines show."""
    sort_order: SortOrder = SortOrder.NAME


class Ticker:
    """Calls its listeners once per second of console time, while `run()` runs."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._listeners: Listeners[[]] = Listeners("clock tick")

    async def run(self) -> None:
        while True:
            await self._clock.sleep(1.0)
            self._listeners.tell()

    def add_listener(self, listener: Callable[[], None]) -> Unsubscribe:
        return self._listeners.add(listener)


NOTE_SECONDS = 6.0
"""How long the status line keeps saying what a key just did."""


class NoteBoard:
    """The last thing the console said in the status line ("paused: polling once now"), with its time,
    shared by a session's screens so it follows the operator from one screen to the next."""

    def __init__(self) -> None:
        self._text = ""
        self._at = -math.inf

    def say(self, text: str, now: float) -> None:
        self._text, self._at = text, now

    def current(self, now: float) -> str:
        return self._text if now - self._at < NOTE_SECONDS else ""


@dataclass(frozen=True)
class LiveSession:
    """Everything a live screen reads and does, for one connection."""

    session: Session
    ticker: Ticker
    ad_board: AdBoard
    options: ViewOptions = field(default_factory=ViewOptions)
    pace: Pace = field(default_factory=Pace)
    export_dir: Path = field(default_factory=export_directory)
    alert_watch: SessionAlerts | None = None
    """The `[[alerts]]` rules run on this session's readings (None when the config has none)."""
    notes: NoteBoard = field(default_factory=NoteBoard)
    past: StoredPast | None = None
    """The recorded past of this server's nodes, put in front of their charts (None: no history store)."""
    events: ChartEvents = field(init=False)
    """What happened to the nodes, for their charts (ad breaks, alerts, starts, ends, restarts): listening from
    the moment the session is made, so nothing between its start and the first chart is missed."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", ChartEvents(self.session.engine, self.ad_board, self.alerts, self.clock))

    @property
    def alerts(self) -> AlertEvaluator | None:
        return self.alert_watch.evaluator if self.alert_watch is not None else None

    @property
    def engine(self) -> PollingEngine:
        return self.session.engine

    @property
    def clock(self) -> Clock:
        return self.session.clock

    @property
    def context(self) -> ServerContext:
        return self.session.context

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def audit(self) -> AuditLog:
        return self.session.audit

    def chart_view(self, path: NodePath) -> NodeView:
        """The node as its chart and sparklines show it: its recorded past first, when there is one."""
        view = self.engine.node(path)
        return view if self.past is None else self.past.joined(view)

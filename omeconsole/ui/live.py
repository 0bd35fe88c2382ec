"""What a live screen is built with, and how the engine's news and the clock reach it.

- `LiveSession`: the session as a screen sees it (engine, ad operations, context, settings), plus the
  console's clock tick, view options and pace. Screens take it in their constructor; a new session
  (another token, server or profile) means new screens.
- `EngineFeed`: one screen's subscription to the engine. Reports are accumulated in the feed and one
  parameterless `EngineChanged` is posted to the screen while any is waiting, so a burst of reports
  costs one redraw and no message is ever edited.
- `Ticker`: one loop on the console clock for the whole app; each live screen listens while mounted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual.css.query import NoMatches
from textual.message_pump import MessagePump

from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.context import ServerContext
from omeconsole.core.export import export_directory
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.core.session import Session
from omeconsole.core.tree_model import SortOrder
from omeconsole.model.nodes import NodeView
from omeconsole.model.paths import NodePath
from omeconsole.ui.ad_board import AdBoard
from omeconsole.ui.messages import ClockTick, EngineChanged
from omeconsole.ui.session_alerts import SessionAlerts
from omeconsole.ui.widgets.chart_scale import WINDOWS

if TYPE_CHECKING:
    from omeconsole.ui.past import StoredPast
Unsubscribe = Callable[[], None]


@dataclass(frozen=True)
class Pace:
    """How often a real terminal is redrawn; tests keep the zeros (every report drawn at once)."""

    redraw_gap: float = 0.0
    """Seconds (console clock) between data redraws; reports arriving faster are merged into the next one."""
    chart_gap: float = 0.0
    """Seconds between rebuilds of the bit-rate chart, the costliest widget; numbers follow every redraw."""
    tick_redraw_after: float = 0.9
    """A clock tick redraws (ages, countdowns) only if no data redraw happened for this long."""


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
        self._listeners: list[Callable[[], None]] = []

    async def run(self) -> None:
        while True:
            await self._clock.sleep(1.0)
            for listener in list(self._listeners):
                listener()

    def listen(self, listener: Callable[[], None]) -> Unsubscribe:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None


@dataclass(frozen=True)
class Changes:
    """What changed since a screen last drew: `nodes` None means anything may have."""

    nodes: frozenset[NodePath] | None = frozenset()
    tree: bool = False
    connection: bool = False

    def __or__(self, other: Changes) -> Changes:
        nodes = None if self.nodes is None or other.nodes is None else self.nodes | other.nodes
        return Changes(nodes, self.tree or other.tree, self.connection or other.connection)


EVERYTHING = Changes(None, True, True)
NOTHING = Changes()


class EngineFeed:
    """Engine reports for one screen, accumulated until the screen takes them."""

    def __init__(self, engine: PollingEngine, target: MessagePump,
                 watched: Callable[[], NodePath | None] = lambda: None) -> None:
        """`watched`: the node whose readings the target draws at once (its selected node)."""
        self._engine = engine
        self._target = target
        self._watched = watched
        self._held = NOTHING
        self._posted = False
        self._held_selected = False
        self._unsubscribe: Unsubscribe | None = None

    def attach(self) -> None:
        if self._unsubscribe is None:
            self._unsubscribe = self._engine.add_listener(self._report)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _report(self, update: EngineUpdate) -> None:
        self._held = self._held | Changes(update.changed, update.tree_changed, update.connection_changed)
        selected = self._watching() in update.changed
        if not self._posted or selected:  # each of the watched node's changes is told: its redraw may be due
            self._posted = True
            self._target.post_message(EngineChanged(selected=selected))
        self._held_selected = self._held_selected or selected

    def hold(self, paths: frozenset[NodePath]) -> None:
        """Draw these rows again with the next reports (their ad break or their playlist's state moved)."""
        self._held = self._held | Changes(paths)

    @property
    def holds_selected(self) -> bool:
        """A reading of the watched node is among what arrived since the last `take()`."""
        return self._held_selected

    def _watching(self) -> NodePath | None:
        try:
            return self._watched()
        except NoMatches:  # the screen is being built or taken down: nothing is watched yet
            return None

    def take(self) -> Changes:
        """What arrived since the last `take()`; the next report posts a new `EngineChanged`."""
        held, self._held, self._posted, self._held_selected = self._held, NOTHING, False, False
        return held


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
    pace: Pace = Pace()
    export_dir: Path = field(default_factory=export_directory)
    alert_watch: SessionAlerts | None = None
    """The `[[alerts]]` rules run on this session's readings (None when the config has none)."""
    notes: NoteBoard = field(default_factory=NoteBoard)
    past: StoredPast | None = None
    """The recorded past of this server's nodes, put in front of their charts (None: no history store)."""

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

    def tick_into(self, target: MessagePump) -> Unsubscribe:
        """`target` gets a `ClockTick` every second until the returned function is called."""
        def tick() -> None:
            target.post_message(ClockTick())

        return self.ticker.listen(tick)

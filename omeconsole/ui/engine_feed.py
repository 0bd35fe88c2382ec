"""How the engine's news and the console's clock tick reach a screen: as Textual messages.

- `EngineFeed`: one screen's subscription to the engine. Reports are accumulated in the feed and one
  parameterless `EngineChanged` is posted to the screen while any is waiting, so a burst of reports
  costs one redraw and no message is ever edited.
- `tick_into`: a `ClockTick` to a screen every second of console time, from the session's `Ticker`.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.css.query import NoMatches
from textual.message_pump import MessagePump

from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.messages import ClockTick, EngineChanged

EVERYTHING = EngineUpdate(tree_changed=True, connection_changed=True, everything=True)
"""What a screen drawn anew draws."""
NOTHING = EngineUpdate()
"""No data changed: ages, badges and the status line only."""


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
        self.holds_selected = False
        """A reading of the watched node is among what arrived since the last `take()`."""
        self._unsubscribe: Unsubscribe | None = None

    def attach(self) -> None:
        if self._unsubscribe is None:
            self._unsubscribe = self._engine.add_listener(self._report)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _report(self, update: EngineUpdate) -> None:
        self._held = self._held | update
        selected = self._watching() in update.changed
        if not self._posted or selected:  # each of the watched node's changes is told: its redraw may be due
            self._posted = True
            self._target.post_message(EngineChanged(selected=selected))
        self.holds_selected = self.holds_selected or selected

    def hold(self, paths: frozenset[NodePath]) -> None:
        """Draw these rows again with the next reports (their ad break or their playlist's state moved)."""
        self._held = self._held | EngineUpdate(changed=paths)

    def _watching(self) -> NodePath | None:
        try:
            return self._watched()
        except NoMatches:  # the screen is being built or taken down: nothing is watched yet
            return None

    def take(self) -> EngineUpdate:
        """What arrived since the last `take()`; the next report posts a new `EngineChanged`."""
        held, self._held, self._posted, self.holds_selected = self._held, NOTHING, False, False
        return held


def tick_into(live: LiveSession, target: MessagePump) -> Unsubscribe:
    """`target` gets a `ClockTick` every second until the returned function is called."""
    def tick() -> None:
        target.post_message(ClockTick())

    return live.ticker.add_listener(tick)

"""Messages between the engine bridge, the screens and the widgets.

`DataChanged` coalesces in the queue (Toolong's pattern): when the engine reports faster than the
screen draws, the pending messages merge into one that carries the union of what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from omeconsole.model.paths import NodePath


class DataChanged(Message):
    """The engine has new readings (or a new listing, or a new connection state)."""

    def __init__(self, changed: frozenset[NodePath], tree_changed: bool, connection_changed: bool) -> None:
        super().__init__()
        self.changed = changed
        self.tree_changed = tree_changed
        self.connection_changed = connection_changed

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, DataChanged):
            return False
        # Textual asks the older message whether the newer one may replace it: hand our news to the
        # newer message so nothing is lost when this one is dropped.
        message.changed = message.changed | self.changed
        message.tree_changed = message.tree_changed or self.tree_changed
        message.connection_changed = message.connection_changed or self.connection_changed
        return True


class ClockTick(Message):
    """One second of console time passed: ages and retry countdowns move on even with no new data."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ClockTick)


@dataclass
class NodeChosen(Message):
    """The user highlighted a node (tree cursor or child list); the engine polls it first."""

    path: NodePath | None


@dataclass
class DrillDown(Message):
    """The user pressed Enter on a node: open its full view."""

    path: NodePath

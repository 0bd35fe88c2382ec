"""The messages that make a live screen redraw itself (Toolong's pattern: small, to the owner).

Both carry nothing and replace a twin still waiting in the queue: what changed is kept by the
screen's `EngineFeed` (an accumulator), so coalescing never has to edit a message.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class EngineChanged(Message, bubble=False):
    """The engine has news for this screen: take it from the screen's feed."""

    selected: bool = False
    """Posted for a change of the screen's selected node (the one the operator watches)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, EngineChanged) and (self.selected or not message.selected)


@dataclass
class ClockTick(Message, bubble=False):
    """A second of console time passed: ages and countdowns move on even with no new data."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ClockTick)


@dataclass
class AlertsChanged(Message, bubble=False):
    """An alert started firing or resolved: badges, the status line and the alerts screen redraw now."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, AlertsChanged)

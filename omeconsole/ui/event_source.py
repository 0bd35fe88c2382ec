"""The events a screen shows for a node: read from the session's `ChartEvents` at the screen's instant."""

from __future__ import annotations

from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.widgets.event_list import ShownEvents


def shown_events(live: LiveSession, path: NodePath, now: float) -> ShownEvents:
    """`path`'s events at `now` (the screen's instant on the console clock, read with its wall time)."""
    return ShownEvents(path, live.events.events(path), now, live.events.wall_now(now), live.events.unseen)

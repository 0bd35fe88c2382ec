"""How long a stream has been up, on the server's own clock: from its `createdTime` to the newest instant
the server itself stamped (`lastUpdatedTime`, `lastRecvTime`, `lastSentTime`), plus the console's
monotonic seconds since the reading that carried that stamp.

The console's wall clock is never compared with the server's: a console whose clock is minutes off would
otherwise show a stream minutes older or younger than it is, or "created in the future". Both ends of the
span are the server's, and what is added after it is measured on one clock (the screen's instant of this
tick against the reading's arrival). When the server's stamps stand still (no byte in or out), the span
is counted from the first reading that carried the same stamp, so the figure never goes back between
readings. A `createdTime` after the server's own newest stamp, or missing, gives None (`—`), never a
negative or made-up figure. A new `createdTime` (a restart) starts the count again.
"""

from __future__ import annotations

from datetime import datetime

from omeconsole.model.nodes import NodeView
from omeconsole.model.readings import NodeStats


def server_stamp(stats: NodeStats) -> datetime | None:
    """The newest instant the server stamped in this reading (None when it stamped none)."""
    stamps = [moment for moment in (stats.last_updated, stats.last_recv, stats.last_sent) if moment is not None]
    return max(stamps) if stamps else None


def uptime_s(view: NodeView, now: float) -> float | None:
    """Seconds since the server created the node's current life, as of `now` (console monotonic seconds,
    the screen's one instant of this tick); None for a node with no current reading (ended, never read),
    no `createdTime` or stamp, or a `createdTime` after the server's own clock."""
    current = view.current
    if current is None:
        return None
    created, stamp = current.stats.created, server_stamp(current.stats)
    if created is None or stamp is None:
        return None
    on_server = (stamp - created).total_seconds()
    if on_server < 0:
        return None
    since = current.at
    for sample in reversed(view.history):  # a live stream's stamp moves at every reading: one step back
        if sample.stats.created != created or server_stamp(sample.stats) != stamp:
            break
        since = min(since, sample.at)
    return on_server + max(0.0, now - since)

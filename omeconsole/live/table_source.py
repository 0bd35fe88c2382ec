"""Where the streams table's figures come from in a live session: the engine, the ad board, the alerts, and
whether the server answers (while its link is down its rows read stale)."""

from __future__ import annotations

from omeconsole.core.stream_table import FactSource
from omeconsole.live.next_breaks import next_breaks
from omeconsole.live.row_marks import firing_at
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath


def table_source(live: LiveSession) -> FactSource:
    """The figures of now: each row's ad break as its tree row marks it (on air, or the next planned one)
    and the count of its alerts firing."""

    def ad_of(path: NodePath) -> str | None:
        badge = live.ad_board.badge(path)
        return badge.text if badge is not None else next_breaks(live.session.adops).text(path)

    def alerts_of(path: NodePath) -> int:
        return len(firing_at(live.alerts, path)) if live.alerts is not None else 0

    engine = live.engine
    return FactSource(engine.node, ad_of, alerts_of, live.clock.monotonic(),
                      reachable=engine.connection.status == "connected")
